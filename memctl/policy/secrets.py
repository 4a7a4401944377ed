"""Find secrets and personal identifiers in memory text, so the gate can refuse or mask them.

One linear pass: the text is split into tokens once, and each token is checked against the
provider formats and the entropy test (rules in policy/secret_rules.py). Patterns that span
several tokens (card numbers in groups, IBANs, SSNs, `password is X`, PEM blocks) are matched only
inside a bounded window around a cheap trigger (a run of digits, a keyword, `-----BEGIN`), so no
rule ever scans the whole text from every position. Pure: no I/O, no dependency.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from pydantic import BaseModel

from memctl.policy.secret_rules import (
    BITCOIN,
    COMPILED_PROVIDERS,
    KIND_LABELS,
    PUBLIC_KEY_MARKERS,
    card_prefix_plausible,
    cn_resident_id_valid,
    iban_valid,
    looks_high_entropy,
    looks_random,
    luhn_valid,
    plausible_password,
    plausible_secret,
    shannon_entropy,
    spoken_password,
)

__all__ = ["KIND_LABELS", "SecretFinding", "cn_resident_id_valid", "describe_finding", "find_secrets", "iban_valid",
           "looks_high_entropy", "luhn_valid", "redact_secrets", "shannon_entropy"]


class SecretFinding(BaseModel):
    """Where a secret sits in the text and what kind it is; never the secret itself."""

    kind: str
    start: int
    end: int


class _Found(NamedTuple):
    kind: str
    start: int
    end: int


# --- tokens ---------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\s\"'`<>()\[\]{},;]+")
_PART = re.compile(r"[^:=]+")
_TRAILING = ".:!?"
MIN_PROVIDER_LEN = 20  # every provider format is at least this long
_URL_CREDENTIALS = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]*:([^\s/@]+)@")


class Token(NamedTuple):
    start: int
    text: str
    in_url: bool  # part of a URL: its path and query hold document ids, not secrets
    previous: str


def tokens(text: str) -> list[Token]:
    """The text's tokens that can hold a secret on their own: 20 characters or more, or URLs. Split at
    spaces, quotes and brackets, and inside a token at `:` and `=` unless it is a URL; each knows
    the token before it (a public key's type comes before the key)."""
    out: list[Token] = []
    previous = ""
    for match in _TOKEN.finditer(text):
        raw = match.group()
        if len(raw) >= MIN_PROVIDER_LEN or "://" in raw:
            raw = raw.rstrip(_TRAILING)
            if "://" in raw:
                out.append(Token(match.start(), raw, True, previous))
            elif ":" in raw or "=" in raw:
                out.extend(Token(match.start() + part.start(), part.group().rstrip(_TRAILING), False, previous)
                           for part in _PART.finditer(raw))
            else:
                out.append(Token(match.start(), raw, False, previous))
        previous = raw
    return out


def _provider_table() -> dict[str, list[tuple[str, re.Pattern[str]]]]:
    """First character -> the provider rules a token starting with it may match."""
    table: dict[str, list[tuple[str, re.Pattern[str]]]] = {}
    starts = {"mailchimp_key": "0123456789abcdef", "discord_token": "MN", "telegram_token": "0123456789",
              "aws_access_key": "A", "github_token": "g", "gitlab_token": "g", "square_token": "sE",
              "service_token": "ldPgsn", "stripe_key": "srw", "digitalocean_token": "d", "vault_token": "h"}
    for kind, pattern in COMPILED_PROVIDERS:
        for char in starts.get(kind, pattern.pattern[0]):
            table.setdefault(char, []).append((kind, pattern))
    return table


_PROVIDERS = _provider_table()


def _provider_findings(text: str, toks: list[Token]) -> Iterator[_Found]:
    """Tokens in a known provider format, and passwords inside URLs."""
    for tok in toks:
        if tok.in_url:
            if tok.text.startswith("https://hooks.slack.com/") and COMPILED_PROVIDERS_BY_KIND["slack_webhook"].fullmatch(tok.text):
                yield _Found("slack_webhook", tok.start, tok.start + len(tok.text))
            elif "@" in tok.text:
                yield from _url_password(tok.text, tok.start)
            continue
        if len(tok.text) < MIN_PROVIDER_LEN:
            continue
        for kind, pattern in _PROVIDERS.get(tok.text[0], ()):
            if pattern.fullmatch(tok.text) and (kind not in ("openai_key", "anthropic_key") or looks_random(tok.text)):
                yield _Found(kind, tok.start, tok.start + len(tok.text))
                break


COMPILED_PROVIDERS_BY_KIND = dict(COMPILED_PROVIDERS)


def _entropy_findings(text: str, toks: list[Token]) -> Iterator[_Found]:
    """Random-looking tokens outside URLs, public keys and cryptocurrency addresses."""
    for tok in toks:
        if tok.in_url or len(tok.text) < MIN_PROVIDER_LEN:
            continue
        core = tok.text.strip("=-_/+")
        if tok.previous.startswith(PUBLIC_KEY_MARKERS) or tok.text.startswith(PUBLIC_KEY_MARKERS) or BITCOIN.fullmatch(core):
            continue  # random-looking but published on purpose
        if len(core) >= MIN_PROVIDER_LEN and looks_high_entropy(core):
            offset = tok.start + tok.text.find(core)
            yield _Found("high_entropy", offset, offset + len(core))


def _url_password(token: str, start: int) -> Iterator[_Found]:
    match = _URL_CREDENTIALS.match(token)
    if match and plausible_password(match.group(1)):
        yield _Found("url_credentials", start + match.start(1), start + match.end(1))


# --- windows around triggers ----------------------------------------------------------------------

_CARD_RUN = re.compile(r"(?<![A-Za-z0-9])\d{2,}(?:[ -]\d{2,}){0,5}(?![A-Za-z0-9])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![0-9A-Za-z])")
_SSN = re.compile(r"(?<![0-9A-Za-z-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![0-9A-Za-z-])")
_NINO = re.compile(r"(?<![A-Za-z0-9])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])")
_SEPARATOR = re.compile(r"[ -]")
_IMEI_CONTEXT = re.compile(r"(?i)\b(?:imei|meid|serial)\b")

_VALUE = r"""\s*["'“]?(?P<value>[^\s"'”,;]+)["'”]?"""
_PASSWORD_WORDS = r"pass(?:word|wd|phrase|code)?|pwd"
_SECRET_WORDS = r"secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|private[_-]?key|auth[_-]?token"
_Rule = tuple[str, re.Pattern[str], Callable[[str], bool]]
_WINDOW_RULES: tuple[_Rule, ...] = (
    ("password", re.compile(rf"(?i)(?:{_PASSWORD_WORDS})[\"']?\s*(?::|=>?|：)" + _VALUE), plausible_password),
    ("secret", re.compile(rf"(?i)(?:{_SECRET_WORDS})[\"']?\s*(?::|=>?)" + _VALUE), plausible_secret),
    ("password", re.compile(rf"(?i)\b(?:{_PASSWORD_WORDS})\b(?:\s+(?:for|of|on)\s+(?:\S+\s+){{0,3}}?\S+)?\s+"
                            r"(?:(?:(?:is|was|has been)\s+)?(?:changed|set|reset|updated)\s+to|is now|is|was|=|now)\s+"
                            + _VALUE), spoken_password),
    ("password", re.compile(rf"(?i)\b(?:{_PASSWORD_WORDS})\s+(?P<value>(?=\S*[A-Z])(?=\S*\d)\S{{6,}})"), spoken_password),
    ("password", re.compile(r"(?:密码|口令)\s*(?:[:：=]|是|为)\s*[\"'“]?(?P<value>[A-Za-z0-9!-/:-@\[-`{-~]{4,})"),
     plausible_password),
    ("pin", re.compile(r"(?i)\bpin(?:\s*(?:code|number|no\.?))?\s*(?:is|was|:|=|of)?\s*(?P<value>\d{4,8})\b"), lambda v: True),
    ("us_ssn", re.compile(r"(?i)\b(?:ssn|social security(?: number| no\.?)?)\s*(?:is|:|#|=)?\s*"
                          r"(?P<value>(?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4})\b"), lambda v: True),
    ("bearer_token", re.compile(r"\bBearer\s+(?P<value>[A-Za-z0-9._~+/-]{16,}=*)"), lambda v: True),
    ("datadog_key", re.compile(r"(?i)(?:datadog|\bdd)[\w\s-]{0,20}?(?:api|app)[\w\s-]{0,10}?key[\"']?\s*(?::|=|is)\s*[\"']?"
                               r"(?P<value>[a-f0-9]{32}|[a-f0-9]{40})\b"), lambda v: True),
    ("twilio_key", re.compile(r"(?i)twilio[\w\s-]{0,20}?(?:auth[\w-]{0,10}?)?token[\"']?\s*(?::|=|is)\s*[\"']?"
                              r"(?P<value>[a-f0-9]{32})\b"), lambda v: True),
    ("heroku_key", re.compile(r"(?i)heroku[\w\s-]{0,20}?(?:api[\w-]{0,10}?)?key[\"']?\s*(?::|=|is)\s*[\"']?"
                              r"(?P<value>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b"), lambda v: True),
    ("azure_key", re.compile(r"AccountKey=(?P<value>[A-Za-z0-9+/]{86}==)"), lambda v: True),
)
_GROUPS: dict[str, tuple[_Rule, ...]] = {
    "password": tuple(r for r in _WINDOW_RULES if r[0] == "password"),
    "pin": tuple(r for r in _WINDOW_RULES if r[0] == "pin"),
    "ssn": tuple(r for r in _WINDOW_RULES if r[0] == "us_ssn"),
    "bearer": tuple(r for r in _WINDOW_RULES if r[0] == "bearer_token"),
    "secret": tuple(r for r in _WINDOW_RULES if r[0] in ("secret", "datadog_key", "twilio_key", "heroku_key", "azure_key")),
}
# Where the window rules look: words that introduce a secret.
_KEYWORD = re.compile(r"pass|pwd|secret|token|key|bearer|\bpin\b|ssn|social security|密码|口令")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_DIGITS = re.compile(r"\d{3,}|[A-Z]{2} ?\d{2}")
_PASSPHRASE = re.compile(r"(?i)\b(?:pass(?:word|phrase)|wi-?fi password)\s+(?:is|was)\s+(?P<value>(?:[a-z]{3,}\s+){2,7}[a-z]{3,})(?=\s*(?:[.!?]|$))")
_FUNCTION_WORDS = frozenset("""a an the in on at of to for from with by and or but not no is was are were be been my your
    our their his her its this that these those it stored kept saved written somewhere vault manager safe same
    secure here there please never always""".split())


def regions(starts: Iterator[int], before: int, after: int, size: int) -> Iterator[tuple[int, int]]:
    """Windows [start - before, start + after] around trigger positions (in increasing order),
    merged where they overlap: each rule then runs once per region, so the work stays linear."""
    lo = hi = -1
    for start in starts:
        a, b = max(0, start - before), min(size, start + after)
        if a <= hi:
            hi = max(hi, b)
            continue
        if hi > lo:
            yield lo, hi
        lo, hi = a, b
    if hi > lo:
        yield lo, hi


def _rule_group(word: str) -> str:
    """Which window rules a trigger word calls for."""
    if word.startswith(("pass", "pwd", "密", "口")):
        return "password"
    return {"pin": "pin", "ssn": "ssn", "social security": "ssn", "bearer": "bearer"}.get(word, "secret")


def _keyword_findings(text: str, toks: list[Token]) -> Iterator[_Found]:
    """`password: x`, `token=…`, `my PIN is 4832`, `SSN 123456789`, `Bearer …`, prose passphrases."""
    lowered = text.translate(_ASCII_LOWER)  # same length, so the same offsets
    by_group: dict[str, list[int]] = {}
    for trigger in _KEYWORD.finditer(lowered):
        by_group.setdefault(_rule_group(trigger.group()), []).append(trigger.start())
    for group, starts in by_group.items():
        for lo, hi in regions(iter(starts), 40, 240, len(text)):
            yield from _window_rules(text, lo, hi, _GROUPS[group])
            if group == "password":
                yield from _passphrases(text, lo, hi)


def _window_rules(text: str, lo: int, hi: int, rules: tuple[_Rule, ...]) -> Iterator[_Found]:
    for kind, pattern, keep in rules:
        for match in pattern.finditer(text, lo, hi):
            value = match.group("value").rstrip(".,")  # a sentence's full stop is not the password's
            if keep(value):
                yield _Found(kind, match.start("value"), match.start("value") + len(value))


def _passphrases(text: str, lo: int, hi: int) -> Iterator[_Found]:
    """`my wifi password is correct horse battery staple`: several plain words, none of them grammar."""
    for match in _PASSPHRASE.finditer(text, lo, hi):
        words = match.group("value").lower().split()
        if not set(words) & _FUNCTION_WORDS:
            yield _Found("password", match.start("value"), match.end("value"))


def _number_findings(text: str, toks: list[Token]) -> Iterator[_Found]:
    """IBANs, Chinese ids, SSNs and NINOs with separators, and Luhn-valid card numbers, near digits."""
    for lo, hi in regions((m.start() for m in _DIGITS.finditer(text)), 12, 72, len(text)):
        yield from _ibans(text, lo, hi)
        for pattern, kind, keep in ((_CN_ID, "cn_resident_id", cn_resident_id_valid), (_SSN, "us_ssn", None),
                                    (_NINO, "uk_nino", None)):
            for match in pattern.finditer(text, lo, hi):
                if keep is None or keep(match.group()):
                    yield _Found(kind, match.start(), match.end())
        yield from _cards(text, lo, hi)


def _ibans(text: str, lo: int, hi: int) -> Iterator[_Found]:
    for match in _IBAN.finditer(text, lo, hi):
        candidate = match.group()
        while candidate:
            if iban_valid(candidate):
                yield _Found("iban", match.start(), match.start() + len(candidate))
                break
            candidate = candidate[: max(candidate.rfind(" "), 0)]  # a trailing word such as BANK swallowed


def _cards(text: str, lo: int, hi: int) -> Iterator[_Found]:
    for match in _CARD_RUN.finditer(text, lo, hi):
        run = match.group()
        if " " in run and "-" in run:
            continue  # real card numbers use one separator; '+86 138-0013-8000' mixes them
        digits = ""
        for group in _SEPARATOR.split(run):
            digits += group
            if len(digits) > 19:
                break
            if (13 <= len(digits) <= 19 and card_prefix_plausible(digits) and luhn_valid(digits)
                    and not _is_imei(text, match.start(), digits)):
                yield _Found("card_number", match.start(), match.start() + _span_of(run, len(digits)))
                break


def _is_imei(text: str, start: int, digits: str) -> bool:
    """15 Luhn-valid digits after the word IMEI (or MEID, serial) identify a phone, not a card."""
    return len(digits) == 15 and bool(_IMEI_CONTEXT.search(text, max(0, start - 24), start))


def _span_of(run: str, digit_count: int) -> int:
    """Length of the shortest prefix of `run` that holds `digit_count` digits."""
    seen = 0
    for index, char in enumerate(run):
        seen += char.isdigit()
        if seen == digit_count:
            return index + 1
    return len(run)


_PEM_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")


def _private_keys(text: str, toks: list[Token]) -> Iterator[_Found]:
    """PEM private key blocks, from BEGIN to END (or to the end of the text when truncated)."""
    pos = text.find("-----BEGIN")
    while pos >= 0:
        begin = _PEM_BEGIN.match(text, pos)
        if begin is None:
            pos = text.find("-----BEGIN", pos + 10)
            continue
        end = _PEM_END.search(text, begin.end())
        stop = end.end() if end else len(text)
        yield _Found("private_key", begin.start(), stop)
        pos = text.find("-----BEGIN", stop)


# --- putting it together ------------------------------------------------------------------------

# Most specific first: a span claimed by an earlier finder is not reported again.
_FINDERS: tuple[Callable[[str, list[Token]], Iterator[_Found]], ...] = (
    _private_keys, _provider_findings, _number_findings, _keyword_findings, _entropy_findings)


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret or personal identifier in `text`, non-overlapping, in text order; linear time."""
    starts: list[int] = []
    chosen: list[_Found] = []
    toks = tokens(text)
    for finder in _FINDERS:
        for found in finder(text, toks):
            if found.end > found.start and not _overlaps(starts, chosen, found):
                index = bisect.bisect(starts, found.start)
                starts.insert(index, found.start)
                chosen.insert(index, found)
    return [SecretFinding(kind=f.kind, start=f.start, end=f.end) for f in chosen]


def _overlaps(starts: list[int], chosen: list[_Found], found: _Found) -> bool:
    """Whether `found` overlaps a finding already chosen (they are kept sorted by start)."""
    index = bisect.bisect(starts, found.start)
    before = chosen[index - 1] if index else None
    after = chosen[index] if index < len(chosen) else None
    return (before is not None and before.end > found.start) or (after is not None and after.start < found.end)


def redact_secrets(text: str, findings: list[SecretFinding]) -> str:
    """Replace each finding's span with `[REDACTED:<kind>]` so the rest of the memory survives."""
    parts: list[str] = []
    cursor = 0
    for finding in sorted(findings, key=lambda f: f.start):
        if finding.start < cursor:
            # Overlap: the earlier mask stands, but must also swallow the rest of this secret.
            cursor = max(cursor, finding.end)
            continue
        parts.append(text[cursor : finding.start])
        parts.append(f"[REDACTED:{finding.kind}]")
        cursor = finding.end
    parts.append(text[cursor:])
    return "".join(parts)


def mask(text: str) -> str:
    """`text` with every secret it holds replaced by `[REDACTED:<kind>]`."""
    findings = find_secrets(text)
    return redact_secrets(text, findings) if findings else text


def describe_finding(finding: SecretFinding) -> str:
    """One-line description of a finding by kind and position, never quoting the value."""
    label = KIND_LABELS.get(finding.kind, finding.kind.replace("_", " "))
    return f"looks like {label} at characters {finding.start}-{finding.end}"
