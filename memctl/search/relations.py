"""The relatives and partners a Chinese query asks about by the relation alone ("我哥在哪里工作？",
"我老公…"): a store that says the relation in none of its words or languages (哥, 哥哥, brother)
holds nothing about that person, so recall treats such a relation like a name the store never
mentions (services/signals.query_facts: `absent`), and a memory about someone else does not
answer it ("我哥在哪里工作？" is not answered by the boyfriend's job).

Read after a possessive only (我, 我的, 他, 她, 你…): "兄弟们" is left alone. A relation is read only
when its whole family of words is known (RELATIVES: its Chinese forms and its English words), so
that "absent" means absent in every way the store could say it; any other relation is no sign.
Each word is given as keyword search looks it up: a single CJK character (哥) is followed by a
space, which the keyword index reads alone (it indexes single CJK characters beside the pairs).

English queries are not read so: there a relative is often described rather than named ("my
sister's son" for "my nephew").
"""

from __future__ import annotations

import re
import unicodedata

_OWNERS = ("我的", "我", "他的", "他", "她的", "她", "你的", "你")
# Each family: the words that say one relation, Chinese first (what a query is read for), then English.
RELATIVES: tuple[tuple[str, ...], ...] = (
    ("哥哥", "哥", "兄", "brother", "brothers"),
    ("弟弟", "弟", "brother", "brothers"),
    ("姐姐", "姐", "sister", "sisters"),
    ("妹妹", "妹", "sister", "sisters"),
    ("爸爸", "父亲", "爸", "father", "dad"),
    ("妈妈", "母亲", "妈", "mother", "mom", "mum"),
    ("老公", "丈夫", "先生", "husband"),
    ("老婆", "妻子", "太太", "wife"),
    ("男朋友", "男友", "boyfriend"),
    ("女朋友", "女友", "girlfriend"),
    ("儿子", "son", "sons"),
    ("女儿", "daughter", "daughters"),
    ("爷爷", "祖父", "grandfather", "grandpa"),
    ("奶奶", "祖母", "grandmother", "grandma"),
    ("外公", "外祖父", "grandfather", "grandpa"),
    ("外婆", "外祖母", "grandmother", "grandma"),
)
_SPOKEN = tuple(sorted({(w, i) for i, family in enumerate(RELATIVES) for w in family if not w.isascii()},
                       key=lambda pair: -len(pair[0])))


def relation_terms(text: str) -> set[tuple[str, ...]]:
    """The relations a Chinese `text` names after a possessive, each as the family of words keyword
    search looks it up by (the relation is absent only when none of them is found)."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return set()
    out = set()
    for owner in _OWNERS:
        start = text.find(owner)
        while start >= 0:
            rest = text[start + len(owner):]
            found = next((i for word, i in _SPOKEN if rest.startswith(word)), None)
            if found is not None:
                out.add(tuple(_looked_up(w) for w in RELATIVES[found]))
            start = text.find(owner, start + 1)
    return out


def unasked(families: set[tuple[str, ...]], query: str) -> set[tuple[str, ...]]:
    """The relations of `families` (a memory's, from `relation_terms`) that `query` says in none of
    their words, in either language, with or without a possessive: "Where does my brother Luis work?"
    and 哥哥Luis在哪工作？ ask about 我哥; "我男朋友…" is another person for a question about a brother."""
    text = unicodedata.normalize("NFKC", query).casefold()
    words = set(re.findall(r"[a-z]+", text))
    return {f for f in families if not any(w.strip() in words if w.isascii() else w.strip() in text for w in f)}


def _looked_up(word: str) -> str:
    """A word as keyword search looks it up: a single CJK character followed by a space."""
    return f"{word} " if len(word) == 1 and not word.isascii() else word
