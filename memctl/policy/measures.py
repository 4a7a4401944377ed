"""What a number measures, by its form and the unit written after it (pure).

Two numbers are values of one attribute only when they measure one thing: "a 2019 Subaru" names
a model year and "62,000 miles" a distance, so the second is no new value of the first. A number's
kind is read from its form (an amount of money, a clock time, a share), then from the unit after
it ("miles", "kg", "mg", 公斤, 岁, a day of the month: 每月8号), then from where it stands (a year,
the number of a named model, "Mazda 3"); a number with none of these is a count. The unit lists are English and Chinese
vocabulary of measurement, not about any data set.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memctl.core.text import CJK_RANGES
from memctl.policy.distinct import canonical_values, read_numbers

COUNT = "count"
# A count said without its unit ("down to 68" after "75 kg") may be any of these measures.
MEASURES = frozenset({"distance", "weight", "dose", "duration", "age", "speed", "floor", "frequency", "temperature"})
_EN_UNITS = {
    "distance": "mile miles mi km kms kilometer kilometers kilometre kilometres meter meters metre metres feet ft "
                "foot yard yards",
    "weight": "kg kgs kilo kilos kilogram kilograms lb lbs gram grams",
    "dose": "mg mcg ml milligram milligrams milliliter milliliters millilitre millilitres tablet tablets pill pills",
    "duration": "second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks month months "
                "year years",
    "speed": "mbps gbps mph kph",
    "floor": "floor floors",
    "frequency": "times",
    "temperature": "degrees degree",
}
_EN_UNIT = {word: kind for kind, words in _EN_UNITS.items() for word in words.split()}
# Chinese units, the longest first (个月 before 月): a unit character follows the number directly.
_ZH_UNITS = (("公里", "distance"), ("千米", "distance"), ("公斤", "weight"), ("千克", "weight"), ("毫克", "dose"),
             ("毫升", "dose"), ("分钟", "duration"), ("小时", "duration"), ("个月", "duration"), ("米", "distance"),
             ("里", "distance"), ("斤", "weight"), ("克", "weight"), ("片", "dose"), ("粒", "dose"), ("天", "duration"),
             ("年", "duration"), ("岁", "age"), ("兆", "speed"), ("楼", "floor"), ("层", "floor"), ("次", "frequency"),
             ("度", "temperature"), ("号", "day"), ("日", "day"))  # 8号: a day of the month said alone
_AFTER = re.compile(rf"(?:st|nd|rd|th)?\s*(?:-\s*)?([A-Za-z]+)(?:-([A-Za-z]+))?|([{CJK_RANGES}]{{1,2}})")
_YEAR = re.compile(r"(?:19|20)\d\d")
_NAMED_BEFORE = re.compile(r"(?<![.!?:;]\s)(?<!^)(?<![A-Za-z])[A-Za-z]*[A-Z][A-Za-z]*\s*$")  # "Mazda 3", "iPhone 13", not "In 2020"
_NAME_REACH = 64  # how far before a number its name is looked for: the search stays linear in the text


def _unit(text: str, end: int) -> str | None:
    """The measure the unit after a number names ("miles", "3-year-old", 公斤), or None."""
    after = _AFTER.match(text, end)
    if after is None:
        return None
    if after.group(3):
        return next((kind for unit, kind in _ZH_UNITS if after.group(3).startswith(unit)), None)
    word, then = after.group(1).casefold(), (after.group(2) or "").casefold()
    if word in ("year", "years") and (then == "old" or text[after.end():].lstrip().casefold().startswith("old")):
        return "age"
    return _EN_UNIT.get(word)


def _kind(number: str, text: str, start: int, end: int) -> str:
    if number[:1] in "$€£¥₹":
        return "money"
    if ":" in number:
        return "clock"
    if number.endswith("%"):
        return "share"
    unit = _unit(text, end)
    if unit == "day" and not (number.isdigit() and 1 <= int(number) <= 31):
        unit = None  # 218号 numbers a thing (a parking space, a room); 8号 is a day of the month
    if unit is not None and not (unit == "duration" and _YEAR.fullmatch(number) and text[end:end + 1] == "年"):
        return unit
    if _YEAR.fullmatch(number):
        return "year"
    return "model" if _NAMED_BEFORE.search(text, max(0, start - _NAME_REACH), start) else COUNT


@lru_cache(maxsize=16384)  # a pure reading of the text: the write decision reads the same neighbours add after add
def number_kinds(text: str) -> dict[str, str]:
    """Each number a text names (written as `values_of` writes it) with what it measures: money,
    clock, share, a unit's measure (distance, weight, dose, duration, age, ...), a day of the month
    (8号), year, model or count.
    A number written twice keeps the kind of its first place."""
    plain = canonical_values(text)
    out: dict[str, str] = {}
    for number, start, end in read_numbers(plain):
        out.setdefault(number, _kind(number, plain, start, end))
    return out


def comparable(kinds: dict[str, frozenset[str]], kind: str) -> frozenset[str]:
    """The values of `kinds` (values by kind) that may be values of one attribute with a value of
    `kind`: those of that kind and, for a measure or a model's number, the counts (a unit left out:
    "weighs 75 kg" / "down to 68"; "Terminal 1" / "leaves from Terminal 3")."""
    extra = kinds.get(COUNT, frozenset()) if kind in MEASURES or kind == "model" else frozenset()
    return kinds.get(kind, frozenset()) | extra
