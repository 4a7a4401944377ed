"""The relatives and partners a Chinese query asks about by the relation alone ("我哥在哪里工作？",
"我的表妹…"): a store that never says the relation (哥) holds nothing about that person, so recall
treats such a relation like a name the store never mentions (services/signals.query_facts:
`absent`), and a memory about someone else does not answer it ("我哥在哪里工作？" is not answered
by the boyfriend's job).

Read after a possessive only (我, 我的, 他, 她, 你…): "兄弟们" is left alone. Each is returned as the
text keyword search looks up: a relation (哥哥), or a single character (哥) followed by a space,
which the keyword index reads alone (it indexes single CJK characters beside the pairs).

English is not read so: there a relative is often described rather than named ("my sister's son"
for "my nephew"; on the dev split "When was my nephew born?" lost its answer, for one negative
more left clean).
"""

from __future__ import annotations

import unicodedata

from memctl.search.cjknames import RELATIONS

_OWNERS = ("我的", "我", "他的", "他", "她的", "她", "你的", "你")
_SINGLE = "哥姐弟妹爸妈"  # 我哥, 我姐: a relative named by one character
_RELATIONS = tuple(sorted(set(RELATIONS) | {"爸爸", "妈妈", "父亲", "母亲", "爷爷", "奶奶", "外公", "外婆"},
                          key=len, reverse=True))


def relation_terms(text: str) -> set[str]:
    """The relations a Chinese `text` names after a possessive, as keyword search looks them up."""
    text = unicodedata.normalize("NFKC", text)
    if text.isascii():
        return set()
    out = set()
    for owner in _OWNERS:
        start = text.find(owner)
        while start >= 0:
            rest = text[start + len(owner):]
            relation = next((r for r in _RELATIONS if rest.startswith(r)), None)
            if relation is not None:
                out.add(relation)
            elif rest[:1] and rest[0] in _SINGLE:
                out.add(f"{rest[0]} ")
            start = text.find(owner, start + 1)
    return out
