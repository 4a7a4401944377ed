"""Whose question it is (pure): a question about what another person or an animal does or has is no
request of the user's, so the user's constraints do not bite in it ("What does a horse eat in
winter?", "Is the cat due for her flea treatment?", "which hospital did she say it was?",
"我家狗狗疫苗打了没有？"). Only a constraint that names that party rides along with it.

A sentence is read as about another party only when all of these hold, so that a plan keeps its
constraints whatever it asks (a missing constraint is worse than one riding along):

- it is a question (a question mark, a question word or auxiliary first, a Chinese question mark
  or particle); a statement or a request ("Book a table for Ana") is the user's;
- its subject (English: the words after a question word and its auxiliary, past "the", "my"...;
  Chinese: the sentence's first words, past a possessive such as 我家 / 我的) is a third-person
  pronoun (he, she, 他, 她), a relative (RELATIVES), an animal (ANIMALS) or a name the caller reads
  (search/specificity.name_terms, search/cjknames.py); a thing ("Which hotel has a pool?") or the
  user ("What can I eat?") keeps the sentence the user's;
- it says no first-person word (I, we, us, our, 我们, 咱们) beyond the possessive of its subject:
  "Is Ana eating with us?" is the user's meal too.

The party's words are its subject and every name and relative the query says (a pronoun refers to
one of them: "My sister's having her knee done. Which hospital did she say it was?").
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Collection

from memctl.core.text import stem

RELATIVES = frozenset("""mother mom mum mummy mommy father dad daddy parents brother sister sibling wife husband
    partner boyfriend girlfriend fiance fiancee son daughter grandson granddaughter grandmother grandma granny nan
    grandfather grandpa aunt uncle cousin nephew niece mother-in-law father-in-law sister-in-law brother-in-law
    neighbour neighbor friend colleague coworker boss""".split())
ANIMALS = frozenset("""dog dogs puppy cat cats kitten horse horses pony rabbit bunny hamster parrot budgie bird
    tortoise turtle lizard snake goldfish fish guinea""".split())
PRONOUNS = frozenset({"he", "she"})
ZH_OTHERS = ("他", "她", "它")
ZH_RELATIVES = ("爸爸", "妈妈", "爸", "妈", "父亲", "母亲", "哥哥", "姐姐", "弟弟", "妹妹", "哥", "姐", "弟", "妹",
                "老公", "老婆", "丈夫", "妻子", "太太", "先生", "男朋友", "女朋友", "男友", "女友", "儿子", "女儿",
                "爷爷", "奶奶", "外公", "外婆", "公公", "婆婆", "岳父", "岳母", "同事", "朋友", "邻居", "老板", "领导")
ZH_ANIMALS = ("狗狗", "小狗", "狗", "猫咪", "小猫", "猫", "兔子", "仓鼠", "鹦鹉", "乌龟", "金鱼", "马")
ZH_OWNERS = ("我们家的", "我们家", "我家的", "我家", "我的", "他家的", "他家", "她家的", "她家", "他的", "她的", "你家", "你的", "我")
ZH_USER = ("我们", "咱们", "咱")
ZH_QUESTION = ("吗", "呢", "什么", "哪", "谁", "怎么", "几", "多少", "是否", "是不是", "有没有", "没有", "了没")
WH = frozenset("what which when where who whom whose why how".split())
AUX = frozenset("""is are was were do does did has have had can could will would should may might must
    shall""".split())
DETERMINERS = frozenset("the a an my our your his her their this that these those".split())
USER = frozenset("i me we us our ours you i'm we're you're i'd we'd i've we've myself ourselves let's".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
_SENTENCE = re.compile(r"[^.!?;。！？；]+[.!?;。！？；]*")
_SPEAKER = re.compile(r"^\s*[\w .'-]{1,30}\s*[:：]\s*")
_CONTRACTED = re.compile(r"^(what|where|who|when|how|which)['\u2019]s$")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a query, and the party it asks about (None: the user's own)."""

    text: str
    party: str | None = None


def sentences(query: str) -> list[str]:
    """The query's sentences, line by line, each without a speaker's label ("User: ")."""
    out = []
    for line in unicodedata.normalize("NFKC", query).splitlines():
        line = _SPEAKER.sub("", line, count=1) if _SPEAKER.match(line) else line
        out += [s.strip() for s in _SENTENCE.findall(line) if s.strip()]
    return out


def read(query: str, names: Collection[str] = ()) -> list[Sentence]:
    """Each sentence with the party it asks about (`names`: the stems of the names the query says)."""
    return [Sentence(s, _party(s, names)) for s in sentences(query)]


def party_words(query: str, names: Collection[str] = ()) -> frozenset[str]:
    """The words that name the parties a query is about: its names, relatives and animals (stems, or
    Chinese words), which a constraint must say to ride along with a question about them."""
    words = {_bare(w) for w in _WORD.findall(unicodedata.normalize("NFKC", query))}
    out = {stem(w) for w in words & (RELATIVES | ANIMALS)} | set(names)
    out |= {w for w in (*ZH_RELATIVES, *ZH_ANIMALS) if w in query}
    return frozenset(out)


def says_party(text: str, words: Collection[str]) -> bool:
    """Whether a memory's text names one of a party's `words` (as `party_words` gives them)."""
    folded = unicodedata.normalize("NFKC", text)
    stems = {stem(_bare(w)) for w in _WORD.findall(folded)}
    return any(w in stems or (not w.isascii() and w in folded) for w in words)


def _bare(word: str) -> str:
    """A word casefolded, without a possessive's 's ("sister's": sister)."""
    return word.casefold().replace("\u2019", "'").removesuffix("'s")


def _party(sentence: str, names: Collection[str]) -> str | None:
    if any(c >= "\u3400" for c in sentence):
        return _zh_party(sentence, names)
    words = [w.casefold().replace("\u2019", "'") for w in _WORD.findall(sentence)]
    if not words or not _asks(sentence, words):
        return None
    opener = next((k for k in range(min(len(words), 3)) if _opens(words[k])), 0)
    subject = _subject(words[opener:])
    if subject is None or not _other(subject, names):
        return None
    return subject if not USER & set(words) else None


def _asks(sentence: str, words: list[str]) -> bool:
    return sentence.rstrip().endswith("?") or _opens(words[0])


def _opens(word: str) -> bool:
    """A question word or an auxiliary (a question opens with one, after a "yes" or "so")."""
    return word in WH or word in AUX or bool(_CONTRACTED.match(word))


def _subject(words: list[str]) -> str | None:
    """The head of the question's subject: after a question word (and the noun it asks about: "which
    hospital") and its auxiliary ("did"), past determiners and possessives ("the cat", "his wife")."""
    i = 0
    if _CONTRACTED.match(words[0]):
        i = 1
    elif words[0] in WH:
        i = next((j + 1 for j in range(1, min(len(words), 4)) if words[j] in AUX), 0)
        if i == 0:
            return None
    elif words[0] in AUX:
        i = 1
    while i < len(words) and words[i] in DETERMINERS:
        i += 1
    return words[i] if i < len(words) else None


def _other(word: str, names: Collection[str]) -> bool:
    return word in PRONOUNS or word in RELATIVES or word in ANIMALS or stem(word.removesuffix("'s")) in names


def _zh_party(sentence: str, names: Collection[str]) -> str | None:
    """A Chinese question's party: its first words past a possessive (我家狗狗, 他老婆, 老马…)."""
    if not (sentence.rstrip().endswith(("？", "?")) or any(m in sentence for m in ZH_QUESTION)):
        return None
    if any(u in sentence for u in ZH_USER):
        return None
    start = sentence.lstrip("那这，, ")
    rest = next((start[len(o):] for o in ZH_OWNERS if start.startswith(o)), start)
    if rest.startswith(ZH_OTHERS) and start == rest:
        return rest[0]
    found = next((w for w in (*ZH_RELATIVES, *ZH_ANIMALS) if rest.startswith(w)), None)
    if found is not None:
        return found
    return next((n for n in names if rest.startswith(n)), None)
