"""Recognisers: the words that tell a plain statement is a typed fact, and where its fields are.

A recogniser is data (a TOML table), never code: lists of words and a few switches per field,
validated here with bounds on every list and string, and compiled into regular expressions made
only of escaped literals (a `*` at the end of a word matches its endings). A shared folder's
recognisers can therefore be wrong, but not run anything, and not make matching slow.

    [passport]
    cues = ["passport", "护照"]              # one of these must be in the text
    unless = ["lost", "丢"]                  # none of these may be
    [passport.fields]
    expires = { after = ["expires", "valid until"], before = ["到期"] }
    country = { near_cue = true }

Lexicons (`[lexicon.countries]`, `[lexicon.places]`, `[lexicon.NAME] words = [...]`) name the
countries, places and other words rules refer to: `"@drugs"` in a list stands for a lexicon's words.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from memctl.core.text import CJK_RANGES

MAX_WORDS = 400  # words in one list
MAX_WORD = 60  # characters in one word or phrase
MAX_LEXICON = 5000  # entries in one lexicon table
MAX_NAMES = 20_000  # names of countries or of places, every file's together
HEAD_REACH = 40  # `*statin` reads this many letters before the stem at most: a run of 2,000 letters is not
# tried from each of its places to its end (0.9 s a statement), and a word that long is no word
GROUPED = 200  # a word list this long is matched by its first characters first (_alternation)
RESERVED = ("all", "lexicon")
_WORD_CHAR = re.compile(r"\w", re.UNICODE)
_CJK = re.compile(f"[{CJK_RANGES}]")
_ASCII_FOLDS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u212a": "k", "\u017f": "s"})
Words = list[str]


def _check_words(value: Any) -> list[str]:
    if not isinstance(value, list) or len(value) > MAX_WORDS:
        raise ValueError(f"a list of at most {MAX_WORDS} words")
    for word in value:
        if not isinstance(word, str) or not word.strip() or len(word) > MAX_WORD or "\n" in word:
            raise ValueError(f"each word is text of 1-{MAX_WORD} characters on one line, got {str(word)[:40]!r}")
    return [w.strip() if w.strip() else w for w in value]


class FieldRule(BaseModel):
    """Where one field's value is in a statement (policy/infer.py reads them)."""

    model_config = ConfigDict(extra="forbid")

    after: Words = Field(default_factory=list)  # the value follows one of these
    before: Words = Field(default_factory=list)  # the value comes right before one of these
    near_cue: bool = False  # the value is next to the word that named the kind ("US passport")
    nth: int | None = Field(None, ge=0, le=9)  # else the nth value of its type (0: the first)
    any: bool = False  # else the first value of its type not taken by another field
    range_end: bool = False  # a date: the second day of a written range ("3-7 June")
    named: bool = False  # a country: any country the text names (not the one it leaves from)
    lexicon: str | None = None  # text: a word of this lexicon
    spot: str | None = None  # text: a value the text writes of this type (place, flight), by the anchors
    units: Words = Field(default_factory=list)  # quantity: only these units
    when: Words = Field(default_factory=list)  # bool: true when one of these is in the text
    abroad: bool = False  # bool: true when the text names places in two countries, or one abroad
    clause: bool = False  # text: the clause the date is in, less the date and the words around it
    with_cue: bool = False  # text: the words before the cue, ending with it ("apartment lease")
    capitalised: bool = False  # text in English: only capitalised words (a name, a place)
    words: int = Field(4, ge=1, le=12)  # text: at most this many words (Latin) ...
    chars: int = Field(10, ge=1, le=30)  # ... or characters (Chinese)

    @field_validator("after", "before", "units", "when", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> list[str]:
        return _check_words(value)


class Recogniser(BaseModel):
    """The words that say a statement is of one kind, and the rules that read its fields."""

    model_config = ConfigDict(extra="forbid")

    name: str
    kind: str
    cues: Words
    cue_values: list[str] = Field(default_factory=list)  # a value of one of these types counts as a cue (flight)
    unless: Words = Field(default_factory=list)
    needs_one_of: list[str] = Field(default_factory=list)  # at least one of these fields must be read
    priority: int = Field(50, ge=-100, le=100)  # when two kinds fit, the higher wins (shipped: 10-30)
    enabled: bool = True
    fields: dict[str, FieldRule] = Field(default_factory=dict)

    @field_validator("cues", "unless", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> list[str]:
        return _check_words(value)


class Common(BaseModel):
    """`[all]`: what no kind is read from (a question, a wish), and the words a field's text stops at."""

    model_config = ConfigDict(extra="forbid")

    unless: Words = Field(default_factory=list)
    stop: Words = Field(default_factory=list)

    @field_validator("unless", "stop", mode="before")
    @classmethod
    def _lists(cls, value: Any) -> list[str]:
        return _check_words(value)


class Lexicon(BaseModel):
    """Countries (code -> names), places (country code -> names), word lists, and stop words."""

    countries: dict[str, list[str]] = Field(default_factory=dict)
    places: dict[str, list[str]] = Field(default_factory=dict)
    lists: dict[str, list[str]] = Field(default_factory=dict)  # "@name" in a rule
    home: dict[str, str] = Field(default_factory=dict)  # script -> the country a text in it is written from
    _compiled: dict[str, tuple[re.Pattern[str] | None, dict[str, str]]] = PrivateAttr(default_factory=dict)
    _expanded: dict[tuple[str, ...], list[str]] = PrivateAttr(default_factory=dict)

    def names(self, section: str) -> tuple[re.Pattern[str] | None, dict[str, str]]:
        """One pattern over every name of `countries` or `places`, and each (folded) name's code;
        compiled once per lexicon (a lexicon is not changed once read)."""
        if section not in self._compiled:
            table = self.countries if section == "countries" else self.places
            codes = {name.casefold(): code for code, names in sorted(table.items()) for name in names}
            self._compiled[section] = (word_pattern([n for names in table.values() for n in names]), codes)
        return self._compiled[section]


def parse_recogniser(name: str, raw: Any) -> Recogniser:
    """One recogniser table; ValueError with a one-line reason (`fields.expires.after: ...`)."""
    if not isinstance(raw, dict):
        raise ValueError(f"a recogniser is a table of settings, got {type(raw).__name__}")
    try:
        return Recogniser.model_validate({"kind": name, **raw, "name": name})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        message = str(err["msg"]).removeprefix("Value error, ")
        raise ValueError(f"{where}: {message}" if where else message) from None


def merge_lexicon(into: Lexicon, raw: Any) -> list[str]:
    """Add a `[lexicon]` table's entries to `into` (bounded); the problems found, one line each."""
    if not isinstance(raw, dict):
        return ["lexicon: a table of tables"]
    problems: list[str] = []
    for section, table in raw.items():
        if section not in ("countries", "places", "home") and not (isinstance(table, dict) and "words" in table):
            problems.append(f"lexicon.{section}: unknown (countries, places, home, or a table with words)")
            continue
        try:
            _merge_section(into, str(section), table)
        except ValueError as exc:
            problems.append(f"lexicon.{section}: {exc}")
    return problems


def _merge_section(into: Lexicon, section: str, table: Any) -> None:
    into._expanded.clear()
    if section == "home":
        if not isinstance(table, dict) or not all(isinstance(v, str) and len(v) == 2 for v in table.values()):
            raise ValueError("home maps a script (han) to a country code")
        into.home.update({str(k): v.upper() for k, v in table.items()})
        return
    if section in ("countries", "places"):
        target = into.countries if section == "countries" else into.places
        if not isinstance(table, dict) or len(table) > MAX_LEXICON:
            raise ValueError(f"a table of country codes, at most {MAX_LEXICON}")
        merged = dict(target)
        for code, names in table.items():
            if not re.fullmatch(r"[A-Z]{2}", str(code)):
                raise ValueError(f"{code!r} is not a country code (US, JP)")
            merged[str(code)] = list(dict.fromkeys([*merged.get(str(code), []), *_check_words(names)]))
        if sum(len(v) for v in merged.values()) > MAX_NAMES:
            raise ValueError(f"more than {MAX_NAMES} names in all")
        target.update(merged)
        return
    words = _check_words(table["words"])
    into.lists[section] = list(dict.fromkeys([*into.lists.get(section, []), *words]))


def expand(words: list[str], lexicon: Lexicon) -> list[str]:
    """A word list with each `@name` replaced by that lexicon list's words (kept by the lexicon:
    rules ask for the same lists on every statement; a merge into it forgets them)."""
    key = tuple(words)
    found = lexicon._expanded.get(key)
    if found is None:
        found = lexicon._expanded[key] = [w for word in words
                                          for w in (lexicon.lists.get(word[1:], []) if word.startswith("@") else [word])]
    return found


def word_pattern(words: list[str]) -> re.Pattern[str] | None:
    """See `_word_pattern` (memoised: rules ask for the same lists on every statement)."""
    return _word_pattern(tuple(words))


def find_words(words: list[str], text: str) -> list[re.Match[str]]:
    """Every match of `word_pattern(words)` in `text`, in order; the scan is skipped when the text
    holds none of the words' letters (`_needles`), which is most lists for most statements."""
    key = tuple(words)
    needles = _needles(key)
    if needles is not None and not any(needle in _folded(text) for needle in needles):
        return []
    pattern = _word_pattern(key)
    return list(pattern.finditer(text)) if pattern is not None else []


@lru_cache(maxsize=4096)
def _needles(words: tuple[str, ...]) -> tuple[str, ...] | None:
    """What a text must contain, folded, for `_word_pattern(words)` to match in it: each word's
    letters in lower case, when every letter is ASCII or has no case (Chinese: as written); None
    (no such test) when a word has other letters, whose matches ignoring case `re` decides."""
    out = []
    for word in words:
        stem = word.strip("*") or word
        if not all(c.isascii() or c.lower() == c == c.upper() for c in stem):
            return None
        out.append(stem.lower())
    return tuple(sorted(set(out), key=len))


@lru_cache(maxsize=256)
def _folded(text: str) -> str:
    """`text` in lower case, with the four letters outside ASCII that `re` matches to an ASCII letter
    ignoring case (dotted and dotless I, the Kelvin sign, the long s) as that letter: each word of
    `_needles` that `re` could match is then a substring of it (found by trying every code point)."""
    return text.translate(_ASCII_FOLDS).lower()


@lru_cache(maxsize=4096)
def _word_pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    """One expression matching any of `words`: English as whole words, ignoring case, Chinese as
    written; a `*` at the end matches a word's endings (`expir*`), at the start its beginnings
    (`*statin`: atorvastatin). Longest first; escaped literals only. The words that start with a
    letter or digit share one `(?<!\\w)` before them, so the matcher tries them only where a word
    starts (twice as fast as each word testing it); the others (Chinese, `+1`) cannot start at the
    same place as those, so the matches are the same as one alternation's in length order."""
    parts = [_piece(word) for word in sorted(set(words), key=len, reverse=True)]
    if not parts:
        return None
    if any(first is None for first, _, _ in parts):  # a word that may start inside another: length order
        return re.compile(_alternation([(first, ("(?<!\\w)" if bounded else "") + piece)
                                        for first, piece, bounded in parts]), re.IGNORECASE)
    bounded = [(first, piece) for first, piece, at_start in parts if at_start]
    free = [(first, piece) for first, piece, at_start in parts if not at_start]
    pieces = ([f"(?<!\\w)(?:{_alternation(bounded)})"] if bounded else []) + ([_alternation(free)] if free else [])
    return re.compile("|".join(pieces), re.IGNORECASE)


def _piece(word: str) -> tuple[str | None, str, bool]:
    """A word's expression, the character it must start with (None: `*statin`, which may start
    anywhere in a word), and whether it starts only where a word does (a letter or digit first)."""
    stem = word.strip("*") or word
    head = "" if not word.startswith("*") or len(word) < 2 else (
        r"(?-i:[\u4e00-\u9fff]{1,4})" if _CJK.match(stem[0]) else rf"\w{{2,{HEAD_REACH}}}")
    tail = r"\w*" if word.endswith("*") and len(word) > 1 else ""
    latin_left = bool(_WORD_CHAR.match(stem[0])) and not _CJK.match(stem[0])
    latin_right = _WORD_CHAR.match(stem[-1]) and not _CJK.match(stem[-1])
    right = r"(?!\w)" if (not tail and latin_right) or (head and not _CJK.match(stem[-1])) else ""
    piece = head + re.escape(stem) + tail + right
    # an acronym (US, MOT, ANA) is matched as written: "us" and "ana" are other words
    wrapped = f"(?-i:{piece})" if stem.isupper() and len(stem) <= 5 else piece
    return (None if head else stem[0]), wrapped, latin_left and not head


def _alternation(parts: list[tuple[str | None, str]]) -> str:
    """The pieces as one alternation, in their order. A long list whose every piece starts with a
    known character (`first`) is split by it, `(?=[aA])(?:...)|(?=[bB])(?:...)`, so the matcher tries
    at each place only the pieces that can start there (a thousand country and place names: ~1 ms a
    statement otherwise). The matches are the same: pieces that can start at one place (their first
    characters match one another, ignoring case) share a group and keep their order in it."""
    if len(parts) < GROUPED or any(first is None for first, _ in parts):
        return "|".join(piece for _, piece in parts)
    classes = _case_classes(sorted({first for first, _ in parts if first is not None}))
    groups: dict[str, list[str]] = {}
    for first, piece in parts:
        groups.setdefault(classes[str(first)], []).append(piece)
    members: dict[str, list[str]] = {}
    for char, root in classes.items():
        members.setdefault(root, []).append(re.escape(char))
    return "|".join(f"(?=[{''.join(members[root])}])(?:{'|'.join(pieces)})" for root, pieces in groups.items())


def _case_classes(chars: list[str]) -> dict[str, str]:
    """Each character's class: characters that match one another ignoring case (as `re` does, in
    either direction) share one, by union of the pairs."""
    root = {c: c for c in chars}

    def find(c: str) -> str:
        while root[c] != c:
            c = root[c]
        return c

    by_lower: dict[str, str] = {}
    for c in chars:  # the usual case first: one lower-case form
        other = by_lower.setdefault(c.lower(), c)
        root[find(c)] = find(other)
    heads = sorted({find(c) for c in chars})
    for i, a in enumerate(heads):  # then what `re` alone equates (a dotted I, a Kelvin sign, a long s)
        for b in heads[i + 1:]:
            if find(a) != find(b) and (re.fullmatch(re.escape(a), b, re.IGNORECASE)
                                       or re.fullmatch(re.escape(b), a, re.IGNORECASE)):
                root[find(b)] = find(a)
    return {c: find(c) for c in chars}
