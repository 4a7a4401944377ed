"""Typed field values: dates, date ranges, numbers, numbers with units, money, country codes, booleans, text.

A memory's `fields:` mapping holds plain YAML values (`2026-04-02`, `2026-03-10..2026-03-20`,
`120.50 EUR` or `{amount: 120.5, currency: EUR}`, `30 km`, `true`, `US`). This module reads them
into values that compare and add up exactly (amounts are decimals), and writes them back in one
canonical, YAML-readable form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Union

from memctl.core.dates import RANGE_SEP, normalise_occurred
from memctl.errors import UsageError

FIELD_TYPES = ("date", "range", "number", "quantity", "money", "country", "bool", "text")
MAX_TEXT = 200
# ISO 3166-1 alpha-2, plus XK (Kosovo), which travel documents use.
COUNTRIES = frozenset("""
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO
FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE
JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO
MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW
PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM
TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW XK
""".split())
COUNTRY_ALIASES = {"UK": "GB"}
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_AMOUNT = r"[-+]?\d+(?:\.\d+)?"
_WITH_UNIT = re.compile(rf"({_AMOUNT})\s*([^\d\s.,;:{{}}()\[\]<>=!+-][^\s.,;:{{}}()\[\]<>=!+-]{{0,15}})")
_UNIT_FIRST = re.compile(rf"([A-Z]{{3}})\s*({_AMOUNT})")
_CURRENCY = re.compile(r"[A-Z]{3}")
_MONEY_AS_WRITTEN = re.compile(rf"(?:{_AMOUNT}\s*[A-Z]{{3}})|(?:[A-Z]{{3}}\s*{_AMOUNT})")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, order=True)
class DateRange:
    """From `start` to `end`, both days included (a trip, a stay)."""

    start: date
    end: date


@dataclass(frozen=True)
class Quantity:
    """A number with a unit (`30 km`, `500 mg`): only amounts of one unit compare or add up."""

    amount: Decimal
    unit: str


@dataclass(frozen=True)
class Money:
    """An amount of one currency (ISO 4217 code): `120.50 EUR`."""

    amount: Decimal
    currency: str


@dataclass(frozen=True, order=True)
class Duration:
    """A number of days (what `180 days` means, and what one date minus another is)."""

    days: int


Value = Union[date, DateRange, Decimal, Quantity, Money, bool, str, Duration]


def type_of(value: Value) -> str:
    """The field type a value has ("duration" for spans of days)."""
    if isinstance(value, bool):
        return "bool"
    for kind, cls in (("date", date), ("range", DateRange), ("number", Decimal), ("quantity", Quantity),
                      ("money", Money), ("duration", Duration)):
        if isinstance(value, cls):
            return kind
    return "text"


def _decimal(value: Any, what: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError(f"not {what}: {value!r}")
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"not {what}: {value!r}") from None
    if not number.is_finite() or abs(number) >= Decimal(10) ** 15:
        raise ValueError(f"not {what}: {value!r}")
    return number


def to_date(value: Any) -> date:
    """A day: `2026-04-02` (a YAML date or an ISO time also do)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    text = str(value).strip() if isinstance(value, str) else ""
    try:
        if _DAY.fullmatch(text):
            return date.fromisoformat(text)
        if "T" in text:
            return datetime.fromisoformat(text.replace("Z", "+00:00")).date()
    except ValueError:
        pass
    raise ValueError(f"not a date (use 2026-04-02): {value!r}")


def to_range(value: Any) -> DateRange:
    """A range of days: `2026-03-10..2026-03-20`, a month `2026-03`, or one day."""
    if isinstance(value, DateRange):
        return value
    if isinstance(value, (date, datetime)):
        day = to_date(value)
        return DateRange(day, day)
    try:
        text = normalise_occurred(value) if isinstance(value, str) else ""
    except UsageError:
        text = ""
    if not text:
        raise ValueError(f"not a date range (use 2026-03-10..2026-03-20): {value!r}")
    first, _, last = text.partition(RANGE_SEP)
    return DateRange(date.fromisoformat(first), date.fromisoformat(last or first))


def to_quantity(value: Any, unit: str | None = None) -> Quantity:
    """`30 km`, `{amount: 30, unit: km}`, or a bare number when the schema names the unit."""
    given: Any = None
    if isinstance(value, Quantity):
        amount, given = value.amount, value.unit
    elif isinstance(value, dict) and set(value) <= {"amount", "value", "unit"}:
        amount, given = _decimal(value.get("amount", value.get("value")), "a number"), value.get("unit")
    elif isinstance(value, str) and (match := _WITH_UNIT.fullmatch(value.strip())):
        amount, given = _decimal(match.group(1), "a number"), match.group(2)
    else:
        amount, given = _decimal(value, f"a number with a unit (use 30 {unit or 'km'})"), None
    given = str(given) if given is not None else unit
    if not given:
        raise ValueError(f"not a number with a unit (use 30 km): {value!r}")
    if unit and given != unit:
        raise ValueError(f"expected an amount in {unit}, got {value!r}")
    return Quantity(amount, given)


def to_money(value: Any, currency: str | None = None) -> Money:
    """`120.50 EUR`, `EUR 120.50`, `{amount: 120.5, currency: EUR}`, or a bare amount when the schema
    names the currency."""
    given: Any = None
    if isinstance(value, Money):
        amount, given = value.amount, value.currency
    elif isinstance(value, dict) and set(value) <= {"amount", "currency"}:
        amount, given = _decimal(value.get("amount"), "an amount"), value.get("currency")
    elif isinstance(value, str) and (match := _UNIT_FIRST.fullmatch(value.strip())):
        amount, given = _decimal(match.group(2), "an amount"), match.group(1)
    elif isinstance(value, str) and (match := _WITH_UNIT.fullmatch(value.strip())):
        amount, given = _decimal(match.group(1), "an amount"), match.group(2)
    else:
        amount = _decimal(value, f"an amount with a currency (use 120.50 {currency or 'EUR'})")
    given = str(given).upper() if given is not None else currency
    if not given or not _CURRENCY.fullmatch(given):
        raise ValueError(f"not an amount with a currency code (use 120.50 EUR): {value!r}")
    if currency and given != currency:
        raise ValueError(f"expected an amount in {currency}, got {value!r}")
    return Money(amount, given)


def to_country(value: Any) -> str:
    """An ISO 3166-1 alpha-2 country code (`US`, `jp` -> `JP`; `UK` -> `GB`)."""
    code = str(value).strip().upper() if isinstance(value, str) else ""
    code = COUNTRY_ALIASES.get(code, code)
    if code not in COUNTRIES:
        raise ValueError(f"not a country code (ISO 3166 alpha-2, such as US, JP, DE): {value!r}")
    return code


def to_bool(value: Any) -> bool:
    """true/false (yes/no also read)."""
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, str) else ""
    if word in ("true", "yes"):
        return True
    if word in ("false", "no"):
        return False
    raise ValueError(f"not true or false: {value!r}")


def to_text(value: Any) -> str:
    """Short text: one line of at most 200 characters (numbers are read as their digits)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"not a short text: {value!r}")
    text = str(value).strip()
    if not text or len(text) > MAX_TEXT or _CONTROL.search(text):
        raise ValueError(f"not a short text (one line, 1-{MAX_TEXT} characters): {text[:40]!r}")
    return text


def coerce(value: Any, kind: str, unit: str | None = None) -> Value:
    """`value` read as a field of type `kind` (see FIELD_TYPES); ValueError with a one-line reason."""
    if kind == "date":
        return to_date(value)
    if kind == "range":
        return to_range(value)
    if kind == "number":
        return _decimal(value, "a number")
    if kind == "quantity":
        return to_quantity(value, unit)
    if kind == "money":
        return to_money(value, unit)
    if kind == "country":
        return to_country(value)
    if kind == "bool":
        return to_bool(value)
    if kind == "text":
        return to_text(value)
    raise ValueError(f"unknown field type {kind!r} (types: {', '.join(FIELD_TYPES)})")


def infer(value: Any) -> Value:
    """A value with no schema: its type read from its shape (a day, a range, an amount with a
    currency or a unit, a number, a boolean, else text)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float, Decimal)):
        return _decimal(value, "a number")
    if isinstance(value, dict):
        return to_money(value) if "currency" in value else to_quantity(value)
    text = str(value).strip()
    readers: list[Callable[[Any], Value]] = [to_date, to_range, to_quantity]
    if _MONEY_AS_WRITTEN.fullmatch(text):  # `30 mph` is not money: a currency is written in capitals
        readers.insert(2, to_money)
    for reader in readers:
        try:
            return reader(text)
        except ValueError:
            continue
    return to_text(value)


def plain_number(amount: Decimal) -> int | float:
    """An amount as a YAML/JSON number (integral amounts as integers)."""
    return int(amount) if amount == amount.to_integral_value() else float(amount)


def canonical(value: Value) -> Any:
    """The form a value is stored in (and shown in JSON): dates and amounts as text, numbers and
    booleans as themselves."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, DateRange):
        if value.start == value.end:
            return value.start.isoformat()
        return f"{value.start.isoformat()}{RANGE_SEP}{value.end.isoformat()}"
    if isinstance(value, Decimal):
        return plain_number(value)
    if isinstance(value, Quantity):
        return f"{format(value.amount, 'f')} {value.unit}"
    if isinstance(value, Money):
        return f"{format(value.amount, 'f')} {value.currency}"
    return f"{value.days} days"


def display(value: Value) -> str:
    """A value for a message or a table: its canonical form as text."""
    shown = canonical(value)
    if isinstance(shown, bool):
        return "true" if shown else "false"
    return _CONTROL.sub("", str(shown))
