"""What a memory is about, read from its words: the attribute it states, the identifiers it names,
whether it records an occurrence or announces a change, and whether it hedges (pure, no I/O).

The write decision uses these to tell "another value of the same thing" (Alice lives in Lisbon,
then Berlin) from "another thing" (a second flight, a second car, another time Gina asked about
the weather). The word lists are about English and Chinese grammar and everyday attributes, not
about any dataset.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memctl.core.text import stem
from memctl.core.textcache import text_cache

# Attributes that hold one value at a time: a new value replaces the old one. Each is found by its
# cue words (stemmed English, or Chinese substrings).
SINGLE_VALUED: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "residence": (frozenset(stem(w) for w in "live lives living moved move relocated relocate based home "
                                               "hometown reside resides city address".split()),
                  ("住在", "住", "搬到", "搬去", "居住", "定居", "家在")),
    "employer": (frozenset(stem(w) for w in "works work working employer employed job joined company".split()),
                 ("工作", "就职", "任职", "入职", "公司")),
    "role": (frozenset(stem(w) for w in "role title position promoted manager lead boss head director "
                                          "owner supervisor mentor".split()), ("职位", "担任", "升任", "经理", "负责人")),
    "tool": (frozenset(stem(w) for w in "uses use using switched default editor ide interpreter version runs".split()),
             ("使用", "改用", "用的是", "版本")),
    "preference": (frozenset(stem(w) for w in "prefers prefer preferred favourite favorite".split()),
                   ("最喜欢", "偏好", "更喜欢")),
    "status": (frozenset(stem(w) for w in "status phase stage currently".split()), ("状态", "阶段")),
    "diet": (frozenset(stem(w) for w in "vegetarian vegan pescatarian teetotal teetotaler diet meat fish alcohol".split()),
             ("吃素", "素食", "吃肉", "荤", "喝酒", "戒酒", "忌口")),
    "schedule": (frozenset(stem(w) for w in "scheduled schedule deadline due rescheduled postponed "
                                               "starts begins ends leaves departs arrives meeting appointment "
                                               "standup launch release offsite interview".split()),
                 ("截止", "推迟", "改期", "出发", "开始", "会议", "面试", "发布")),
    "price": (frozenset(stem(w) for w in "budget price cost costs salary rent".split()), ("预算", "价格", "工资", "房租")),
}

# Phrases that announce a new value of an attribute (the old one no longer holds).
CHANGE_PHRASES = re.compile(
    r"(?i)\b(?:moved to|moved back to|moved (?:back |away )?from|moved out of|relocated to|switched to|switched from|"
    r"changed to|now works|now lives|now uses|no longer|not anymore|any ?more|quit|left (?:his|her|their|my) job|started (?:working|using|at|eating|drinking|smoking)|"
    r"has started|stopped|became|is now|are now|was promoted|joined|"
    r"cancell?ed|called off|gave up|sold (?:my|our|his|her|their|the)|retired|broke up|"
    r"migrated (?:to|from)|upgraded to|downgraded to|handed in (?:my|his|her|their) notice|transferred to|went (?:up|down) to)\b"
    r"|搬到|搬去|搬离|搬回|不再|改用|换成|现在在|已经离职|辞职|加入了|开始在|升任|取消了|退了|卖了|转让|分手了|退休了|跳槽|改喝|改吃|改到|改成")

# A verb of change with the new value after "to" / "into" / "onto", a few words between ("migrated all
# their tickets over to Linear", "moved every login into 1Password", "bumped his dose up to 20 mg").
_MOVED_TO = re.compile(
    r"(?i)\b(?:(?:moved|migrated|switched|transferred|rebooked|reassigned|pushed|bumped|upped|hiked|raised|lowered|"
    r"cut|reduced|increased|upgraded|downgraded|changed|shifted|promoted|converted)\b(?:\s+[\w'’-]+){0,4}?"
    r"\s+(?:(?:up|down|over|back)\s+)?(?:to|into|onto)|(?:is|are|was|went|got|['’]s)\s+(?:now\s+)?(?:up|down)\s+to)"
    r"\s+(?P<target>[^.;,!?]+)")
# Identifiers: a different one means a different thing (a second flight, order, ticket, room).
# Things told apart by a number they carry: "locker 12" and "locker 14" are two lockers, not two values.
_ID_WORDS = (r"flight|order|ticket|item|room|booking|reservation|confirmation|invoice|case|issue|table|seat|gate|"
             r"train|bus|car|plate|account|policy|claim|pr|locker|platform|desk|apartment|apt|flat|unit|suite|"
             r"bay|dock|slot|box|route|lane|bed|cabin|terminal|track|aisle|row|section|lot|parcel|package|shop|"
             r"store|building|block|site|batch|ward|chapter|page|no\.?|number|#")
IDENTIFIER = re.compile(
    rf"(?:\b(?i:{_ID_WORDS})\s*[:#]?\s*(?:[A-Z0-9][A-Za-z0-9-]*)?\d[A-Za-z0-9-]*)"  # flight UA1234, room 12, locker 6
    r"|\b[A-Z]{2,3}\s?\d{2,5}\b"  # UA 5678, LH441, BA 12
    r"|\b[A-Z]+-\d+\b"  # PAY-1234
    r"|\b(?!v\d)[A-Za-z]+\d+[A-Za-z0-9]*\b"  # A12, QX7PLM (a version such as v2 is a value, not an id)
    r"|\b\d+-\d+(?:-\d+)*\b"  # 6-0, 6-999 (ISO dates are taken out first)
    r"|#\d+"
    r"|(?:订单号?|航班|房间|座位|工单|发票|编号|车次|门牌|会议室|学号|证号|卡号|单号)(?:号码|号)?\s*[:：]?\s*[A-Za-z]*-?\d+"
    r"|\d+号(?:发票|订单|工单|房间?|楼|线|门|柜|床|座|窗口|车厢|包厢|储物柜|展位)")  # 0231号发票, 3号楼: the thing's number
_ID_PREFIX = re.compile(rf"(?i)^(?:{_ID_WORDS})\s*[:#]?\s*")
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")

# An occurrence: something that happened once (each is its own memory). Past tense of action verbs.
_OCCURRENCE_VERBS = frozenset(
    """asked said told went came visited called met saw took bought booked ordered paid sent received wrote
    gave got ate drank cooked watched played won lost attended flew drove ran walked talked mentioned
    shared showed tried finished completed presented celebrated hosted travelled traveled returned
    arrived left picked adopted signed opened closed fixed broke""".split())
_OCCURRENCE_ZH = ("问了", "说了", "去了", "买了", "订了", "见了", "参加了", "看了", "吃了", "提到")

# Words that hedge a statement: a guess must not become a long-term memory by promotion.
HEDGES = re.compile(
    r"(?i)\b(?:maybe|perhaps|possibly|probably|might|may be|not sure|unsure|i think|i guess|i believe|"
    r"seems? to|apparently|supposedly|allegedly|could be|likely)\b|可能|也许|大概|好像|不确定|似乎")


# Attributes whose value is itself a name (a city, a company, a tool): a different name there is a
# new value; anywhere else a different name is a different thing (a meeting with Bob or with Carol).
NAMED_VALUES = frozenset({"residence", "employer", "tool", "preference"})
_NAME = re.compile(r"\b[A-Z][a-z]+")
# "Note 12:", "Room 4.", "In 2020 ...": a numbered thing's label, where the number ends it (a colon,
# a stop, the end) or it opens the sentence; "I lent Carla 200 dollars" names Carla.
_LABEL = re.compile(r"\b([A-Z][a-z]+)\s+\d+(?=\s*(?:[:.,;)]|$))|(?:^|(?<=[.!?;:]\s))([A-Z][a-z]+)\s+\d")
_NOT_NAMES = frozenset("""Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December The A An This That These Those It He She They We You
    My Our Your His Her Their Its There Here When Where What Who Why How If But And Or So Then Every Each All
    Some No Not Never Always Yesterday Today Tomorrow Last Next Now Mr Mrs Ms Mx Dr Prof""".split())
# A title before a name ("Dr. Lee", "Mrs. Hale"): its period ends no sentence, and it is no name itself.
TITLE_PERIOD = re.compile(r"\b(Mr|Mrs|Ms|Mx|Dr|Prof)\.(?=\s+[A-Z])")


# Who a statement is about when it is not a name: "my sister" and "my brother" are two people.
_RELATIONS = frozenset(stem(w) for w in """mother mom mum father dad parent parents sister brother sibling son
    daughter child children kid kids wife husband spouse partner boyfriend girlfriend fiance fiancee aunt uncle
    cousin niece nephew grandmother grandma grandfather grandpa grandson granddaughter grandparent stepmother
    stepfather stepson stepdaughter friend roommate neighbour neighbor colleague coworker boss manager landlord
    teacher doctor dentist""".split())
_ZH_RELATIONS = ("妈妈", "母亲", "爸爸", "父亲", "姐姐", "妹妹", "哥哥", "弟弟", "儿子", "女儿", "孩子", "妻子",
                 "老婆", "丈夫", "老公", "男朋友", "女朋友", "阿姨", "叔叔", "舅舅", "姑姑", "表哥", "表姐", "堂哥",
                 "爷爷", "奶奶", "外公", "外婆", "姥姥", "老伴", "我爸", "我妈", "老爸", "老妈", "岳父", "岳母", "公公", "婆婆", "女婿", "儿媳",
                 "孙子", "孙女", "组长", "领导", "导师", "朋友", "室友", "邻居", "同事", "老板", "经理", "房东", "老师",
                 "医生", "我姐", "我哥", "我弟", "我妹", "姐夫", "妹夫", "嫂子", "弟媳", "姑父", "姨父", "表弟", "表妹",
                 "堂姐", "堂弟", "堂妹")


def relations(text: str) -> set[str]:
    """The relations a text speaks of ("my sister", "her mother", "妹妹"): each is another person."""
    return set(_relations(text))


# One relative said by another word: "my mom" / "my mother", "his boy" / "his son" (a boy or a girl is
# a child only after a possessive: "the boy next door" is no relative).
_SAME_RELATIVE = {stem(a): stem(b) for a, b in (("mom", "mother"), ("mum", "mother"), ("dad", "father"),
                                                 ("kid", "child"), ("kids", "child"), ("children", "child"),
                                                 ("grandma", "grandmother"), ("grandpa", "grandfather"))}
_CHILD_WORD = re.compile(r"\b(?:my|our|his|her|their|[a-z]+'s)\s+(?:(?:little|older|younger|oldest|youngest|eldest)\s+)?"
                         r"(boy|girl)s?\b")


# A relative by marriage, from the start of its word (each start of a long letter run read the rest of it).
_IN_LAW = re.compile(r"(?<![a-z])([a-z]++)[- ]in[- ]law")


@lru_cache(maxsize=16384)
def _relations(text: str) -> frozenset[str]:
    lower = text.lower().replace("\u2019", "'")
    in_law = {f"{m}-in-law" for m in _IN_LAW.findall(lower)}  # "mother-in-law" is not "mother"
    words = {stem(w) for w in re.findall(r"[a-z]+", _IN_LAW.sub(" ", lower))}
    children = {"son" if found == "boy" else "daughter" for found in _CHILD_WORD.findall(lower)}
    english = {_SAME_RELATIVE.get(word, word) for word in words & _RELATIONS} | children
    return frozenset(english | in_law | {r for r in _ZH_RELATIONS if r in text})


def names(text: str) -> set[str]:
    """Capitalised words (people, places, products), grammar words, weekdays and months left out."""
    return {n for n in _NAME.findall(TITLE_PERIOD.sub(r"\1", text)) if n not in _NOT_NAMES}


@lru_cache(maxsize=16384)  # a pure reading of the text: each candidate is compared with every peer
def attribute_of(text: str) -> str | None:
    """The single-valued attribute a text states (residence, employer, ...), or None."""
    words = {stem(w) for w in re.findall(r"[A-Za-z]+", text.lower())}
    for name, (cues, cjk) in SINGLE_VALUED.items():
        if words & cues or any(c in text for c in cjk):
            return name
    return None


def identifiers(text: str) -> set[str]:
    """The identifiers a text names (flight, order, item numbers, codes), normalised."""
    return set(_identifiers(text))


@lru_cache(maxsize=16384)
def _identifiers(text: str) -> frozenset[str]:
    without_dates = _DATE.sub(" ", text)
    return frozenset(_id_key(m.group()) for m in IDENTIFIER.finditer(without_dates))


# The words that may label a numbered thing ("flight", "desk", "terminal"), stemmed as slot words are.
THING_WORDS = frozenset(stem(w) for w in _ID_WORDS.split("|") if w.isalpha())


def labelled_things(text: str) -> frozenset[str]:
    """The words that label an identifier in the text, stemmed ("flight UA12" flight, "Terminal 3"
    terminal): the numbered thing the identifier names."""
    found = (_ID_PREFIX.match(m.group()) for m in IDENTIFIER.finditer(_DATE.sub(" ", text)))
    return frozenset(stem(p.group().strip(" :#").lower()) for p in found if p)


def _id_key(found: str) -> str:
    """"flight UA 1234" is UA1234 (the code says it all); "locker 6" stays LOCKER6 (a bare number
    needs the word it labels: locker 6 and gate 6 are two things)."""
    code = re.sub(r"[\s:#]+", "", _ID_PREFIX.sub("", found)).upper()
    return code if not code.isdigit() else re.sub(r"[\s:#.]+", "", found).upper()


@text_cache(short=16384, long=512)  # a candidate announcing a change is compared with all its owner's memories
def subjects(text: str) -> frozenset[str]:
    """The names a text may be about: its names but a capitalised word just before a number, which
    labels a numbered thing ("Note 12", "Room 4", "In 2020") and is no one a statement is about."""
    return frozenset(names(text) - {w for pair in _LABEL.findall(text) for w in pair if w})


def same_subject(old: str, new: str) -> bool:
    """Whether two texts speak of the same named subjects (or neither names any): two statements
    labelled "Note 12" and "Note 30" share no subject by the label."""
    a, b = subjects(old), subjects(new)
    return not (a or b) or bool(a & b)


def names_other_things(old: str, new: str) -> bool:
    """True when the two texts name different identifiers: they are about different things."""
    a, b = identifiers(old), identifiers(new)
    return bool(a or b) and a != b


def is_occurrence(text: str) -> bool:
    """True for a text recording something that happened (a past action), each time its own fact."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    return bool(words & _OCCURRENCE_VERBS) or any(v in text for v in _OCCURRENCE_ZH)


@text_cache(short=16384, long=512)  # asked of one candidate against each of its owner's memories
def announces_change(text: str) -> bool:
    """True when a text says a value changed ("moved to", "switched to", "no longer", "搬到", ...)."""
    return bool(CHANGE_PHRASES.search(text)) or moved_to(text) is not None


# Chinese: a verb of change and 到 / 成 / 为, the new value after it ("减到了一百零五斤", "改成了maomao888").
_ZH_MOVED_TO = re.compile(r"(?:减|加|涨|降|调|推迟|提前|挪|改|换|转|升级|降级|搬|延)了?(?:到|成|为)了?(?P<target>[^，。,；;！!？?]+)")


def moved_to(text: str) -> str | None:
    """The new value a verb of change moves something to ("switched her plan to Family" Family), or None."""
    found = _MOVED_TO.search(text) or _ZH_MOVED_TO.search(text)
    return found.group("target").strip() if found else None


# The thing a verb of change moves, said as its object: English right after the verb ("switched Biscuit
# to ...", "moved piano lessons to ..."), Chinese after 把 ("把爱奇艺改成了年卡", "把二甲双胍加到...").
_MOVED_THING = re.compile(
    r"(?i)\b(?:moved|switched|transferred|rebooked|reassigned|pushed|bumped|upped|raised|lowered|cut|reduced|"
    r"increased|upgraded|downgraded|changed|shifted|converted)\s+(?P<thing>[\w'’-]+(?:\s+[\w'’-]+){0,3}?)"
    r"\s+(?:(?:up|down|over|back)\s+)?to\s+\S")  # "into" / "onto" say where it is kept, as often as its value
_ZH_MOVED_THING = re.compile(
    r"把(?P<thing>[^，。,；;！!？?把]{1,12}?)(?:减|加|涨|降|调|推迟|提前|挪|改|换|转|升级|降级|延)了?(?:到|成|为)")


def moved_thing(text: str, opening: bool = False) -> str | None:
    """The thing a verb of change moves to a new value ("switched Biscuit to a salmon formula" Biscuit,
    "把爱奇艺改成了年卡" 爱奇艺), or None (`opening`: only a verb the text opens with)."""
    if opening:
        found = _MOVED_THING.match(text.lstrip())
        return found.group("thing") if found else None
    found = _MOVED_THING.search(text) or _ZH_MOVED_THING.search(text)
    return found.group("thing").strip() if found else None


def hedged(text: str) -> bool:
    """True for a guess ("maybe", "not sure", "might", "可能", ...)."""
    return bool(HEDGES.search(text))
