"""One relation between two people said from either side (pure).

"Priya reports to Daniel" / "Daniel is Priya's manager", "Emily is Marcus's older sister" / "Marcus
is Emily's younger brother", "小雨是阿杰的表姐" / "阿杰是小雨的表弟" share their names and no
predicate word, so neither the token rules nor the values read them as one fact. Each is read as a
relation with its two people in order (who manages whom, who is the elder); a relation that holds both
ways (spouses, friends) keeps its people sorted. A relative named ("Rosa's son is named Milo",
"秀兰的女儿叫甜甜") is the same relation as "Milo is Rosa's son". Only a text that is nothing but the
relation is read: "Priya reports to Daniel since May" says more, and is left to the other rules.
"""

from __future__ import annotations

import re

Relation = tuple[str, str, str]  # (relation, first person, second person)

# a relation word -> (relation, whether the one it names is the relation's first person); None: either way
_ROLES: dict[str, tuple[str, bool | None]] = {
    **dict.fromkeys(("manager", "boss", "supervisor", "line manager", "direct manager"), ("manages", True)),
    **dict.fromkeys(("direct report", "report", "subordinate"), ("manages", False)),
    **dict.fromkeys(("wife", "husband", "spouse"), ("married", None)),
    **dict.fromkeys(("older sister", "older brother", "elder sister", "elder brother", "big sister",
                     "big brother"), ("elder sibling", True)),
    **dict.fromkeys(("younger sister", "younger brother", "little sister", "little brother", "kid sister",
                     "kid brother"), ("elder sibling", False)),
    **dict.fromkeys(("mother", "father", "mom", "dad", "mum", "parent"), ("parent", True)),
    **dict.fromkeys(("son", "daughter", "child", "kid"), ("parent", False)),
    **dict.fromkeys(("grandmother", "grandfather", "grandparent"), ("grandparent", True)),
    **dict.fromkeys(("grandson", "granddaughter", "grandchild"), ("grandparent", False)),
    **dict.fromkeys(("mentor",), ("mentor", True)),
    **dict.fromkeys(("mentee", "protege", "protégé"), ("mentor", False)),
    **dict.fromkeys(("上司", "顶头上司", "上级", "直属上级", "领导", "直属领导", "老板", "主管"), ("manages", True)),
    **dict.fromkeys(("下属", "手下"), ("manages", False)),
    **dict.fromkeys(("妻子", "老婆", "太太", "媳妇", "丈夫", "老公", "爱人"), ("married", None)),
    **dict.fromkeys(("姐姐", "哥哥"), ("elder sibling", True)),
    **dict.fromkeys(("妹妹", "弟弟"), ("elder sibling", False)),
    **dict.fromkeys(("表姐", "表哥"), ("elder cousin 表", True)),
    **dict.fromkeys(("表妹", "表弟"), ("elder cousin 表", False)),
    **dict.fromkeys(("堂姐", "堂哥"), ("elder cousin 堂", True)),
    **dict.fromkeys(("堂妹", "堂弟"), ("elder cousin 堂", False)),
    **dict.fromkeys(("妈妈", "母亲", "爸爸", "父亲"), ("parent", True)),
    **dict.fromkeys(("儿子", "女儿", "闺女", "孩子"), ("parent", False)),
    **dict.fromkeys(("师父", "师傅", "导师"), ("mentor", True)),
    **dict.fromkeys(("徒弟",), ("mentor", False)),
    **dict.fromkeys(("girlfriend", "boyfriend", "男朋友", "女朋友", "男友", "女友", "对象"), ("dating", None)),
}
# a verb between two people -> (relation, whether its subject is the relation's first person)
_VERBS: dict[str, tuple[str, bool | None]] = {
    "reports to": ("manages", False), "report to": ("manages", False),
    "works for": ("manages", False), "work for": ("manages", False),
    "is married to": ("married", None), "am married to": ("married", None),
    "is dating": ("dating", None), "am dating": ("dating", None),
    "汇报": ("manages", False),  # 向...汇报: reports to
    "谈恋爱": ("dating", None), "男女朋友": ("dating", None), "情侣": ("dating", None), "夫妻": ("married", None),
}
_GENDERED = (
    ("f", frozenset("wife sister mother mom mum daughter grandmother granddaughter aunt niece girlfriend 妻子 老婆 太太"
                    " 姐姐 妹妹 表姐 表妹 堂姐 堂妹 妈妈 母亲 女儿 闺女 媳妇 女朋友 女友".split())),
    ("m", frozenset("husband brother father dad son grandfather grandson uncle nephew boyfriend 丈夫 老公 哥哥 弟弟 表哥"
                    " 表弟 堂哥 堂弟 爸爸 父亲 儿子 男朋友 男友".split())),
)
_ROLE = "|".join(sorted(map(re.escape, (r for r in _ROLES if r.isascii())), key=len, reverse=True))
_ZH_ROLE = "|".join(sorted(map(re.escape, (r for r in _ROLES if not r.isascii())), key=len, reverse=True))
_VERB = "|".join(map(re.escape, (v for v in _VERBS if v.isascii())))
_NAME = r"[A-Z][^\W\d_]*(?:[ -][A-Z][^\W\d_]*)?"
_ZH_NAME = r"[^\W\d_的是向和与跟叫]{1,5}"
# a is the one the role names (or the verb's subject), b the other
_PATTERNS = [re.compile(p) for p in (
    rf"(?P<a>{_NAME}|I) (?:is|am) (?:(?P<b>{_NAME})'s|my) (?P<role>{_ROLE})",
    rf"(?P<a>{_NAME}|I) (?:is|am) the (?P<role>{_ROLE}) of (?P<b>{_NAME}|me)",
    rf"(?:(?P<b>{_NAME})'s|[Mm]y) (?P<role>{_ROLE})(?: is| is named| is called|'s name is) (?P<a>{_NAME})",
    rf"(?P<a>{_NAME}|I) (?P<verb>{_VERB}) (?P<b>{_NAME}|me)",
    rf"(?P<a>{_ZH_NAME})是(?P<b>{_ZH_NAME})的(?P<role>{_ZH_ROLE})",
    rf"(?P<b>{_ZH_NAME})的(?P<role>{_ZH_ROLE})(?:是|叫|名叫|叫做)(?P<a>{_ZH_NAME})",
    rf"(?P<a>{_ZH_NAME})向(?P<b>{_ZH_NAME})(?P<verb>汇报)(?:工作)?",
    rf"(?P<a>{_ZH_NAME})[和跟与](?P<b>{_ZH_NAME}?)(?:在|正在)?(?P<verb>谈恋爱)",
    rf"(?P<a>{_ZH_NAME})[和跟与](?P<b>{_ZH_NAME}?)是(?:一对)?(?P<verb>男女朋友|情侣|夫妻)",
)]
_END = ".!。！"  # what may close a text besides whitespace


def _person(name: str | None) -> str:
    """One spelling of a person: "me", "my" and "I" are the speaker."""
    return "i" if name is None or name.casefold() in {"i", "me", "my"} else name.casefold()


def _ordered(relation: str, holder: str, other: str, first: bool | None) -> Relation:
    if first is None:
        holder, other = sorted((holder, other))
        return relation, holder, other
    return (relation, holder, other) if first else (relation, other, holder)


def relation_of(text: str) -> Relation | None:
    """The relation a text is nothing but, its people in the relation's order; None when it says
    anything else (or no relation read here)."""
    read = _read(text)
    return read[0] if read else None


def _closed(text: str) -> str:
    """The text without the whitespace and stops it ends with (a loop from the end, not a pattern
    retried from every stop inside the text: linear however many it holds)."""
    end = len(text)
    while end and (text[end - 1].isspace() or text[end - 1] in _END):
        end -= 1
    return text[:end]


def _read(text: str) -> tuple[Relation, tuple[str, str] | None] | None:
    """The relation, and the person its role word says is a woman or a man ("wife", "哥哥")."""
    text = _closed(text.strip())
    match = next(filter(None, (p.fullmatch(text) for p in _PATTERNS)), None)
    if match is None:
        return None
    groups = match.groupdict()
    role = (groups.get("role") or "").casefold()
    relation, first = _ROLES[role] if role else _VERBS[groups["verb"]]
    a, b = _person(groups["a"]), _person(groups.get("b"))
    gender = next((g for g, words in _GENDERED if role in words or role.split(" ")[-1] in words), None)
    return None if a == b else (_ordered(relation, a, b, first), (a, gender) if gender else None)


def same_relation(old: str, new: str) -> bool:
    """Both texts are one relation of the same two people, said from either side, and no one is a
    woman in one and a man in the other ("Tom is Ann's son" / "Tom is Ann's daughter" is a change)."""
    first, second = _read(old), _read(new)
    if first is None or second is None or first[0] != second[0]:
        return False
    one, other = first[1], second[1]
    return not (one and other and one[0] == other[0] and one[1] != other[1])
