"""The rules of the secret detector: provider token formats, checksummed identifiers, and the
shapes of values that stand for a secret without being one.

Provider formats follow the rule sets of gitleaks and detect-secrets (prefixes and lengths of
each service's tokens). Every rule is matched against one token or one bounded window of text
(see policy/secrets.py), never against the whole text, so scanning stays linear.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# kind -> label used in one-line gate messages (never the value).
KIND_LABELS: dict[str, str] = {
    "private_key": "a private key (PEM block)",
    "url_credentials": "a password inside a URL",
    "jwt": "a JSON Web Token",
    "aws_access_key": "an AWS access key id",
    "github_token": "a GitHub token",
    "gitlab_token": "a GitLab token",
    "anthropic_key": "an Anthropic API key",
    "openai_key": "an OpenAI API key",
    "huggingface_token": "a Hugging Face token",
    "slack_token": "a Slack token",
    "slack_webhook": "a Slack webhook URL",
    "stripe_key": "a Stripe secret key",
    "google_api_key": "a Google API key",
    "google_oauth_secret": "a Google OAuth client secret",
    "twilio_key": "a Twilio API key",
    "mailgun_key": "a Mailgun API key",
    "mailchimp_key": "a Mailchimp API key",
    "datadog_key": "a Datadog API or application key",
    "shopify_token": "a Shopify access token",
    "heroku_key": "a Heroku API key",
    "sendgrid_key": "a SendGrid API key",
    "npm_token": "an npm token",
    "pypi_token": "a PyPI token",
    "digitalocean_token": "a DigitalOcean token",
    "discord_token": "a Discord bot token",
    "telegram_token": "a Telegram bot token",
    "square_token": "a Square token",
    "azure_key": "an Azure storage account key",
    "vault_token": "a HashiCorp Vault token",
    "age_key": "an age secret key",
    "service_token": "a service API token",
    "iban": "an IBAN (mod-97 valid)",
    "cn_resident_id": "a Chinese resident id number (checksum valid)",
    "card_number": "a card number (Luhn-valid)",
    "us_ssn": "a US social security number",
    "uk_nino": "a UK national insurance number",
    "pin": "a PIN",
    "password": "a password",
    "secret": "a token or secret assignment",
    "bearer_token": "a bearer token",
    "high_entropy": "a high-entropy string (likely a key or token)",
}

# (kind, token pattern): fullmatched against a token that starts with one of PREFIXES.
PROVIDER_RULES: tuple[tuple[str, str], ...] = (
    ("aws_access_key", r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}"),
    ("github_token", r"gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}"),
    ("gitlab_token", r"gl(?:pat|ptt|dt|rt|soat|cbt|ft|imt|agent)-[A-Za-z0-9_-]{20,}"),
    ("anthropic_key", r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}"),
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ("huggingface_token", r"hf_[A-Za-z0-9]{30,}"),
    ("slack_token", r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    ("slack_webhook", r"https://hooks\.slack\.com/services/T[A-Za-z0-9_]+/B[A-Za-z0-9_]+/[A-Za-z0-9_]+"),
    ("stripe_key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"),
    ("google_api_key", r"AIza[A-Za-z0-9_-]{35}"),
    ("google_oauth_secret", r"GOCSPX-[A-Za-z0-9_-]{28}"),
    ("twilio_key", r"SK[0-9a-fA-F]{32}"),
    ("mailgun_key", r"key-[0-9a-zA-Z]{32}"),
    ("shopify_token", r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"),
    ("heroku_key", r"HRKU-[A-Za-z0-9_-]{20,}"),
    ("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"),
    ("npm_token", r"npm_[A-Za-z0-9]{36}"),
    ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{40,}"),
    ("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}"),
    ("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,43}|EAAA[0-9A-Za-z_-]{60}"),
    ("vault_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),
    ("age_key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    ("service_token", r"lin_api_[A-Za-z0-9]{40}|dapi[a-f0-9]{32}|dp\.pt\.[A-Za-z0-9]{40,}"
                      r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}"
                      r"|sntry[su]_[A-Za-z0-9+/=_]{40,}|ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}"),
    ("mailchimp_key", r"[0-9a-f]{32}-us\d{1,2}"),
    ("discord_token", r"[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}"),
    ("telegram_token", r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
    ("jwt", r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
)
COMPILED_PROVIDERS = tuple((kind, re.compile(pattern)) for kind, pattern in PROVIDER_RULES)
# A cheap first test: a token is tried against the provider rules only if it starts like one.
PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA", "gh", "github_pat_",
            "gl", "sk-", "hf_", "xox", "https://hooks.slack.com/", "sk_", "rk_", "whsec_", "AIza", "GOCSPX-", "SK",
            "key-", "shp", "HRKU-", "SG.", "npm_", "pypi-", "do", "sq0", "EAAA", "hv", "AGE-SECRET-KEY-", "lin_api_",
            "dapi", "dp.pt.", "PMAK-", "sntry", "ntn_", "secret_", "eyJ", "M", "N", *"0123456789abcdef")


def looks_random(value: str) -> bool:
    """A provider-prefixed tail that mixes letters and digits, unlike `sk-learn-style-words`."""
    tail = value.split("-", 1)[-1]
    return any(c.isdigit() for c in tail) and any(c.isalpha() for c in tail)


# --- checksummed numbers -------------------------------------------------------------------------

def luhn_valid(digits: str) -> bool:
    """Luhn check over a string of digits, the checksum every payment card (and IMEI) carries."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char) * (2 if index % 2 else 1)
        total += value - 9 if value > 9 else value
    return total % 10 == 0


def card_prefix_plausible(digits: str) -> bool:
    """Issuer ranges in use (Amex/Diners/JCB 3, Visa 4, Mastercard 5 and 2221-2720, Discover/UnionPay 6)."""
    return digits[0] in "3456" or 2221 <= int(digits[:4]) <= 2720


IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IS": 26, "IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27,
    "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25, "RO": 24, "SA": 24, "SE": 24, "SI": 19,
    "SK": 24, "SM": 27, "TR": 26,
}


def iban_valid(candidate: str) -> bool:
    """ISO 13616 check: known country length (when known) and mod-97 remainder 1."""
    iban = candidate.replace(" ", "")
    if len(iban) != IBAN_LENGTHS.get(iban[:2], len(iban)) or not 15 <= len(iban) <= 34:
        return False
    rearranged = iban[4:] + iban[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


_CN_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def cn_resident_id_valid(number: str) -> bool:
    """GB 11643-1999 check character of an 18-character resident identity number."""
    total = sum(int(digit) * weight for digit, weight in zip(number[:17], _CN_WEIGHTS))
    return "10X98765432"[total % 11] == number[17].upper()


# --- values that stand for a secret without being one --------------------------------------------

PLACEHOLDERS = frozenset({
    "none", "null", "nil", "empty", "true", "false", "redacted", "hidden", "secret", "pass", "password",
    "passwd", "example", "str", "string", "bytes", "bool", "int", "optional", "secretstr", "any", "return",
    "required", "unknown", "username", "token", "repo", "changeme?", "xxx", "tbd", "todo", "n/a", "na",
})
# Right-hand sides of code or examples, not literals: `getpass()`, `os.environ[...]`, `self.password`,
# `key_password`, `user:mypassword@host` (but `Password123` is a password).
CODE_VALUE = re.compile(r"[(\[]|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|(?i:^(?:\w+_|my|your)passw(?:or)?d\w*$)")
TOKEN_VALUE = re.compile(r"[A-Za-z0-9._~+/=-]{8,}")


def plausible_password(value: str) -> bool:
    """A value after `password:` that is no placeholder (`none`, `<...>`, `${VAR}`, `***`) nor a path."""
    if len(value) < 4 or value.lower().rstrip(")]},.:") in PLACEHOLDERS:
        return False
    if value.startswith(("<", "${", "{{", "[REDACTED", "/", "~/", "./", "$")) or set(value) <= set("*x.X"):
        return False
    return not CODE_VALUE.search(value)


def plausible_secret(value: str) -> bool:
    """A token value: token characters with letters and digits, so `max_token=500` and `Token(x)` pass."""
    has_both = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return has_both and bool(TOKEN_VALUE.fullmatch(value)) and plausible_password(value)


def spoken_password(value: str) -> bool:
    """`my password is hunter2` but not `the password is in the vault`: needs a digit or a symbol."""
    return len(value) >= 4 and any(not char.isalpha() for char in value) and plausible_password(value)


# --- random-looking tokens -----------------------------------------------------------------------

_CHUNK = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_HEX = re.compile(r"[0-9a-fA-F-]+")
# Public by design, though random-looking: Bitcoin addresses (base58 P2PKH/P2SH and bech32).
BITCOIN = re.compile(r"[13][a-km-zA-HJ-NP-Z1-9]{25,34}|bc1[ac-hj-np-z02-9]{8,87}")
PUBLIC_KEY_MARKERS = ("ssh-ed25519", "ssh-rsa", "ssh-dss", "ecdsa-sha2-", "sk-ssh-", "sk-ecdsa-", "age1")


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
    if BITCOIN.fullmatch(token):
        return False
    chunks = _CHUNK.findall(token)
    # camelCase identifiers split into word-length chunks (mean > 3.3); random base62 into ~1.9.
    mean_chunk = sum(map(len, chunks)) / len(chunks)
    return mean_chunk < 3.3 and shannon_entropy(token) >= min(4.0, math.log2(len(token)) - 1.0)
