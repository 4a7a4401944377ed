"""The values a statement writes, with where: dates, amounts of money, quantities, numbers, flight
numbers, countries and places (from the lexicon). Typing rules (policy/infer.py) pick fields from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from memctl.core.recognisers import Lexicon
from memctl.core.textdates import read_dates

_AMOUNT = r"(?:\d{1,3}(?:,\d{3})+|\d++)(?:\.\d++)?"
# An amount that opens a match is read from its digit run's start (or where its thousands start): from
# every digit of a long run, each start read the rest of it (quadratic); a later start reads no more.
_RUN_START = r"(?:(?<!\d)|(?=\d{1,3},\d{3}))"
_CODES = "USD|EUR|GBP|CHF|JPY|CNY|RMB|CAD|AUD|HKD|SGD|INR|KRW|SEK|NOK|DKK|NZD|TWD|THB|MXN|BRL"
_SYMBOLS = {"US$": "USD", "$": "USD", "£": "GBP", "€": "EUR", "₹": "INR", "₩": "KRW"}
_WORDS = {"dollar": "USD", "dollars": "USD", "bucks": "USD", "euro": "EUR", "euros": "EUR", "pound": "GBP",
          "pounds": "GBP", "francs": "CHF", "yen": "JPY", "yuan": "CNY", "rmb": "CNY", "元": "CNY", "块": "CNY",
          "块钱": "CNY", "人民币": "CNY", "美元": "USD", "欧元": "EUR", "英镑": "GBP", "日元": "JPY", "港币": "HKD"}
_MONEY = re.compile(
    rf"(?P<sym>US\$|\$|£|€|¥|￥|₹|₩)\s?(?P<a1>{_AMOUNT})"
    rf"|(?<![A-Za-z])(?P<c1>{_CODES})\s?(?P<a2>{_AMOUNT})"
    rf"|{_RUN_START}(?P<a3>{_AMOUNT})\s?(?:(?P<c2>{_CODES})(?![A-Za-z])|(?P<w>dollars?|bucks|euros?|pounds?|francs|yen|yuan|"
    r"块钱|元|块|人民币|美元|欧元|英镑|日元|港币)(?![A-Za-z]))", re.IGNORECASE)
_UNITS = {"mg": "mg", "milligrams": "mg", "mcg": "mcg", "µg": "mcg", "μg": "mcg", "g": "g", "ml": "ml",
          "iu": "IU", "units": "IU", "unit": "IU", "km": "km", "kilometers": "km", "kilometres": "km", "miles": "mi",
          "mi": "mi", "毫克": "mg", "微克": "mcg", "克": "g", "毫升": "ml", "个单位": "IU", "单位": "IU",
          "公里": "km", "千米": "km"}
_QUANTITY = re.compile(
    r"(?<!\d)(?P<wan>\d++(?:\.\d++)?)\s?万(?:\s?(?P<qian>\d)\s?千)?\s?(?P<u1>公里|千米|km)"
    rf"|{_RUN_START}(?P<a>{_AMOUNT})\s?(?P<u2>milligrams|kilometers|kilometres|miles|units?|mcg|µg|μg|mg|ml|iu|km|mi|g"
    r"|毫克|微克|毫升|个单位|单位|公里|千米|克)(?![A-Za-z])", re.IGNORECASE)
_FLIGHT = re.compile(r"(?<![A-Za-z0-9])(?P<f>[A-Z]{2}|[A-Z]\d|\d[A-Z])\s?(?P<n>\d{2,4})(?![0-9A-Za-z])")
_NUMBER = re.compile(r"(?<![\w.])\d{1,6}(?![\w.]|,\d)")
_HAN = re.compile(r"[\u4e00-\u9fff]")


@dataclass(frozen=True)
class Spot:
    """One value in a text: its type (date, money, quantity, number, flight, country, place), where,
    its canonical value, and for a place its country (for a date: "end" when it closes a range)."""

    type: str
    start: int
    end: int
    value: str
    extra: str = ""


def _decimal(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def _plain(amount: Decimal) -> str:
    return format(amount.normalize(), "f") if amount == amount.to_integral_value() else format(amount, "f")


def _money(text: str) -> list[Spot]:
    out = []
    for m in _MONEY.finditer(text):
        g = m.groupdict()
        amount = _decimal(g["a1"] or g["a2"] or g["a3"] or "")
        if g["sym"]:
            code = "CNY" if g["sym"] in "¥￥" and _HAN.search(text) else "JPY" if g["sym"] in "¥￥" else _SYMBOLS[g["sym"]]
        else:
            code = (g["c1"] or g["c2"] or "").upper() or _WORDS.get((g["w"] or "").lower(), "")
        code = "CNY" if code == "RMB" else code
        if amount is not None and code:
            out.append(Spot("money", m.start(), m.end(), f"{_plain(amount)} {code}"))
    return out


def _quantities(text: str) -> list[Spot]:
    out = []
    for m in _QUANTITY.finditer(text):
        if m.group("wan"):
            amount = _decimal(m.group("wan"))
            amount = amount * 10000 + int(m.group("qian") or 0) * 1000 if amount is not None else None
            unit = "km"
        else:
            amount, unit = _decimal(m.group("a")), _UNITS[m.group("u2").lower()]
        if amount is not None:
            out.append(Spot("quantity", m.start(), m.end(), f"{_plain(amount)} {unit}"))
    return out


def _named(text: str, lexicon: Lexicon, section: str, kind: str) -> list[Spot]:
    pattern, codes = lexicon.names(section)
    if pattern is None:
        return []
    out = []
    for m in pattern.finditer(text):
        code = codes.get(m.group(0).casefold())
        if code:
            out.append(Spot(kind, m.start(), m.end(), m.group(0) if kind == "place" else code, code))
    return out


def _outside(spots: list[Spot], taken: list[Spot]) -> list[Spot]:
    return [s for s in spots if not any(t.start < s.end and s.start < t.end for t in taken)]


def spot_names(text: str, lexicon: Lexicon) -> list[Spot]:
    """The countries and places `text` names (a pattern over thousands of names: asked for only when
    a rule needs one)."""
    return _named(text, lexicon, "countries", "country") + _named(text, lexicon, "places", "place")


def spot_values(text: str, today: date, lexicon: Lexicon, names: bool = True) -> list[Spot]:
    """Every value `text` writes, in order of where it starts (countries and places only with `names`)."""
    dates = [Spot("date", d.start, d.end, d.day.isoformat(), "end" if d.range_end else "")
             for d in read_dates(text, today)]
    spans = _date_spans(dates)
    money = _outside(_money(text), spans)
    quantities = _outside(_quantities(text), spans + money)
    taken = spans + money + quantities
    flights = _outside([Spot("flight", m.start(), m.end(), f"{m.group('f')}{' ' if ' ' in m.group(0) else ''}{m.group('n')}")
                        for m in _FLIGHT.finditer(text)], taken)
    numbers = _outside([Spot("number", m.start(), m.end(), m.group(0)) for m in _NUMBER.finditer(text)],
                       taken + flights)
    named = spot_names(text, lexicon) if names else []
    return sorted(dates + money + quantities + flights + numbers + named, key=lambda s: (s.start, s.type))


def _date_spans(dates: list[Spot]) -> list[Spot]:
    return [Spot("span", d.start, d.end, "") for d in dates]
