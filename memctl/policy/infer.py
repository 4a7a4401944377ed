"""Plain language to a typed fact, offline: which kind a statement is (if any), and its fields.

Pure: the recognisers (core/recognisers.py: words, parsed from TOML), the lexicon and the kinds'
schemas come in as arguments. A kind is proposed only when one of its cues is in the text, none of
its `unless` words (nor `[all] unless`: a question, a wish) is, and every required field of its
schema, plus one of `needs_one_of`, could be read; of several, the highest priority wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Iterable, Mapping

from memctl.core.recognisers import Common, FieldRule, Lexicon, Recogniser, expand, find_words, word_pattern
from memctl.core.schemas import Schema
from memctl.policy.spots import Spot, spot_names, spot_values

MAX_TEXT = 2000  # a statement, not a document: longer texts are read up to here
AFTER_REACH, BEFORE_REACH, CUE_REACH = 32, 12, 14
_PUNCT = re.compile(r"[,.;:!?()\[\]\"“”，。；：！？（）、《》【】\n]")
_LATIN_WORD = re.compile(r"[A-Za-z0-9][\w'’.-]*")
_FROM = re.compile(r"(?:\bfrom|\bout of|\bleaving|从|由)\s*$", re.IGNORECASE)
_LEADING = re.compile(r"^(?:the|my|our|his|her|their|a|an|your)\s+", re.IGNORECASE)
_HAN = re.compile(r"[\u4e00-\u9fff]")
_MEASURE = re.compile(r"(?:[一两二三四五六七八九十几\d]+|这|那|每)?[个台件部辆只张份款把条片粒颗支瓶盒](?=[\u4e00-\u9fff]{2})")
_REMINDER = re.compile(r"^(?:reminder|remember to|don't forget to|do not forget to|need to|记得|别忘了|提醒我?)[:：\s]*",
                       re.IGNORECASE)
VALUE_TYPES = {"date": "date", "range": "date", "money": "money", "quantity": "quantity", "number": "number",
               "country": "country"}


@dataclass
class Inferred:
    """A proposed kind: its fields (canonical text values, validated by the caller against the
    schema), the recogniser and the cue word that named it."""

    kind: str
    fields: dict[str, Any]
    cue: str
    recogniser: str
    priority: int = 0


@dataclass
class _Text:
    """A statement being read: its text, values, the words fields stop at, and what is taken."""

    text: str
    spots: list[Spot]
    lexicon: Lexicon
    stop: re.Pattern[str] | None
    han: bool
    taken: set[Spot] = field(default_factory=set)
    named: bool = False  # whether the countries and places are among `spots` yet

    def of_type(self, kind: str) -> list[Spot]:
        return [s for s in self.every(kind) if s not in self.taken]

    def every(self, kind: str) -> list[Spot]:
        if kind in ("country", "place") and not self.named:
            self.spots = sorted(self.spots + spot_names(self.text, self.lexicon), key=lambda s: (s.start, s.type))
            self.named = True
        return [s for s in self.spots if s.type == kind]


def _matches(words: list[str], text: str, lexicon: Lexicon) -> list[re.Match[str]]:
    return find_words(expand(words, lexicon), text)


def infer_kind(text: str, today: date, recognisers: Iterable[Recogniser], schemas: Mapping[str, Schema],
               lexicon: Lexicon, common: Common | None = None) -> Inferred | None:
    """The kind and fields `text` states, or None (see the module's doc)."""
    text = text[:MAX_TEXT]
    common = common or Common()
    if _matches(common.unless, text, lexicon):
        return None
    spots = spot_values(text, today, lexicon, names=False)
    stop = word_pattern(expand(common.stop, lexicon))
    best: Inferred | None = None
    doc = _Text(text, spots, lexicon, stop, bool(_HAN.search(text)))
    for rec in recognisers:
        schema = schemas.get(rec.kind)
        if schema is None or not rec.enabled:
            continue
        doc.taken = set()
        found = _try(rec, schema, doc)
        if found is not None and (best is None or found.priority > best.priority):
            best = found
    return best


def compile_patterns(recognisers: Iterable[Recogniser], lexicon: Lexicon, common: Common | None = None) -> None:
    """Compile every expression the rules may ask for (each is otherwise compiled on first use, which
    costs a fresh process's first statements ~0.2 s): a warm process pays it before it serves."""
    common = common or Common()
    lists = [common.unless, common.stop, *(words for words in lexicon.lists.values())]
    for rec in recognisers:
        lists += [rec.cues, rec.unless]
        for rule in rec.fields.values():
            lists += [rule.after, rule.before, rule.units, rule.when]
    for words in lists:
        word_pattern(expand(words, lexicon))
    lexicon.names("countries")
    lexicon.names("places")


def _try(rec: Recogniser, schema: Schema, doc: _Text) -> Inferred | None:
    cue = next(iter(_matches(rec.cues, doc.text, doc.lexicon)), None)
    if cue is None and rec.cue_values:  # a value that names the kind by itself: a flight number
        spot = next((s for s in doc.spots if s.type in rec.cue_values), None)
        cue = re.compile(re.escape(doc.text[spot.start:spot.end])).search(doc.text, spot.start) if spot else None
    if cue is None or _matches(rec.unless, doc.text, doc.lexicon):
        return None
    out: dict[str, Any] = {}
    order = sorted(rec.fields.items(), key=lambda item: item[0] not in schema.fields or not schema.fields[item[0]].required)
    for name, rule in order:
        spec = schema.fields.get(name)
        if spec is None:
            continue
        value = _read(rule, spec.type, doc, cue)
        if value is not None:
            out[name] = value
        elif spec.required:  # the required come first: the kind is not stated, read no further
            return None
    missing = [n for n, s in schema.fields.items() if s.required and n not in out]
    if missing or (rec.needs_one_of and not any(n in out for n in rec.needs_one_of)):
        return None
    ordered = {n: out[n] for n in schema.fields if n in out}
    return Inferred(rec.kind, ordered, cue.group(0), rec.name, rec.priority)


def _read(rule: FieldRule, type_: str, doc: _Text, cue: re.Match[str]) -> Any:
    if type_ == "bool":
        return _boolean(rule, doc)
    if type_ == "text":
        return _text_value(rule, doc, cue)
    kind = VALUE_TYPES.get(type_)
    if kind is None:
        return None
    spot = _pick(rule, kind, doc, cue)
    if spot is None:
        return None
    doc.taken.add(spot)
    return spot.value


def _pick(rule: FieldRule, kind: str, doc: _Text, cue: re.Match[str]) -> Spot | None:
    """The value of a field with a type: next to an anchor, else by position (see FieldRule)."""
    values = doc.of_type(kind)
    if rule.units:
        values = [v for v in values if v.value.split()[-1] in rule.units]
    if not values:
        return None
    for anchor in _matches(rule.after, doc.text, doc.lexicon):
        ahead = [v for v in values if anchor.end() <= v.start <= anchor.end() + AFTER_REACH]
        if ahead:
            return ahead[0]
    for anchor in _matches(rule.before, doc.text, doc.lexicon):
        behind = [v for v in values if anchor.start() - BEFORE_REACH <= v.end <= anchor.start()]
        if behind:
            return behind[-1]
    if rule.near_cue:
        near = [v for v in values if cue.start() - CUE_REACH <= v.start and v.end <= cue.end() + CUE_REACH]
        if near:
            return near[0]
    if rule.range_end:
        ends = [v for v in values if v.extra == "end"]
        if ends:
            return ends[0]
    if rule.named:
        named = [v for v in values if not _FROM.search(doc.text[max(0, v.start - 10):v.start])]
        if named:
            return named[0]
    if rule.nth is not None:
        everything = doc.every(kind)
        chosen = everything[rule.nth] if rule.nth < len(everything) else None
        return chosen if chosen is not None and chosen in values else None
    return values[0] if rule.any else None


def _boolean(rule: FieldRule, doc: _Text) -> bool | None:
    if _matches(rule.when, doc.text, doc.lexicon):
        return True
    if rule.abroad:
        return True if _abroad(doc) else None
    return None


def _abroad(doc: _Text) -> bool:
    """Places in two countries (from Boston to Lisbon), or, in a text whose script has a home
    country (Chinese: CN), a place or country outside it."""
    countries = {s.extra for s in doc.every("place") + doc.every("country") if s.extra}
    if len(countries) > 1:
        return True
    home = doc.lexicon.home.get("han") if doc.han else None
    return bool(home and countries and home not in countries)


def _text_value(rule: FieldRule, doc: _Text, cue: re.Match[str]) -> str | None:
    """A text field: a lexicon word, the phrase after or before an anchor, the words ending with
    the cue, or the clause of the statement (see FieldRule)."""
    if rule.spot:
        spot = _pick(rule, rule.spot, doc, cue)
        if spot is not None:
            doc.taken.add(spot)
            return spot.value
    if rule.lexicon:
        found = _lexicon_word(rule.lexicon, doc)
        if found:
            return found
    for words, read in ((rule.after, lambda a: _phrase_after(doc, a.end(), rule)),
                        (rule.before, lambda a: _phrase_before(doc, a.start(), rule))):
        for anchor in _matches(words, doc.text, doc.lexicon):
            phrase = None if rule.near_cue and not _close(anchor, cue) else read(anchor)
            if phrase:
                return phrase
    if rule.with_cue:
        head = _phrase_before(doc, cue.start(), rule)
        return _clean(f"{head}{'' if doc.han else ' '}{cue.group(0)}" if head else cue.group(0))
    if rule.clause:
        return _clause(doc, rule)
    return None


def _close(anchor: re.Match[str], cue: re.Match[str]) -> bool:
    return abs(anchor.start() - cue.start()) <= CUE_REACH + 6


def _lexicon_word(name: str, doc: _Text) -> str | None:
    for found in _matches(doc.lexicon.lists.get(name, []), doc.text, doc.lexicon):
        word = found.group(0)
        if doc.han and doc.stop is not None and _HAN.match(word):  # 上吃氨氯地平: the name starts after the verb
            cuts = [m.end() for m in doc.stop.finditer(word[:-2])]
            word = word[cuts[-1]:] if cuts else word
        return word
    return None


def _blocked(doc: _Text, start: int, end: int) -> bool:
    return any(s.start < end and start < s.end for s in doc.spots if s.type in ("date", "money", "quantity", "flight"))


def _phrase_after(doc: _Text, start: int, rule: FieldRule) -> str | None:
    i = start
    while i < len(doc.text) and doc.text[i].isspace():
        i += 1
    if doc.han and _HAN.match(doc.text[i:i + 1]):
        measure = _MEASURE.match(doc.text, i)  # 吃一片优甲乐: the name after the count
        return _han_run(doc, measure.end() if measure else i, rule.chars, forward=True)
    words: list[str] = []
    pos = i
    for token in _LATIN_WORD.finditer(doc.text, i):
        if _PUNCT.search(doc.text[pos:token.start()]) or len(words) >= rule.words:
            break
        word = token.group(0).rstrip(".")
        if _blocked(doc, token.start(), token.end()):
            break
        if not words and _LEADING.match(word + " "):
            pos = token.end()
            continue
        if _is_stop(doc, word) or (rule.capitalised and not (word[0].isupper() or word[0].isdigit())):
            break
        words.append(word)
        pos = token.end()
    return _clean(" ".join(words)) if words else None


def _phrase_before(doc: _Text, end: int, rule: FieldRule) -> str | None:
    head = doc.text[:end]
    while True:  # a date (or an amount) between the phrase and the anchor is skipped: 健身房年卡2026年8月31日到期
        stripped = head.rstrip()
        spot = next((s for s in doc.spots if s.type in ("date", "money") and s.end == len(stripped)), None)
        if spot is None:
            break
        head = doc.text[:spot.start]
        if doc.han and doc.stop is not None:  # 小王是1995年7月12日出生: the name is before 是
            while head and _ends_with_stop(doc, head) and (m := _last_stop(doc, head)) is not None:
                head = head[:m]
    stripped = head.rstrip()
    if doc.han and stripped and _HAN.match(stripped[-1]):
        return _han_run(doc, len(stripped), rule.chars, forward=False)
    tokens = list(_LATIN_WORD.finditer(stripped))
    words: list[str] = []
    last = len(stripped)
    for token in reversed(tokens):
        gap = stripped[token.end():last]
        word = token.group(0).rstrip(".")
        if _PUNCT.search(gap) or len(words) >= rule.words or _is_stop(doc, word) or _blocked(doc, token.start(), token.end()):
            break
        if rule.capitalised and not (word[0].isupper() or word[0].isdigit()):
            if words:  # "forget Aunt Carol": the name ends where the lower-case words begin
                break
            words.insert(0, word)  # "my mother", "my colleague": a role in lower case, alone
            break
        words.insert(0, word)
        last = token.start()
    return _clean(" ".join(words)) if words else None


def _han_run(doc: _Text, at: int, limit: int, forward: bool) -> str | None:
    """Chinese (and letters or digits within it) from `at`, up to a stop word, a value or punctuation."""
    out = ""
    i = at
    while len(out) < limit:
        j = i if forward else i - 1
        if j < 0 or j >= len(doc.text):
            break
        char = doc.text[j]
        if _PUNCT.match(char) or char.isspace() or _blocked(doc, j, j + 1):
            break
        piece = doc.text[j:] if forward else doc.text[:j + 1]
        if doc.stop is not None and (doc.stop.match(piece) if forward else _ends_with_stop(doc, piece)):
            break
        out = out + char if forward else char + out
        i = j + 1 if forward else j
    return _clean(out) if out else None


def _last_stop(doc: _Text, piece: str) -> int | None:
    """Where the stop word `piece` ends with starts (None: it ends with none)."""
    assert doc.stop is not None
    tail = piece[-6:]
    found = [m for m in doc.stop.finditer(tail) if m.end() == len(tail)]
    return len(piece) - len(tail) + found[-1].start() if found else None


def _ends_with_stop(doc: _Text, piece: str) -> bool:
    assert doc.stop is not None
    tail = piece[-6:]
    return any(m.end() == len(tail) for m in doc.stop.finditer(tail))


def _is_stop(doc: _Text, word: str) -> bool:
    return bool(doc.stop is not None and doc.stop.fullmatch(word))


def _clause(doc: _Text, rule: FieldRule) -> str | None:
    """The statement less its dates and the words that only say when ("by", 前) or remind."""
    dates = [s for s in doc.spots if s.type == "date"]
    if not dates:
        return None
    first = dates[0]
    starts = [0, *(m.end() for m in _PUNCT.finditer(doc.text, 0, first.start))]
    stop = _PUNCT.search(doc.text, first.end)
    tail = re.sub(r"^\s*(?:之前|以前|前|截止)", "", doc.text[first.end:stop.start() if stop else len(doc.text)])
    for begin in reversed(starts):  # the date's clause, else the one before it: "Pay the invoice, due June 30"
        head = re.sub(r"\s*(?:by|due|before|until|on|no later than)\s*$", "", doc.text[begin:first.start].strip(),
                      flags=re.IGNORECASE)
        head = _PUNCT.sub(" ", head).strip()
        text = _REMINDER.sub("", (head + (" " if head and tail.strip() and not doc.han else "") + tail.strip()).strip())
        if text.strip():
            return _clean(text)
    return None


def _clean(text: str) -> str | None:
    text = _LEADING.sub("", text.strip(" \t'\"’-—:：,，"))
    measure = _MEASURE.match(text) if len(text) > 2 else None
    text = text[measure.end():] if measure else text  # 一台相机, 这台电脑: the thing, not its count
    return text[:200] if text else None
