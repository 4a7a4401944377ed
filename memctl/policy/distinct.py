"""What makes two similar statements two facts: the values they name (pure, no I/O).

Cosine similarity cannot tell "invoice INV-2024-001 was paid on 3 April" from the same sentence
about INV-2024-002 (0.97), so consolidation (compact's clusters, dedupe's merges) first compares
the values each text names: identifiers, numbers and amounts, dates, names of people, places and
things, relations ("my sister", "her mother"), and negation. Two texts whose values differ state
different facts and are never merged into one, whatever their cosine (a name only one of them
adds is a detail: see `distinct_reason`). The lists here are about
English and Chinese grammar (number words, kinship, negation), not about any dataset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from difflib import SequenceMatcher
from functools import lru_cache

from memctl.core.text import CJK_RANGES
from memctl.policy.facts import TITLE_PERIOD, identifiers, names, relations
from memctl.policy.when import MONTHS, WEEKDAYS, absolute_dates, relative_dates

_NUMBER = re.compile(r"(?P<cur>[$€£¥₹])?\s?(?P<n>\d+(?:[.,]\d+)*(?::\d{2})?)\s?(?P<suffix>%|(?:k|m|bn)(?![A-Za-z\d_]))?", re.IGNORECASE)
_NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
# A run of word characters and hyphens with a digit in it, whole; tried from a run's start only (each
# start of "[\w-]*\d[\w-]*" read the rest of a long run: quadratic on a letter run with no digit).
_DIGIT_WORD = re.compile(r"(?<![\w-])(?=[\w-]*?\d)[\w-]+")
# An identifier as written: letters, a dash or '#', digits; from a letter run's start (each start of a
# long letter run read the rest of it).
_ID_PHRASE = re.compile(r"(?:(?<![A-Za-z])[A-Za-z]++)?[-#]?\d[\w-]*")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_NEGATIONS = frozenset("not no never none nobody nothing neither nor without cannot".split())
_ZH_NEGATIONS = re.compile(r"不|没|无|未")
_ADDRESS_RUN = re.compile(r"[\w.+-]+", re.ASCII)  # what an address's local part is made of (read backwards too)
_DOMAIN = re.compile(r"(?<![\w-])[\w-]++(?:\.[\w-]++)+", re.ASCII)  # from a run's start: linear wherever it runs
_CALENDAR_WORDS = frozenset(w.capitalize() for w in (*MONTHS, *WEEKDAYS))


def email_spans(text: str) -> list[tuple[int, int]]:
    """Where the email addresses are, as `[\\w.+-]+@[\\w-]+(?:\\.[\\w-]+)+` (ASCII) finds them one after
    another, in linear time: that regex tried every start in a run of address characters and
    backtracked over it (quadratic: 5 s for 'a'*16000+'@'+'b'*16000). Per '@': the local part is
    the run of address characters before it (read backwards, from where the last address ended),
    the domain matched once after it; neither reads past the '@' before or after."""
    at = text.find("@")
    if at < 0:
        return []
    out: list[tuple[int, int]] = []
    done, backwards = 0, text[::-1]
    while at >= 0:
        local = _ADDRESS_RUN.match(backwards, len(text) - at)
        start = max(done, len(text) - local.end()) if local else at
        domain = _DOMAIN.match(text, at + 1) if start < at else None
        if domain:
            out.append((start, domain.end()))
            done = domain.end()
        at = text.find("@", at + 1)
    return out


def emails(text: str) -> list[str]:
    """The email addresses in `text`, in order."""
    return [text[a:b] for a, b in email_spans(text)]


def without_emails(text: str, by: str = " ") -> str:
    """`text` with each email address replaced by `by`."""
    spans = email_spans(text)
    if not spans:
        return text
    ends = [0, *(b for _, b in spans)]
    return "".join(text[end:a] + by for end, (a, _) in zip(ends, spans)) + text[ends[-1]:]


@dataclass(frozen=True)
class Values:
    """The values a statement names; two statements with different values are two facts."""

    identifiers: frozenset[str] = field(default_factory=frozenset)
    numbers: frozenset[str] = field(default_factory=frozenset)
    dates: frozenset[str] = field(default_factory=frozenset)
    names: frozenset[str] = field(default_factory=frozenset)
    relations: frozenset[str] = field(default_factory=frozenset)
    negated: bool = False

    def covers(self, other: "Values") -> bool:
        """True when every value of `other` is among these (a text that keeps all of them loses none)."""
        return (other.identifiers <= self.identifiers and other.numbers <= self.numbers
                and other.dates <= self.dates and other.names <= self.names
                and other.relations <= self.relations and (self.negated or not other.negated))


def _canon_number(raw: str) -> str:
    raw = raw.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", raw) else raw.replace(",", ".")
    whole, _, frac = raw.partition(".")
    frac = frac.rstrip("0")
    return (whole.lstrip("0") or "0") + (f".{frac}" if frac else "")


def read_numbers(text: str) -> list[tuple[str, int, int]]:
    """The numbers written in digits, each as a value ("$1,200" is "$1200") with where it starts and ends."""
    return [(f"{m.group('cur') or ''}{_canon_number(m.group('n'))}{(m.group('suffix') or '').lower()}", m.start(), m.end())
            for m in _NUMBER.finditer(text)]


def _thousands(number: str) -> str:
    """A number with "k" as the thousands it counts ("5k" is 5000, "$1.5k" $1500)."""
    if not number.endswith("k") or ":" in number:
        return number
    sign = number[0] if not number[0].isdigit() else ""
    return sign + _canon_number(f"{float(number[len(sign):-1]) * 1000:.2f}")


def _numbers(text: str) -> set[str]:
    """Numbers and amounts ("$1,200" is "$1200"; "two" is "2"), identifiers and dates taken out first."""
    out = {_thousands(number) for number, _, _ in read_numbers(text)}
    out |= {_NUMBER_WORDS[w] for w in (w.lower() for w in _WORD.findall(text)) if w in _NUMBER_WORDS}
    return out


def _without(text: str, patterns: list[str]) -> str:
    """`text` with each phrase taken out, the longest first and, among phrases of one length, in
    alphabetical order (a total order: a caller may pass phrases drawn from a set, and two overlapping
    identifiers of one length must not be removed in set order)."""
    for phrase in sorted(patterns, key=lambda p: (-len(p), p)):
        text = text.replace(phrase, " ")
    return text


_REFERENCE_DAY = date(2000, 1, 3)  # relative phrases are compared as written, not resolved


def _dates(text: str) -> set[str]:
    """Absolute dates (policy/when.py), weekdays ("on Fridays" is "friday") and relative phrases
    ("tomorrow", "next week", "上个月"), each as written."""
    found = {value for _, value in absolute_dates(text)}
    for reading in relative_dates(text, _REFERENCE_DAY):
        phrase = re.sub(r"^(?:the|on)\s+", "", reading.phrase.lower())
        found.add(phrase.rstrip("s") if phrase.rstrip("s") in WEEKDAYS else phrase)
    found |= {w.lower().rstrip("s") for w in _WORD.findall(text) if w.lower().rstrip("s") in WEEKDAYS}
    return found


_TOKEN = re.compile(f"[{CJK_RANGES}]|[A-Za-z]+n't|[A-Za-z]+|\\d+")


def _negations(tokens: list[str]) -> int:
    return sum(t in _NEGATIONS or t.endswith("n't") or bool(_ZH_NEGATIONS.fullmatch(t)) for t in tokens)


def flips_polarity(a: str, b: str) -> bool:
    """A negation added or removed inside the statement ("eats meat" / "doesn't eat meat"), not in a
    clause one of them adds at the end ("..., no sugar")."""
    ta, tb = _TOKEN.findall(a.lower().replace("\u2019", "'")), _TOKEN.findall(b.lower().replace("\u2019", "'"))
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes():
        trailing = i2 == len(ta) and j2 == len(tb)
        if tag != "equal" and not trailing and _negations(ta[i1:i2]) != _negations(tb[j1:j2]):
            return True
    return False


def _negated(text: str) -> bool:
    words = {w.lower() for w in _WORD.findall(text.replace("\u2019", "'"))}
    return bool(words & _NEGATIONS or any(w.endswith("n't") for w in words) or _ZH_NEGATIONS.search(text))


# A blank run with a line break in it is read whole from its start ("\n\s*" tried every line break of a
# long blank run against the rest of it: quadratic on " \n" repeated).
_SENTENCE_START = re.compile(r"(?:^|[.!?;:]\s++|(?<!\s)(?>\s*\n\s*))(?P<word>[A-Z][a-z]+)(?P<after>'s\b|\s+\S+)?")
_AUX = frozenset("is was are were has had have will would can could should may might must does did".split())


def _names(text: str) -> set[str]:
    """Capitalised words (facts.names), where the first word of a sentence counts only when it reads
    as a subject: another word follows that looks like a verb ("Alice lives", "Bob asked", "Carol
    is") or it is a possessive ("Dana's"). "Prefers window seats" starts with no name; a title's
    period ("Dr. Lee") ends no sentence."""
    text = TITLE_PERIOD.sub(r"\1", text)
    found = names(text)
    inside = set(re.findall(r"(?<=[^.!?\s])\s+([A-Z][a-z]+)", text))
    for m in _SENTENCE_START.finditer(text):
        word, after = m.group("word"), (m.group("after") or "").strip().lower()
        verb_like = after == "'s" or after in _AUX or re.fullmatch(r"[a-z]+(?:s|ed)", after) is not None
        if word in found and word not in inside and not verb_like:
            found.discard(word)
    return found


_ZH_DIGITS = {c: n for n, c in enumerate("零一二三四五六七八九")} | {"两": 2}
_ZH_PLACES = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_ZH_RUN = re.compile(r"[零一二两三四五六七八九十百千万]+")
_ZH_DIGIT_RUN = re.compile(r"[零一二两三四五六七八九]*")
_ZH_D = "[一二两三四五六七八九]"
# One year, month or day beside an amount is how often it holds ("一年4800", "128一个月", "一天 2 杯"
# are 每年, 每月, 每天); "1月" alone is January.
_ZH_SPAN = r"个月|个?(?:年|天|周|星期|礼拜)"
_ZH_PER = re.compile(rf"(?<=\d)\s1({_ZH_SPAN})|(?<![\d.])1({_ZH_SPAN})(?=\s?\d)")
# One numeral said in full, places falling ("一百二十八"; "一百二十八一个月" is 128 and one month).
_ZH_WHOLE = re.compile(rf"(?:(?:{_ZH_D}百)?(?:零?{_ZH_D}?十)?(?:零?{_ZH_D})?(?<=[一二两三四五六七八九十])万)?(?:零?{_ZH_D}千)?(?:零?{_ZH_D}百)?(?:零?{_ZH_D}?十)?(?:零?{_ZH_D})?")
# A number said with a point is a decimal ("三点九五" 3.95), not a clock time: its digits come one by
# one, with no 十 and no 分 or 刻 after (a clock is 三点十五, 三点一刻, 三点零五).
# Tried from a numeral run's start (or the next character when a part of the day opens the run: the
# look-behind keeps the run's start), the runs taken whole: each start of a long run read the rest of it.
_ZH_DECIMAL = re.compile(r"(?:(?<![零一二两三四五六七八九十])|(?<=(?:上午|下午|中午|晚上|早上|凌晨)[零一二两三四五六七八九十]))"
                         r"(?<!上午|下午|中午|晚上|早上|凌晨)([零一二两三四五六七八九十]++)点([一二三四五六七八九][零一二三四五六七八九]*+)"
                         r"(?![零一二三四五六七八九十百千万分刻钟])")
_ZH_NUMBER = re.compile(r"[零一二两三四五六七八九十百千万]+(?=[月日号点元块岁天年个次分周楼层度斤米克]"
                        r"|公里|公斤|毫升|毫克|毫米)")
# Words a numeral opens that are no number: 一点 "a little" (有一点贵, 甜一点; a clock time after a part
# of the day or before 半/钟/minutes), 十分 "very" (十分重要; ten minutes as 十分钟 or after 点), 一度 "once".
_NOT_NUMBERS = re.compile(r"(?<!上午|下午|中午|晚上|早上|凌晨)一(?=点(?![半钟零一二两三四五六七八九十\d]))"
                          r"|(?<![点\d])十(?=分(?!钟))|一(?=度)")  # 一度 "once", not one degree
_ZH_PERCENT = re.compile(r"百分之([零一二两三四五六七八九十百]+|\d+(?:\.\d+)?)")
_YEAR = re.compile(r"(?:19|20)\d\d")
_CLOCK_EN = re.compile(r"(?i)\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?![a-z])")
# A match starts where its run of spaces starts (from inside one it would have matched from its start):
# tried from every space of a long run, each try scanned the run again.
_CLOCK_ZH = re.compile(r"(?:(上午|早上|中午|下午|晚上|凌晨)|(?<!\s))\s*(\d{1,2})\s*点(半|(\d{1,2})分?|([一三])刻)?")
_DIGITAL_CLOCK_ZH = re.compile(r"(上午|早上|中午|下午|晚上|凌晨)\s*(\d{1,2}):(\d\d)(?!\d)")  # 下午3:45 is 15:45
_CURRENCY_AFTER = re.compile(r"(?i)(?<!\d)(\d+(?:[.,]\d+)?)\s*(dollars?|usd|bucks|euros?|eur|pounds?|gbp|元|块钱|块|rmb)(?![a-z])")
_CURRENCY_SIGN = {"dollar": "$", "usd": "$", "buck": "$", "euro": "€", "eur": "€", "pound": "£", "gbp": "£",
                  "元": "¥", "块钱": "¥", "块": "¥", "rmb": "¥"}
_DIGIT_GROUPS = re.compile(r"(?<![\d.,:])\d{3,4}(?:[ -]\d{3,4}){1,3}(?![\d,:]|\.\d)")  # a stop may end it
# A phone number's area code in brackets ("(415) 555 0142", "(020) 8765-4321"): one number with the rest.
_AREA_CODE = re.compile(r"(?<![\w(])\((\d{2,4})\)[ -]?(\d{3,4}(?:[ -]\d{3,4}){0,2})(?![\d,:]|\.\d)")
# Street words of an address written one way ("220 Burnside Avenue" is "220 Burnside Ave").
_STREET_SHORT = {"avenue": "Ave", "street": "St", "road": "Rd", "boulevard": "Blvd", "apartment": "Apt",
                 "lane": "Ln", "place": "Pl", "square": "Sq", "ave.": "Ave", "st.": "St", "rd.": "Rd",
                 "blvd.": "Blvd", "apt.": "Apt", "ln.": "Ln", "pl.": "Pl", "sq.": "Sq"}
# The word before a street word is read in its first 40 letters (a capital inside a long run of letters
# and apostrophes read the rest of the run: quadratic).
_STREET = re.compile(r"(\b(?:[A-Z][A-Za-z'-]{0,40}+|\d+(?:st|nd|rd|th)?) )(Avenue|Street|Road|Boulevard|Lane|Place|Square"
                     r"|(?:Ave|St|Rd|Blvd|Apt|Ln|Pl|Sq)\.)(?![A-Za-z])|\b(Apartment|Apt\.)(?=\s*\d)")
_ZH_WEEKDAY = re.compile(r"(?:周|星期|礼拜)([一二三四五六日天])")
# 这周三 / 下周三 / 上礼拜五: a weekday of this, next or last week, as "this/next/last wednesday" in English.
_ZH_WEEK_OF = re.compile(r"(?<![上下])(这|本|下|上)个?(?:周|星期|礼拜)([一二三四五六日天])")
_WEEK_OF = {"这": "this", "本": "this", "下": "next", "上": "last"}


def _zh_number(raw: str) -> int:
    """A Chinese numeral as a number ("二十" 20, "十五" 15, "两" 2, "一百二十" 120, "五十万" 500000);
    digits alone are read one by one ("二零二四" 2024). A digit right after 百, 千 or 万 is the next
    place down, as numbers are said short ("三千五" 3500, "四千八" 4800; "一百零五" is 105)."""
    if not set(raw) & set(_ZH_PLACES):
        return int("".join(str(_ZH_DIGITS[ch]) for ch in raw))
    total, current, place, zero = 0, 0, 0, False
    for ch in raw:
        if ch in _ZH_DIGITS:
            current, zero = _ZH_DIGITS[ch], zero or ch == "零"
            continue
        place, zero = _ZH_PLACES[ch], False
        total = (total + current or 1) * place if place == 10000 else total + (current or 1) * place
        current = 0
    return total + (current * place // 10 if place >= 100 and not zero else current)


def _clock_en(m: re.Match[str]) -> str:
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3).lower().replace(".", "")
    hour = hour % 12 + (12 if half == "pm" else 0)
    return f"{hour}:{minute:02d}"


def _clock_zh(m: re.Match[str]) -> str:
    quarters = m.group(5) and (1 if m.group(5) == "一" else 3)  # 三点一刻 3:15, 三点三刻 3:45
    minute = 30 if m.group(3) == "半" else 15 * quarters if quarters else int(m.group(4) or 0)
    return _day_clock(m.group(1), int(m.group(2)), minute)


def _day_clock(part: str | None, hour: int, minute: int) -> str:
    """A clock time on 24 hours from the part of the day said before it (下午 3 is 15)."""
    if part in ("下午", "晚上") and hour < 12:
        hour += 12
    elif part in ("晚上", "凌晨") and hour == 12:
        hour = 0  # 晚上十二点 is midnight, not noon
    return f" {hour}:{minute:02d} "  # apart from the digits around it: 10/14上午11点 is not 10/1411:00


def _zh_numerals(text: str) -> str:
    """Chinese numerals as digits ("二十岁" 20岁, "百分之五十" 50%, "三千五" 3500, "三点九五" 3.95), but
    not the words a numeral opens that are no number (`_NOT_NUMBERS`: 一点 "a little", 十分 "very"):
    a numeral is read where a measure follows it or where it has a place and two characters or more."""
    text = _ZH_PERCENT.sub(lambda m: _digits(m.group(1)) + "%", text)
    text = _ZH_DECIMAL.sub(lambda m: f"{_zh_number(m.group(1))}.{_zh_number(m.group(2))}", text)
    text = _ZH_RUN.sub(lambda m: _zh_run(text, m), text)
    return _ZH_PER.sub(lambda m: "每" + (m.group(1) or m.group(2)).lstrip("个"), text)


def _zh_run(text: str, m: re.Match[str]) -> str:
    """A run of numeral characters as digits, one whole numeral after another ("一百二十八一个月" is
    128 and 1个月); digits alone, or 十 alone, only before a measure ("三个", "十天")."""
    out: list[str] = []
    at, run = 0, m.group()
    while at < len(run):
        whole = _matched(_ZH_WHOLE, run, at)
        if not set(whole) & set(_ZH_PLACES):
            whole = _matched(_ZH_DIGIT_RUN, run, at) or run[at]
        measured = at + len(whole) == len(run) and _ZH_NUMBER.match(text, m.start() + at)
        said = len(whole) >= 2 and bool(set(whole) & set(_ZH_PLACES))
        idiom = len(whole) == 1 and _NOT_NUMBERS.match(text, m.start() + at)
        read = whole[0] not in "百千万" and (said or (measured and not idiom))
        out.append((" " if read and out and out[-1][-1].isdigit() else "") + (str(_zh_number(whole)) if read else whole))
        at += len(whole)
    return "".join(out)


def _matched(pattern: re.Pattern[str], text: str, at: int) -> str:
    found = pattern.match(text, at)
    return found.group() if found else ""


def _digits(raw: str) -> str:
    return raw if raw[0].isdigit() else str(_zh_number(raw))


def _joined_groups(m: re.Match[str]) -> str:
    """Digit groups of one number joined ("139 1122 3344"), but not years ("2019-2021" is a range)."""
    groups = re.split(r"[ -]", m.group())
    return m.group() if all(_YEAR.fullmatch(g) for g in groups) else "".join(groups)


# A duration in hours is the same duration in minutes ("an hour" / "sixty minutes", "一个半小时" / "90分钟"),
# but not a rate ("$25 an hour", "一小时50块"): no number or amount before an English one, none after a Chinese one.
_HOURS_EN = re.compile(r"(?i)\b(?:(an?|one|\d+(?:\.\d+)?)\s+hours?(\s+and\s+a\s+half)?|(half)\s+an\s+hour)\b(?!['’-])")
_HOURS_ZH = re.compile(r"(?<!每)(一|两|半|(?<!\d)\d+(?:\.\d+)?)个?(半)?(?:小时|钟头)(?!\s?[\d¥$])")
_RATE_BEFORE = re.compile(r"(?i)(?:\d|\bdollars?|\bbucks|\beuros?|\bpounds?|\btimes|\bonce|\btwice)\s*$")


def _minutes(count: str, half: bool) -> str | None:
    hours = (0.0 if count == "半" else 1.0 if count.lower() in {"a", "an", "one", "一"} else 2.0 if count == "两"
             else float(count)) + (0.5 if half else 0.0)
    return f"{hours * 60:g}" if 0 < hours <= 12 else None


def _hours_en(m: re.Match[str]) -> str:
    if _RATE_BEFORE.search(m.string[:m.start()]):
        return m.group()
    minutes = "30" if m.group(3) else _minutes(m.group(1), bool(m.group(2)))
    return f"{minutes} minutes" if minutes else m.group()


def _hours_zh(m: re.Match[str]) -> str:
    minutes = _minutes(m.group(1), bool(m.group(2)) or m.group(1) == "半")
    return f"{minutes}分钟" if minutes else m.group()


def _durations(text: str) -> str:
    """Hours said as minutes, the one way a duration is written here."""
    return _HOURS_ZH.sub(_hours_zh, _HOURS_EN.sub(_hours_en, text))


def _area_code(m: re.Match[str]) -> str:
    """An area code in brackets joined to the number after it, when the two are a phone number's
    length (nine digits or more: "(415) 555 0142"; "(2019) 300" stays)."""
    digits = m.group(1) + re.sub(r"[ -]", "", m.group(2))
    return digits if len(digits) >= 9 else m.group()


def _street_short(m: re.Match[str]) -> str:
    """A street word after a name or a number ("Burnside Avenue"), or "Apartment 5", abbreviated."""
    return _STREET_SHORT[m.group(3).casefold()] if m.group(3) else m.group(1) + _STREET_SHORT[m.group(2).casefold()]


_PERCENT_EN = re.compile(r"(?i)(?<!\d)(\d+(?:\.\d+)?)\s*(?:percent|per cent)\b")
_HOUR_WORD = r"\d{1,2}|" + "|".join(list(_NUMBER_WORDS)[1:])
_PAST_EN = re.compile(rf"(?i)\b(half|quarter)\s+past\s+({_HOUR_WORD})\b")
_OCLOCK_EN = re.compile(rf"(?i)\b({_HOUR_WORD})\s+o'?clock\b")


# An hour after "at" with nothing after it that it counts ("at six:", "at 7 on Fridays") is a clock
# time; said of the evening ("evenings", "tonight") a clock time under twelve is after noon.
_AT_HOUR = re.compile(r"(?i)\bat\s+(1[0-2]|[1-9]|" + "|".join(list(_NUMBER_WORDS)[1:]) + r")(?!\d|[.:]\d)"
                      r"(?=\s*(?:[,;!?)]|\.(?!\d)|:(?!\d)|$)|\s+(?:on|in|every|each|tonight|sharp|with)\b)")
_EVENING = re.compile(r"(?i)\b(?:evenings?|tonight|at night)\b")
_MORNING = re.compile(r"(?i)\b(?:mornings?|noon|afternoons?)\b|\ba\.m\.|\d\s*am\b")  # not "I am"
_BARE_CLOCK = re.compile(r"(?<![\d:])([1-9]|1[01]):(\d\d)(?!\d)")


def _evening_clock(text: str, said: str) -> str:
    """Hours said bare after "at" as clock times, after noon when the text as `said` speaks of the
    evening and of no other part of the day ("6:30 in the morning and 7:00 in the evening")."""
    text = _AT_HOUR.sub(lambda m: f"at {_hour(m.group(1))}:00", text)
    if not _EVENING.search(said) or _MORNING.search(said):
        return text
    return _BARE_CLOCK.sub(lambda m: f"{int(m.group(1)) + 12}:{m.group(2)}", text)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else int(_NUMBER_WORDS[word.casefold()])


def _spoken_clock(text: str) -> str:
    """A clock time said in words as digits ("half past nine" 9:30, "eleven o'clock" 11:00, "eleven at
    night" 11 pm), then read on 24 hours with its am/pm like any other."""
    text = _PAST_EN.sub(lambda m: f"{_hour(m.group(2))}:{30 if m.group(1).casefold() == 'half' else 15:02d}", text)
    text = _OCLOCK_EN.sub(lambda m: f"{_hour(m.group(1))}:00", text)
    return _HOUR_OF_DAY_PART.sub(_hour_of_day_part, text)


# An hour said with its part of the day ("eleven at night", "7 in the morning"): the part is its am / pm.
_HOUR_OF_DAY_PART = re.compile(rf"(?i)\b({_HOUR_WORD})(:\d\d)?\s+(in\s+the\s+(?:morning|afternoon|evening)|at\s+night)\b")


def _hour_of_day_part(m: re.Match[str]) -> str:
    """"eleven at night" 23:00, "2 at night" 2:00 (the small hours are the night after midnight)."""
    hour, part = _hour(m.group(1)), m.group(3).casefold()
    if not 1 <= hour <= 12:
        return m.group()
    night_am = part.endswith("night") and (hour == 12 or hour < 5)
    hour = hour % 12 + (0 if part.endswith("morning") or night_am else 12)
    return f"{hour:02d}{m.group(2) or ':00'}"  # "02:00": no bare hour an evening said elsewhere moves


_CENTS_EN = re.compile(r"(?i)([$€£]\d+)\s+and\s+(\d{1,2})\s+cents?\b")  # "$42 and 17 cents" is $42.17
_UNITS_EN = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen"
                                        " fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS_EN = {w: 10 * n for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if n > 1}
_SMALL_EN = rf"(?:(?:{'|'.join(_TENS_EN)})(?:[- ](?:{'|'.join(list(_UNITS_EN)[1:10])}))?|{'|'.join(_UNITS_EN)})"
_ORDINAL_EN = r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
# A number written in English words past twelve ("forty-two", "three hundred", "eighteen"); twelve and
# under stay words, read as numbers where they stand alone (`_numbers`). Not the tens of an ordinal
# ("May twenty-first" is no May 20): that stays words, as before numbers were spelled.
# Hundreds, then at most one thousand before them ("two thousand three hundred"): a number word does not
# chain without bound ("three hundred three hundred" is two numbers, 300 and 300, not 30300).
_HUNDREDS_EN = rf"{_SMALL_EN}(?:\s+hundred(?:\s+(?:and\s+)?{_SMALL_EN}(?!\s+(?:hundred|thousand)\b))?)?"
_SPELLED_EN = re.compile(rf"(?i)\b{_HUNDREDS_EN}(?:\s+thousand(?:\s+(?:and\s+)?{_HUNDREDS_EN}"
                         rf"(?!\s+(?:hundred|thousand)\b))?)?\b(?![- ](?:{_ORDINAL_EN})\b)")


def _spelled_value(m: re.Match[str]) -> str:
    words = re.split(r"[\s-]+", m.group().casefold())
    if not set(words) & ({*_TENS_EN, "hundred", "thousand"} | {w for w, n in _UNITS_EN.items() if n > 12}):
        return m.group()
    total = current = 0
    for word in words:
        if word == "hundred":
            current *= 100
        elif word == "thousand":
            total, current = total + current * 1000, 0
        elif word != "and":
            current += _UNITS_EN.get(word, _TENS_EN.get(word, 0))
    return str(total + current)


_DIGIT_NAMES = {"oh": "0", "o": "0", "zero": "0"} | {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine".split()) if n}
_DIGIT_NAME = r"(?:oh|o|zero|one|two|three|four|five|six|seven|eight|nine)"
# A number said digit by digit ("five five five, oh one four two"): five digits or more, as a phone
# number or a code is read out; fewer are words ("one or two").
_SPOKEN_DIGITS = re.compile(rf"(?i)\b{_DIGIT_NAME}(?:[\s,-]+{_DIGIT_NAME}){{4,}}\b")
# An address written so that no program reads it: "adam [at] reyes [dot] dev", "ana (at) mail (dot) com".
_HIDDEN_AT = re.compile(r"(?i)(?<!\s)\s*[\[(]\s*at\s*[\])]\s*")  # from where its spaces start, as _CLOCK_ZH
_HIDDEN_DOT = re.compile(r"(?i)(?<=\w)\s*[\[(]\s*dot\s*[\])]\s*(?=\w)")
# A year cut to two digits before what it dates ("a '15 Civic", "the ’98 Corolla") is that year.
_SHORT_YEAR = re.compile(r"(?<![\w'’])['’](\d\d)(?=\s+[A-Z])")
_POINT_EN = re.compile(rf"(?i)\b(\d+|{_DIGIT_NAME})\s+point((?:\s+(?:\d|{_DIGIT_NAME})\b)+)")  # "five point nine" 5.9


def _spoken_digits(m: re.Match[str]) -> str:
    return "".join(_DIGIT_NAMES[w.casefold()] for w in re.findall(r"[A-Za-z]+", m.group()))


def _digit(word: str) -> str:
    return word if word.isdigit() else _DIGIT_NAMES[word.casefold()]


def _short_year(m: re.Match[str]) -> str:
    two = int(m.group(1))
    return f"{2000 + two if two <= 40 else 1900 + two}"


_ORDINALS_EN = {w: n for n, w in enumerate(
    "_ first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth"
    " fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()) if n} | {"thirtieth": 30}
_DAY_ORDINAL = (r"(?:(?:twenty|thirty)[- ](?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth)|"
                + "|".join(sorted(_ORDINALS_EN, key=len, reverse=True)) + ")")
_MONTH_NAME = "|".join(m.capitalize() for m in MONTHS)
# A day said as an ordinal word beside its month ("October fourteenth", "the first of May") is the day.
# The month is capitalised: "I may second that", "we march first" name no day.
_MONTH_ORDINAL = re.compile(rf"\b(?:({_MONTH_NAME})\.?\s+(?i:the\s+)?(?i:({_DAY_ORDINAL}))\b"
                            rf"|(?i:the\s+)?(?i:({_DAY_ORDINAL}))\s+of\s+({_MONTH_NAME})\b)")
# A weekday cut to its first letters ("Fri 12th", "first Fri") is the weekday; not before a name ("Sun Life").
# Wed, Sat and Sun are words too ("Sat by the door", "Sun is out"): those only before a date, a stop or a comma.
_WEEKDAY_SHORT = re.compile(r"\b(Mon|Tues?|Thu(?:rs?)?|Fri|(?:Wed|Sat|Sun)(?=\.?\s*(?:\d|[,;:)]|\.?$)))\b\.?"
                            r"(?!\s+[A-Z]|[-'’])")
# A clock time on 24 hours with no colon, in a span ("0700-1500", "1900 to 2130"): not a span of years.
_HOURS_SPAN = re.compile(r"(?<![\d.,:-])([01]\d|2[0-3])([0-5]\d)(\s*(?:-|–|—|to|until)\s*)([01]\d|2[0-3])([0-5]\d)(?![\d,:]|\.\d)")
# An address with its "@" said as "at" ("songjia at xyz.cn"): the domain ends in a dot and letters,
# and the local part has an address's mark (a digit, a dot, "_") or the text speaks of mail ("I work
# at acme.com" is no address).
_SAID_AT = re.compile(r"(?i)(?<![\w.+-])([a-z0-9][\w.+-]*)\s+at\s+([a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})\b(?!\.\w)", re.ASCII)
_MAIL_WORDS = re.compile(r"(?i)\be-?mail|\bmail\b|邮件|邮箱|电邮")
# A weight in pounds written in kilograms (`_kilograms`): "pounds" is money only beside
# a word of money ("paid 40 pounds"); Chinese 斤 and 两 as 公斤 ("136斤" 68公斤, "6斤8两" 3.4公斤).
_POUNDS = re.compile(r"(?i)\b(\d+(?:\.\d+)?)\s*(lbs?|pounds?)\b")
_MONEY_WORDS = re.compile(r"(?i)\b(?:pa(?:y|id|ys|ying)|costs?|price[sd]?|spen[dt]|charge[sd]?|fees?|rent|bills?|owe[sd]?"
                          r"|earn(?:s|ed)?|salary|incomes?|grand|budget|worth|buy|bought|sell|sold|fine[sd]?|tips?|wages?)\b|£")
_ROUGHLY = re.compile(r"(?i)\b(?:about|around|roughly|approximately|nearly|almost|some)\b|~|约|大约|左右|差不多")
_JIN = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)斤(?:([\d一二三四五六七八九])两)?")
# A height said short in Chinese ("一米六五" 1.65 m) in centimetres, as it is also written ("165cm").
_METRE_SHORT = re.compile(r"(?<![\d.])([12])米([\d零一二三四五六七八九])([\d零一二三四五六七八九])?(?![\d米十])")


def _month_ordinal(m: re.Match[str]) -> str:
    month, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    parts = re.split(r"[- ]", word.casefold())
    day = sum(_TENS_EN.get(p, _ORDINALS_EN.get(p, 0)) for p in parts)
    return f"{month} {day}"


def _said_dates(text: str) -> str:
    """Days and weekdays said in words or cut short as written in full: "October fourteenth" October
    14, "Fri" Friday, "0700–1500" 7:00–15:00."""
    text = _MONTH_ORDINAL.sub(_month_ordinal, text)
    text = _WEEKDAY_SHORT.sub(lambda m: next(d for d in WEEKDAYS if d.startswith(m.group(1).casefold()[:3])).capitalize(), text)
    return _HOURS_SPAN.sub(_hours_span, text)


def _hours_span(m: re.Match[str]) -> str:
    hours = (m.group(1), m.group(4))
    if not any(h[0] == "0" or int(h) > 12 for h in hours) or all(_YEAR.fullmatch(h + "00") for h in hours):
        return m.group()  # "1015-1120" may be rooms, "2000-2010" is a span of years: a clock has 0700 or 1500
    return f"{int(m.group(1))}:{m.group(2)} to {int(m.group(4))}:{m.group(5)}"  # "15:00-17:00" reads as a date


_METRES = re.compile(r"(?<![\d.])(\d+)\s?(?:米|(?i:met(?:er|re)s?)\b)")
# The end of a span of days in one month is in that month too ("4月5日到8日" ends on 4月8日).
_ZH_DAY_SPAN = re.compile(r"(\d{1,2})月(\d{1,2})日(\s*(?:到|至|-|~|—)\s*)(\d{1,2})[日号]")


# A magnitude word after digits is part of the number ("50万" 500000, "1.5亿", "5 grand" $5000 is
# English for thousands of money); 兆 after a number is mega ("500兆" 500M, as the unit is written in
# Latin letters), and 百兆 / 千兆 a hundred / a thousand of it.
_ZH_MAGNITUDE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s?(万|亿)")
_ZH_MAGNITUDES = {"万": 10_000, "亿": 100_000_000}
_GRAND = re.compile(rf"(?i)(?<![\d.])([$€£]?\d+(?:\.\d+)?|\b(?:{'|'.join(list(_NUMBER_WORDS)[1:])}))\s+grand\b")
_MEGA_ZH = re.compile(r"(?<![\d.])(\d+)\s?兆(?!元|赫)|(?<![\d一二两三四五六七八九十百千])([百千])兆(?!元|赫)")


def _magnitudes(text: str) -> str:
    """Numbers with their magnitude word as digits (`_ZH_MAGNITUDE`, `_GRAND`, `_MEGA_ZH`)."""
    text = _ZH_MAGNITUDE.sub(lambda m: _canon_number(f"{float(m.group(1)) * _ZH_MAGNITUDES[m.group(2)]:.2f}"), text)
    text = _GRAND.sub(lambda m: f"{_NUMBER_WORDS.get(m.group(1).casefold(), m.group(1))}k", text)
    return _MEGA_ZH.sub(lambda m: f"{m.group(1) or ('100' if m.group(2) == '百' else '1000')}M ", text)


def _weights(text: str) -> str:
    """Weights written in kilograms (`_POUNDS`, `_JIN`), a Chinese height said short in cm, and
    distances of a thousand metres or more in km ("五千米" 5 km)."""
    text = _pounds(text)
    text = _JIN.sub(lambda m: f"{(float(m.group(1)) * 10 + _digit_of(m.group(2) or '0')) / 20:g}公斤", text)
    text = _METRE_SHORT.sub(lambda m: f"{m.group(1)}{_digit_of(m.group(2))}{_digit_of(m.group(3) or '0')}cm", text)
    return _METRES.sub(lambda m: f"{int(m.group(1)) / 1000:g} km" if int(m.group(1)) >= 1000 else m.group(), text)


def _pounds(text: str) -> str:
    """Pounds of weight in kg (never money: "paid 30 pounds"); read again once number words are digits
    ("thirty pounds" is a weight as "30 pounds" is, not £30)."""
    return text if _MONEY_WORDS.search(text) else _POUNDS.sub(lambda m: _kilograms(float(m.group(1)), text), text)


def _kilograms(pounds: float, text: str) -> str:
    """Pounds in kg: whole kilograms for a weight said roughly ("about 168 pounds" 76 kg), else to a
    tenth, so that 180 and 181 lbs stay two weights."""
    kg = pounds * 0.45359237
    return f"{round(kg)} kg" if _ROUGHLY.search(text) else f"{round(kg, 1):g} kg"


def _digit_of(ch: str) -> int:
    return int(ch) if ch.isdigit() else _ZH_DIGITS[ch]


def plain_addresses(text: str) -> str:
    """An obfuscated email address written as one ("adam [at] reyes [dot] dev" adam@reyes.dev)."""
    mail = bool(_MAIL_WORDS.search(text))
    text = _SAID_AT.sub(lambda m: f"{m.group(1)}@{m.group(2)}" if mail or re.search(r"[\d._+-]", m.group(1))
                        else m.group(), text)
    if not _HIDDEN_AT.search(text):
        return text
    return _HIDDEN_DOT.sub(".", _HIDDEN_AT.sub("@", text))


def _said_numbers(text: str) -> str:
    """Numbers said in words as digits: digit by digit, spelled past twelve, with a decimal point."""
    text = _SPOKEN_DIGITS.sub(_spoken_digits, text)
    text = _SPELLED_EN.sub(_spelled_value, text)
    text = _POINT_EN.sub(lambda m: f"{_digit(m.group(1))}.{''.join(map(_digit, m.group(2).split()))}", text)
    return _SHORT_YEAR.sub(_short_year, text)


def canonical_values(text: str) -> str:
    """The text with its values written one way: Chinese numerals as digits ("一月十号" 1月10日),
    clock times on 24 hours ("7pm", "下午两点", "half past nine" 19:00 / 14:00 / 9:30), shares with a
    sign ("6.4 percent" 6.4%), currency words as signs ("17.99 dollars"
    $17.99), digit groups of one number joined ("139 1122 3344"), Chinese weekdays as English ones
    (这周三 "this wednesday", 下周三 "next wednesday")."""
    said, text = text, _magnitudes(_zh_numerals(text))
    text = re.sub(r"(\d{1,2}月\d{1,2})号", r"\1日", text)
    text = _ZH_DAY_SPAN.sub(lambda m: f"{m.group(1)}月{m.group(2)}日{m.group(3)}{m.group(1)}月{m.group(4)}日", text)
    text = _CLOCK_EN.sub(_clock_en, _spoken_clock(_pounds(_said_numbers(_said_dates(plain_addresses(_weights(text)))))))
    text = _durations(_evening_clock(text, said))
    text = _CLOCK_ZH.sub(_clock_zh, text)
    text = _DIGITAL_CLOCK_ZH.sub(lambda m: _day_clock(m.group(1), int(m.group(2)), int(m.group(3))), text)
    text = _CURRENCY_AFTER.sub(lambda m: _CURRENCY_SIGN[m.group(2).lower().rstrip("s")] + m.group(1), text)
    text = _CENTS_EN.sub(lambda m: f"{m.group(1)}.{int(m.group(2)):02d}", _PERCENT_EN.sub(r"\1%", text))
    text = _DIGIT_GROUPS.sub(_joined_groups, _AREA_CODE.sub(_area_code, text))
    text = _STREET.sub(_street_short, text)
    text = _ZH_WEEK_OF.sub(lambda m: f" {_WEEK_OF[m.group(1)]} {_zh_weekday(m.group(2))} ", text)
    return _ZH_WEEKDAY.sub(lambda m: f" {_zh_weekday(m.group(1))} ", text)


def _zh_weekday(day: str) -> str:
    return WEEKDAYS["一二三四五六日天".index(day) % 7]


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def values_of(text: str) -> Values:
    """Every value `text` names, each kind read once (an identifier's digits are not also a number),
    its values written one way first (`canonical_values`)."""
    text = canonical_values(text)
    addresses = [m.casefold() for m in emails(text)]  # an address is a value ("my email is ..."), not a number
    text = without_emails(text)
    ids = identifiers(_DIGIT_WORD.sub(lambda m: m.group().upper(), text))  # "inv-2024-072" is INV-2024-072
    id_phrases = [m for m in _ID_PHRASE.findall(text) if m.upper().replace("#", "") in ids]
    date_phrases = [phrase for phrase, _ in absolute_dates(text)]
    rest = _without(text, [*id_phrases, *date_phrases])
    return Values(identifiers=frozenset(ids), numbers=frozenset(_numbers(_without(rest, list(ids)))),
                  dates=frozenset(_dates(text)),
                  names=frozenset(n.casefold() for n in _names(rest) if n.rstrip("s") not in _CALENDAR_WORDS) | set(addresses),
                  relations=frozenset(relations(text)), negated=_negated(text))


_KINDS = ("identifiers", "numbers", "dates", "names")
DIFFERENT_PEOPLE = "different people"  # the reason's head when the texts speak of other relations


def lower_words(*texts: str) -> set[str]:
    """The words the texts write in lower case (a capitalised word also written so is no name)."""
    return set(re.findall(r"\b[a-z][a-z'-]+\b", " ".join(texts)))


# A part of the day said anywhere in a text: its clock times are not on twelve hours alone.
_DAY_PART = re.compile(r"(?i)\b(?:mornings?|afternoons?|evenings?|nights?|noon|midnight|tonight)\b|\b[ap]\.m\."
                       r"|\d\s*[ap]\.?m\b|上午|早上|早晨|清晨|中午|下午|傍晚|晚上|夜里|凌晨")
_HALF_DAY_CLOCK = re.compile(r"([1-9]|1[01]):(\d\d)")


def read_alike(va: Values, vb: Values, a: str, b: str) -> tuple[Values, Values]:
    """Both texts' values, each read as the other's where its own text leaves it open: a clock time
    on twelve hours with no part of the day said ("十点半睡觉", "bed at 9:30") is the one the other
    text says twelve hours later ("22:30上床"), the same time told by what is done at it. A text
    that says the morning or the evening keeps its time. An amount with no currency in a text that
    speaks of money ("月薪一万五", "rent is 1850") is the one the other says with its sign ("¥15000")."""
    va, vb = _after_noon(va, vb, a), _after_noon(vb, va, b)
    return _with_sign(va, vb, a), _with_sign(vb, va, b)


def _after_noon(v: Values, other: Values, text: str) -> Values:
    if _DAY_PART.search(text):
        return v
    later = {x: f"{int(m.group(1)) + 12}:{m.group(2)}" for x in v.numbers if (m := _HALF_DAY_CLOCK.fullmatch(x))}
    moved = {x: y for x, y in later.items() if y in other.numbers and x not in other.numbers}
    return replace(v, numbers=frozenset(moved.get(x, x) for x in v.numbers)) if moved else v


# Words of money in Chinese (English: `_MONEY_WORDS`): pay, rent, a fee, a price, a loan.
_MONEY_WORDS_ZH = re.compile(r"薪|工资|收入|租金|房租|月租|费|价|花了|付了|预算|贷款|存款|多少钱")


def _with_sign(v: Values, other: Values, text: str) -> Values:
    if not (_MONEY_WORDS.search(text) or _MONEY_WORDS_ZH.search(text)):
        return v
    signed = {x[1:]: x for x in other.numbers if x[:1] in "$€£¥" and x[1:] not in other.numbers}
    moved = {x: signed[x] for x in v.numbers if x in signed}
    return replace(v, numbers=frozenset(moved.get(x, x) for x in v.numbers)) if moved else v


def distinct_reason(a: str, b: str) -> str | None:
    """Why two texts state different facts, or None: each names a value of one kind the other does
    not (INV-2024-001 / INV-2024-002, 3 April / 5 April, Lisbon / Porto), they speak of different
    relations ("my sister" / "my brother", "Alice" / "her mother"), or one negates. A value only one
    of them adds is a detail ("paid" / "paid on 3 April"): a merge may fold the poorer text into the
    richer one, which keeps it (`covers`); a capitalised word the texts also write in lower case is
    the first word of a sentence, not a name."""
    va, vb = read_alike(values_of(a), values_of(b), a, b)
    lower = lower_words(a, b)
    for kind in _KINDS:
        left, right = getattr(va, kind), getattr(vb, kind)
        if kind == "names":
            left, right = left - lower, right - lower
        if left - right and right - left:
            return f"different {kind}: {', '.join(sorted(left - right))} / {', '.join(sorted(right - left))}"
    if va.relations != vb.relations:
        return f"{DIFFERENT_PEOPLE}: {', '.join(sorted(va.relations)) or '-'} / {', '.join(sorted(vb.relations)) or '-'}"
    if va.negated != vb.negated and flips_polarity(a, b):
        return "one says not, the other does"  # a "no sugar" added after the statement is a detail
    return None


def covers(text: str, others: list[str]) -> bool:
    """True when `text` names every value of each of `others` (merged into it, they lose none)."""
    kept = values_of(text)
    kept = replace(kept, names=kept.names | lower_words(text))  # "alice is vegetarian" keeps Alice
    return all(kept.covers(values_of(other)) for other in others)


def keeps_values(summary: str, members: list[str]) -> bool:
    """True when a summary names every value of every member (what a merge must never drop)."""
    return covers(summary, members)
