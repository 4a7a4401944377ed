"""The relatives and partners a query asks about by the relation alone ("我哥在哪里工作？",
"我老公…", "Remind me to call my brother"), and the pets by their kind ("我家的狗", "my cat"): a store that says the relation in none of its words
or languages (哥, 哥哥, brother) holds nothing about that person, so recall treats such a relation
like a name the store never mentions (services/signals.query_facts: `absent`), and a memory about
someone else does not answer it ("我哥在哪里工作？" is not answered by the boyfriend's job).

Read after a possessive (我, 我的, 他, 她, 你…; my, his, our, Greg's): "兄弟们" and "brothers in
arms" are left alone, and so is "It's"/"What's" (a verb, not an owner); and in Chinese, a relation
of two characters or more that opens the text or one of its lines, where the owner goes unsaid
("岳父叫什么名字？", "女儿朵朵今年六岁": the speaker's own). A relation is read only
when its whole family of words is known (RELATIVES: its Chinese forms and its English words, with
the words that name it among others: "parents", "kids", "partner"), so that "absent" means absent in every
way the store could say it; any other relation is no sign. An English word is read as every family
saying it ("brother": 哥哥 and 弟弟). A relative who only describes another person ("my sister's
son", "my brother's kids") is not read: the store may name that person otherwise ("my nephew").
Each word is given as keyword search looks it up: a single CJK character (哥) is followed by a
space, which the keyword index reads alone (it indexes single CJK characters beside the pairs).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from memctl.core.text import stem

_OWNERS = ("我家的", "我家", "我的", "我", "他的", "他", "她的", "她", "你的", "你")
# Each family: the words that say one relation, Chinese first (what a query is read for), then English.
RELATIVES: tuple[tuple[str, ...], ...] = (
    ("哥哥", "哥", "兄", "brother", "brothers"),
    ("弟弟", "弟", "brother", "brothers"),
    ("姐姐", "姐", "sister", "sisters"),
    ("妹妹", "妹", "sister", "sisters"),
    ("爸爸", "父亲", "爸", "father", "dad", "parents"),
    ("妈妈", "母亲", "妈", "mother", "mom", "mum", "parents"),
    ("老公", "丈夫", "先生", "husband", "spouse", "partner"),
    ("老婆", "妻子", "太太", "wife", "spouse", "partner"),
    ("男朋友", "男友", "boyfriend", "partner"),
    ("女朋友", "女友", "girlfriend", "partner"),
    ("儿子", "son", "sons", "kids", "kid", "children", "child"),
    ("女儿", "daughter", "daughters", "kids", "kid", "children", "child"),
    ("爷爷", "祖父", "grandfather", "grandpa", "grandparents"),
    ("奶奶", "祖母", "grandmother", "grandma", "grandparents"),
    ("外公", "外祖父", "grandfather", "grandpa", "grandparents"),
    ("外婆", "外祖母", "grandmother", "grandma", "grandparents"),
    ("岳父", "老丈人", "公公", "father-in-law", "in-laws"),  # a spouse's father: the wife's, the husband's
    ("岳母", "丈母娘", "婆婆", "mother-in-law", "in-laws"),
    ("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹", "cousin", "cousins"),
    ("孙子", "孙女", "外孙", "外孙女", "grandson", "granddaughter", "grandchildren", "grandkids"),
    # the animals of the household, by their kind and its common breeds: a store that says none of a
    # kind's words keeps no such pet ("我家的狗叫什么名字？" of a store that knows two cats)
    ("狗狗", "小狗", "狗", "犬", "金毛", "拉布拉多", "泰迪", "柯基", "哈士奇", "柴犬", "比熊", "边牧",
     "dog", "dogs", "puppy", "corgi", "labrador", "poodle", "husky", "beagle", "retriever", "terrier"),
    ("猫咪", "小猫", "猫", "英短", "布偶", "橘猫", "狸花猫", "cat", "cats", "kitten", "tabby"),
    ("兔子", "兔", "rabbit", "bunny"),
    ("鹦鹉", "parrot"),
    ("仓鼠", "hamster"),
    ("乌龟", "龟", "turtle", "tortoise"),
)


def _looked_up(word: str) -> str:
    """A word as keyword search looks it up: a single CJK character followed by a space."""
    return f"{word} " if len(word) == 1 and not word.isascii() else word


# An English relative: every family saying it ("brother": 哥哥 and 弟弟), after a possessive (my, Greg's).
_ENGLISH = {w: tuple(dict.fromkeys(_looked_up(x) for family in RELATIVES if w in family for x in family))
            for family in RELATIVES for w in family if w.isascii()}
_KIN = "|".join(sorted({*_ENGLISH, "baby"}, key=len, reverse=True))
_OWNED = re.compile(r"\b(?:[Mm]y|[Hh]is|[Hh]er|[Oo]ur|[Yy]our|[Tt]heir"
                    r"|(?!(?:It|That|What|Where|When|Who|How|Why|Here|There|He|She|Let)['\u2019]s\b)"
                    r"(?P<owner>[A-Z][a-z]+)['\u2019]s)"
                    r"\s+(?i:(?P<kin>" + "|".join(sorted(_ENGLISH, key=len, reverse=True)) + r"))\b"
                    r"(?!['\u2019]s\s+(?i:" + _KIN + r")\b)")
_SPOKEN = tuple(sorted({(w, i) for i, family in enumerate(RELATIVES) for w in family if not w.isascii()},
                       key=lambda pair: -len(pair[0])))


def relation_terms(text: str) -> set[tuple[str, ...]]:
    """The relations a `text` names after a possessive (我, 我的…; my, his, Greg's…), each as the
    family of words keyword search looks it up by (the relation is absent only when none of them is
    found)."""
    text = unicodedata.normalize("NFKC", text)
    out = {_ENGLISH[m.group("kin").casefold()] for m in _OWNED.finditer(text)}
    if text.isascii():
        return out
    out |= _opening(text)
    for owner in _OWNERS:
        start = text.find(owner)
        while start >= 0:
            rest = text[start + len(owner):]
            found = next((i for word, i in _SPOKEN if rest.startswith(word)), None)
            if found is not None:
                out.add(tuple(_looked_up(w) for w in RELATIVES[found]))
            start = text.find(owner, start + 1)
    return out


def _opening(text: str) -> set[tuple[str, ...]]:
    """The relations of two characters or more a Chinese text or one of its lines opens with (the
    owner unsaid: the speaker's), each as the family `relation_terms` gives."""
    out = set()
    for line in text.splitlines():
        line = line.strip()
        found = next((i for word, i in _SPOKEN if len(word) >= 2 and line.startswith(word)), None)
        if found is not None:
            out.add(tuple(_looked_up(w) for w in RELATIVES[found]))
    return out


def owned_relations(text: str, names: Collection[str] | None = None) -> set[tuple[str, tuple[str, ...]]]:
    """The relations a text names after a name's possessive ("Greg's mother", "Karim's kids";
    老马他老婆, 孟凡的女儿), each as (the owner's stem, as search/specificity.name_terms gives it; the
    relation's words): only a memory saying both holds that person (the store may know Greg and a
    mother, not Greg's). `names`: the text's names when the caller has read them (name_terms), so
    its Chinese names are not read twice (a second pass over a pasted 100 KB chat took about 1 s)."""
    text = unicodedata.normalize("NFKC", text)
    out = {(stem(m.group("owner")), _ENGLISH[m.group("kin").casefold()])
           for m in _OWNED.finditer(text) if m.group("owner")}
    return out if text.isascii() else out | _owned_chinese(text, names)


_OF = ("他的", "她的", "家的", "的", "他", "她", "家")  # between a Chinese name and its relative: 老马他老婆
_AFTER_NAME = max(map(len, _OF)) + max(len(word) for word, _ in _SPOKEN)  # what of a text after a name is read


def _owned_chinese(text: str, names: Collection[str] | None) -> set[tuple[str, tuple[str, ...]]]:
    """(name, relation's words) for a Chinese name (search/cjknames.py: 老马, 陈露; those of `names` not
    in ASCII when given) followed, after 他, 她, 的 or 家, by a relation of two characters or more
    (老马他老婆, 陈露的妈妈)."""
    from memctl.search.cjknames import chinese_names

    out = set()
    for name in chinese_names(text) if names is None else {n for n in names if not n.isascii()}:
        start = text.find(name)
        while start >= 0:
            rest = text[start + len(name):start + len(name) + _AFTER_NAME]  # not the rest of a long query
            rest = next((rest[len(of):] for of in _OF if rest.startswith(of)), "")
            found = next((i for word, i in _SPOKEN if len(word) >= 2 and rest.startswith(word)), None)
            if found is not None:
                out.add((name, tuple(_looked_up(w) for w in RELATIVES[found])))
            start = text.find(name, start + 1)
    return out


def says_relation(text: str, words: tuple[str, ...]) -> bool:
    """Whether a text says one of a relation's words (any case, any language)."""
    return not unasked({words}, text)


def unasked(families: set[tuple[str, ...]], query: str) -> set[tuple[str, ...]]:
    """The relations of `families` (a memory's, from `relation_terms`) that `query` says in none of
    their words, in either language, with or without a possessive: "Where does my brother Luis work?"
    and 哥哥Luis在哪工作？ ask about 我哥; "我男朋友…" is another person for a question about a brother."""
    text = unicodedata.normalize("NFKC", query).casefold()
    words = set(re.findall(r"[a-z]+", text))
    return {f for f in families if not any(w.strip() in words if w.isascii() else w.strip() in text for w in f)}

