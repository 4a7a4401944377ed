"""Find secrets and personal identifiers in memory text, so the gate can refuse or mask them.

Hand-written regexes plus checksums (Luhn, mod-97, GB 11643) and an entropy test: no
dependency, no I/O, and every rule is tuned against a table of look-alikes that must pass
(phone numbers, order ids, commit shas, UUIDs, dates, camelCase identifiers).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator

from pydantic import BaseModel

# Human-readable description per kind, used in one-line gate messages.
KIND_LABELS: dict[str, str] = {
    "private_key": "a private key (PEM block)",
    "url_credentials": "a password inside a URL",
    "jwt": "a JSON Web Token",
    "aws_access_key": "an AWS access key id",
    "github_token": "a GitHub token",
    "anthropic_key": "an Anthropic API key",
    "openai_key": "an OpenAI API key",
    "slack_token": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "stripe_key": "a Stripe secret key",
    "google_api_key": "a Google API key",
    "iban": "an IBAN (mod-97 valid)",
    "cn_resident_id": "a Chinese resident id number (checksum valid)",
    "card_number": "a card number (Luhn-valid)",
    "us_ssn": "a US social security number",
    "uk_nino": "a UK national insurance number",
    "password": "a password",
    "secret": "a token or secret assignment",
    "bearer_token": "a bearer token",
    "high_entropy": "a high-entropy string (likely a key or token)",
}


class SecretFinding(BaseModel):
    """Where a secret sits in the text and what kind it is; never the secret itself."""

    kind: str
    start: int
    end: int


Span = tuple[int, int]
Detector = Callable[[str], Iterator[Span]]


def _regex(pattern: str, group: int = 0, flags: int = 0) -> Detector:
    """Build a detector yielding the span of `group` for every match of `pattern`."""
    compiled = re.compile(pattern, flags)

    def detect(text: str) -> Iterator[Span]:
        for match in compiled.finditer(text):
            yield match.span(group)

    return detect


def _filtered(pattern: str, keep: Callable[[str], bool], group: int = 0, flags: int = 0) -> Detector:
    """Like `_regex`, but only spans whose matched text passes `keep` (a checksum, a shape test)."""
    compiled = re.compile(pattern, flags)

    def detect(text: str) -> Iterator[Span]:
        for match in compiled.finditer(text):
            if match.group(group) and keep(match.group(group)):
                yield match.span(group)

    return detect


# --- provider token formats -------------------------------------------------------------

_NOT_ALNUM_BEFORE = r"(?<![A-Za-z0-9])"
_NOT_ALNUM_AFTER = r"(?![A-Za-z0-9])"

_PRIVATE_KEY = (
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*\Z)"
)
_URL_PASSWORD = r"(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@]+:([^\s/@]+)@"
_JWT = r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
_AWS = _NOT_ALNUM_BEFORE + r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}" + _NOT_ALNUM_AFTER
_GITHUB = _NOT_ALNUM_BEFORE + r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})" + _NOT_ALNUM_AFTER
_ANTHROPIC = _NOT_ALNUM_BEFORE + r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}"
_OPENAI = _NOT_ALNUM_BEFORE + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"
_SLACK = _NOT_ALNUM_BEFORE + r"xox[abposre]-[A-Za-z0-9-]{10,}"
_SLACK_WEBHOOK = r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"
_STRIPE = _NOT_ALNUM_BEFORE + r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _NOT_ALNUM_AFTER
_GOOGLE = _NOT_ALNUM_BEFORE + r"AIza[A-Za-z0-9_-]{35}" + r"(?![A-Za-z0-9_-])"


def _looks_random(value: str) -> bool:
    """True when a provider-prefixed tail mixes letters and digits, unlike `sk-learn-style-words`."""
    tail = value.split("-", 1)[-1]
    return any(c.isdigit() for c in tail) and any(c.isalpha() for c in tail)


# --- checksummed numbers ----------------------------------------------------------------


def luhn_valid(digits: str) -> bool:
    """Luhn check over a string of digits, the checksum every payment card carries."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def _card_prefix_plausible(digits: str) -> bool:
    """Issuer ranges in use (Amex/Diners/JCB 3, Visa 4, Mastercard 5 and 2221-2720, Discover/UnionPay 6)."""
    if digits[0] in "3456":
        return True
    return 2221 <= int(digits[:4]) <= 2720


_DIGIT_RUN = re.compile(r"(?<![A-Za-z0-9])\d+(?:[ -]\d+)*(?![A-Za-z0-9])")


def _card_candidates(run: str) -> Iterator[str]:
    """The whole digit run, then (for grouped runs) its prefixes, longest first: '4111 ... 1111 12/28'."""
    separators = set(re.findall(r"[ -]", run))
    if len(separators) > 1:
        return  # real card numbers use one separator; '+86 138-0013-8000' mixes them
    prefixes: list[str] = []
    digits = ""
    for group in re.split(r"[ -]", run):
        digits += group
        if len(digits) > 19:
            break  # longer prefixes cannot be card numbers; stopping keeps long runs linear
        prefixes.append(digits)
    yield from reversed(prefixes)


def _detect_cards(text: str) -> Iterator[Span]:
    """Luhn-valid 13-19 digit numbers with a plausible issuer prefix."""
    for match in _DIGIT_RUN.finditer(text):
        run = match.group()
        for digits in _card_candidates(run):
            if 13 <= len(digits) <= 19 and _card_prefix_plausible(digits) and luhn_valid(digits):
                yield match.start(), match.start() + _span_of_digits(run, len(digits))
                break


def _span_of_digits(run: str, digit_count: int) -> int:
    """Length of the shortest prefix of `run` that holds `digit_count` digits."""
    seen = 0
    for index, char in enumerate(run):
        seen += char.isdigit()
        if seen == digit_count:
            return index + 1
    return len(run)


# Official IBAN lengths for the countries people most often paste; others only need mod-97.
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IS": 26, "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27,
    "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "RO": 24, "SA": 24, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "TR": 26,
}
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")


def iban_valid(candidate: str) -> bool:
    """ISO 13616 check: known country length (when known) and mod-97 remainder 1."""
    iban = candidate.replace(" ", "")
    if len(iban) != _IBAN_LENGTHS.get(iban[:2], len(iban)) or not 15 <= len(iban) <= 34:
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def _detect_ibans(text: str) -> Iterator[Span]:
    """Valid IBANs, compact or in groups of four; a trailing capitalised word is trimmed off."""
    for match in _IBAN.finditer(text):
        candidate = match.group()
        while candidate:
            if iban_valid(candidate):
                yield match.start(), match.start() + len(candidate)
                break
            # The greedy groups may have swallowed a following word like 'BANK'; drop a group.
            candidate = candidate[: max(candidate.rfind(" "), 0)]


_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID = (
    r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
    r"(?![0-9A-Za-z])"
)


def cn_resident_id_valid(number: str) -> bool:
    """GB 11643-1999 check character of an 18-character resident identity number."""
    total = sum(int(digit) * weight for digit, weight in zip(number[:17], _CN_WEIGHTS))
    return "10X98765432"[total % 11] == number[17].upper()


# Area 000, 666 and 900-999, group 00 and serial 0000 are never issued.
_SSN = r"(?<![0-9A-Za-z-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![0-9A-Za-z-])"
# First letters D F I Q U V and second letters D F I O Q U V are never used; nor these pairs.
_NINO = (
    r"(?<![A-Za-z0-9])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])"
)

# --- assignments and free-form secrets --------------------------------------------------

_PASSWORD_KEYS = r"password|passwd|passphrase|pwd"
_SECRET_KEYS = (
    r"secret|token|api[_-]?key|apikey|access[_-]?key|secret[_-]?key|client[_-]?secret|private[_-]?key"
)
_ASSIGNED_VALUE = r"""["']?\s*(?::|=>?)\s*(?P<quote>["']?)(?P<value>[^\s"',;]+)(?P=quote)"""
# Only the key's last word is matched (DB_PASSWORD matches at PASSWORD): scanning the whole
# identifier from every start would make long tokens quadratic.
_PASSWORD_ASSIGNMENT = r"(?i)(?:" + _PASSWORD_KEYS + r")" + _ASSIGNED_VALUE
_SECRET_ASSIGNMENT = r"(?i)(?:" + _SECRET_KEYS + r")" + _ASSIGNED_VALUE
_PASSWORD_IS = r"(?i)\bpassword\s+(?:is|was)\s+[\"']?([^\s\"']+?)[\"']?(?=[\s.,;!?]*(?:\s|$))"
_CN_PASSWORD = r"(?:密码|口令)\s*(?:[:：=]|是|为)\s*[\"'“]?([A-Za-z0-9!-/:-@\[-`{-~]{4,})"
_BEARER = r"\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)"

# Values that stand for a password rather than being one: placeholders, doc examples
# (`postgres://user:pass@host`) and type annotations (`password: str`).
_PLACEHOLDERS = frozenset(
    {
        "none", "null", "nil", "empty", "true", "false", "redacted", "hidden", "secret", "pass", "password",
        "passwd", "example", "str", "string", "bytes", "bool", "int", "optional", "secretstr", "any",
        "return", "required", "unknown", "username", "token", "repo",
    }
)


def _plausible_password(value: str) -> bool:
    """A value after `password:` that is no placeholder (`none`, `<...>`, `${VAR}`, `***`) nor path."""
    if len(value) < 4 or value.lower().rstrip(")]},.:") in _PLACEHOLDERS:
        return False
    if value.startswith(("<", "${", "{{", "[REDACTED", "/", "~/", "./")) or set(value) <= set("*x.X"):
        return False
    return not _CODE_VALUE.search(value)


# Right-hand sides of code or examples, not literals: `getpass()`, `os.environ[...]`,
# `self.password`, `key_password`, `user:mypassword@host` (but `Password123` is a password).
_CODE_VALUE = re.compile(
    r"[(\[]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|(?i:^(?:\w+_|my|your)passw(?:or)?d\w*$)"
)
_TOKEN_VALUE = re.compile(r"[A-Za-z0-9._~+/=-]{8,}")


def _plausible_secret(value: str) -> bool:
    """A token value: token characters with letters and digits, so `max_token=500` and `Token(x)` pass."""
    has_both = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return has_both and bool(_TOKEN_VALUE.fullmatch(value)) and _plausible_password(value)


def _spoken_password(value: str) -> bool:
    """'my password is hunter2' but not 'the password is in the vault': needs a digit or symbol."""
    return len(value) >= 4 and any(not char.isalpha() for char in value)


_URL = re.compile(r"(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
_TOKEN = re.compile(r"[A-Za-z0-9+/_=-]{20,}")
_CHUNK = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_HEX = re.compile(r"[0-9a-fA-F-]+")


def shannon_entropy(value: str) -> float:
    """Bits per character of `value`'s own character distribution."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def looks_high_entropy(token: str) -> bool:
    """Random-looking: mixed case and digits, near-maximal entropy, and no word-sized chunks."""
    if _HEX.fullmatch(token) or not (
        any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)
    ):
        return False  # hex covers commit shas and UUIDs; single-class strings are words or numbers
    if sum(c in "+/_-" for c in token) > len(token) / 10:
        return False  # paths and slugs (models/all-MiniLM-L6-v2); base64 has ~3% of these
    chunks = _CHUNK.findall(token)
    # camelCase identifiers split into word-length chunks (mean > 3.3); random base62 into ~1.9.
    mean_chunk = sum(map(len, chunks)) / len(chunks)
    return mean_chunk < 3.3 and shannon_entropy(token) >= min(4.0, math.log2(len(token)) - 1.0)


def _detect_high_entropy(text: str) -> Iterator[Span]:
    """Random-looking tokens outside URLs (URL paths hold document ids, not secrets)."""
    url_spans = [match.span() for match in _URL.finditer(text)]
    for match in _TOKEN.finditer(text):
        inside_url = any(start <= match.start() < end for start, end in url_spans)
        if not inside_url and looks_high_entropy(match.group().strip("=-_/+")):
            yield match.span()


# Most specific first: a span claimed by an earlier detector is not reported again.
_DETECTORS: tuple[tuple[str, Detector], ...] = (
    ("private_key", _regex(_PRIVATE_KEY)),
    ("slack_webhook", _regex(_SLACK_WEBHOOK)),
    ("url_credentials", _filtered(_URL_PASSWORD, _plausible_password, group=1)),
    ("jwt", _regex(_JWT)),
    ("aws_access_key", _regex(_AWS)),
    ("github_token", _regex(_GITHUB)),
    ("anthropic_key", _filtered(_ANTHROPIC, _looks_random)),
    ("openai_key", _filtered(_OPENAI, _looks_random)),
    ("slack_token", _regex(_SLACK)),
    ("stripe_key", _regex(_STRIPE)),
    ("google_api_key", _regex(_GOOGLE)),
    ("iban", _detect_ibans),
    ("cn_resident_id", _filtered(_CN_ID, cn_resident_id_valid)),
    ("card_number", _detect_cards),
    ("us_ssn", _regex(_SSN)),
    ("uk_nino", _regex(_NINO)),
    ("password", _filtered(_PASSWORD_ASSIGNMENT, _plausible_password, group=2)),
    ("secret", _filtered(_SECRET_ASSIGNMENT, _plausible_secret, group=2)),
    ("password", _filtered(_PASSWORD_IS, _spoken_password, group=1)),
    ("password", _filtered(_CN_PASSWORD, _plausible_password, group=1)),
    ("bearer_token", _regex(_BEARER, group=1)),
    ("high_entropy", _detect_high_entropy),
)


def find_secrets(text: str) -> list[SecretFinding]:
    """Every secret or personal identifier in `text`, non-overlapping, in text order."""
    findings: list[SecretFinding] = []
    for kind, detect in _DETECTORS:
        for start, end in detect(text):
            if end > start and not any(start < f.end and f.start < end for f in findings):
                findings.append(SecretFinding(kind=kind, start=start, end=end))
    return sorted(findings, key=lambda finding: finding.start)


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


def describe_finding(finding: SecretFinding) -> str:
    """One-line description of a finding by kind and position, never quoting the value."""
    label = KIND_LABELS.get(finding.kind, finding.kind.replace("_", " "))
    return f"looks like {label} at characters {finding.start}-{finding.end}"
