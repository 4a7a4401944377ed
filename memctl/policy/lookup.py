"""Lookups (pure): a question that looks up something stored ("When is my next appointment with
the dentist?", "Which hotel did we reserve?", 我的眼科医生是哪位？) rather than a request that plans,
chooses, books or recommends ("Which hotel in Porto has a pool?", "Where should we eat tonight?",
推荐一家餐厅, 周五去哪家餐厅吃饭？). A constraint rides along with a request in its domain; with a
lookup only when the lookup asks about the constraint itself.

A question about things in general (`is_general`: "What does a goat eat?", "How many strings does
a cello have?") asks what is known of them, for no one: no constraint rides along.

Read on the query's last sentence (a dialogue's last question). English: a question (a wh-word, or
an auxiliary and its subject, opening it: "Do a meal plan" is no question) about someone's own or past things (a pronoun or possessive, or did / was
/ were / had), with no modal or judgement (should, can, would, best, good) and not about what someone eats
or drinks (that asks about their diet, as 吃什么 does). Chinese: it asks for a
name, a person, a place, a time, a number or whether something happened (叫什么, 哪位, 在哪, 什么时候,
多少, 了没有), with no word of a request (推荐, 帮我, 安排, 适合, 去哪, 好吃, 想, 应该).
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

_SENTENCES = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_NO_END = re.compile(r"(?<=\d)\.(?=\d)|(?<=\b(?:dr|mr|ms|st|mt|jr|sr|vs))\.(?=\s)|(?<=\b(?:mrs|etc))\.(?=\s)|(?<=\bprof)\.(?=\s)")
_SPEAKER = r"(?i)^\s*(?:user|assistant|用户|助手)\s*[:：]\s*"
_FILLER = r"^\W*(?:(?:yes|yeah|no|ok|okay|so|and|but|anyway|thanks|hmm|well)\b\W*)*"
_WH = re.compile(_FILLER + r"(?:what|what's|whats|when|when's|where|where's|who|who's|whose|which|how much|how many"
                 r"|how old|how long)\b")
_AUX_OPENING = re.compile(_FILLER + r"(?:did|was|were|had|has|have|is|are|does|do)\s+(?:i|we|he|she|they|it|you"
                          r"|my|our|his|her|their|the|this|that)\b")
_GENERAL = re.compile(_FILLER + r"(?:how|why|(?:is|are|was|were|does|did|has|have)\s+(?:a|an)\b)")
_OWN_OR_PAST = re.compile(r"\b(?:i|me|my|mine|we|us|our|he|him|his|she|her|they|them|their|did|was|were|had)\b")
_CHOOSING = re.compile(r"\b(?:should|shall|could|can|would|will|might|must|ought|recommend|suggest|best|better"
                       r"|good|nice|great|worth|ideas?|options?|eat|eats|drink|drinks)\b")
_ASKS_ZH = ("叫什么|什么名字|姓什么|哪位|是谁|在哪|什么地方|是多少|多少号|号码|什么时候|哪天|哪一天|几号|几点"
            "|是哪家|的是哪|是哪个|来着|了没有|了吗|没有打")
_REQUEST_ZH = ("推荐(?![的过])|帮我|帮忙|给我找|找一|订[一个张间](?!的)|预订(?!的)|预约|安排(?!的)|适合"
               "|应该|好吃|好玩|最好|不错|怎么样|去哪|吃什么|有没有|能不能|可以|想(?!知道)|要不要|打算|计划|准备")


_PERSONAL = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours|ourselves|you|your|yours|yourself|he|him|his|she"
                       r"|her|hers|they|them|their|theirs)\b")
_PARTICULAR = re.compile(r"\b(?:the|this|that|these|those|which|whose|could|can|would|recommend|suggest"
                         r"|best|better|good|nice|great|worth|ideas?|options?)\b|\w['\u2019]s\b")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z]")


@cache
def _zh(pattern: str) -> re.Pattern[str]:
    """A pattern with Chinese in it, compiled when first needed, not at import (a fresh English
    recall compiles no CJK pattern of memctl's: tests/services/test_recall.py)."""
    return re.compile(pattern)


def _has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)


def last_sentence(query: str) -> str:
    """The query's last sentence, without a dialogue's speaker label, NFKC-folded and lower-cased."""
    lines = [line for line in unicodedata.normalize("NFKC", query).casefold().splitlines() if line.strip()]
    if not lines:
        return ""
    sentences = _SENTENCES.findall(_NO_END.sub("", _zh(_SPEAKER).sub("", lines[-1])))  # "Dr. Lee", "2.5%": no end
    return sentences[-1].strip() if sentences else ""


def is_lookup(query: str) -> bool:
    """Whether the query looks something stored up rather than asking to plan, choose, book or
    recommend."""
    sentence = last_sentence(query)
    if _has_cjk(sentence):
        return bool(_zh(_ASKS_ZH).search(sentence)) and not _zh(_REQUEST_ZH).search(sentence)
    if not (_WH.match(sentence) or _AUX_OPENING.match(sentence)):
        return False
    return bool(_OWN_OR_PAST.search(sentence)) and not _CHOOSING.search(sentence)


def is_general(query: str) -> bool:
    """Whether the query is an English question about things in general: a question (a wh-word or an
    auxiliary opening its last sentence) that says no one (no pronoun or possessive of anyone, no
    name: a capital inside a sentence) and nothing in particular (no definite article, demonstrative
    or possessive 's, nothing that chooses: which, can, best): "What does a goat eat?", "How
    many strings does a cello have?". A question about the user's own things says
    so ("What does our dog eat?", "When is the cat due her shots?"), and so does a choice made for
    them ("Which hotel has a pool?")."""
    text = unicodedata.normalize("NFKC", query).strip()
    sentence = last_sentence(text)
    if _has_cjk(text) or not (_WH.match(sentence) or _GENERAL.match(sentence)):
        return False
    folded = text.casefold()
    return not (_PERSONAL.search(folded) or _PARTICULAR.search(folded) or _NAME.search(text))
