"""Secret detection: every kind found (at least two examples each), every look-alike left alone."""

from __future__ import annotations

import pytest

from memctl.policy.secrets import (
    SecretFinding,
    cn_resident_id_valid,
    describe_finding,
    find_secrets,
    iban_valid,
    looks_high_entropy,
    luhn_valid,
    redact_secrets,
)

JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
JWT_2 = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJtZW1jdGwiLCJleHAiOjE3OTk5OTk5OTl9.dGhpc0lzTm90QVJlYWxTaWduYXR1cmUxMjM"
PEM_RSA = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----"
PEM_OPENSSH = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----"

# (kind, text, the exact secret the finding must cover)
SECRET_CASES = [
    ("aws_access_key", "deploy key AKIAIOSFODNN7EXAMPLE for staging", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_access_key", "ASIAY34FZKBOKMUTVV7A is the session key", "ASIAY34FZKBOKMUTVV7A"),
    ("github_token", "use 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 to push", "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"),
    (
        "github_token",
        "pat github_pat_11ABCDEFG0123456789abc_defGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijkLMNOP ok",
        "github_pat_11ABCDEFG0123456789abc_defGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijkLMNOP",
    ),
    ("openai_key", "OpenAI key sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5", "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"),
    ("openai_key", "legacy sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8 key", "sk-T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8"),
    (
        "anthropic_key",
        "claude key sk-ant-api03-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5-AA",
        "sk-ant-api03-Ab3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5-AA",
    ),
    ("anthropic_key", "admin: sk-ant-admin01-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0", "sk-ant-admin01-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0"),
    (
        "slack_token",
        "bot xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx here",
        "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    ),
    ("slack_token", "user token xoxp-2718281828-3141592653-abcdef0123", "xoxp-2718281828-3141592653-abcdef0123"),
    ("stripe_key", "billing uses sk_live_51H8abcDEF123ghiJKL456mno", "sk_live_51H8abcDEF123ghiJKL456mno"),
    ("stripe_key", "restricted rk_live_4eC39HqLyjWDarjtT1zdp7dc.", "rk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("google_api_key", "maps AIzaSyD-1234567890abcdefghijklmnopqrstu key", "AIzaSyD-1234567890abcdefghijklmnopqrstu"),
    ("google_api_key", "AIzaSyB4xY_kLmN0pQrStUvWxYz123456789012 works", "AIzaSyB4xY_kLmN0pQrStUvWxYz123456789012"),
    ("jwt", f"session cookie {JWT} expires", JWT),
    ("jwt", f"token:{JWT_2}", JWT_2),
    ("private_key", f"my key:\n{PEM_RSA}\nthanks", PEM_RSA),
    ("private_key", PEM_OPENSSH, PEM_OPENSSH),
    ("private_key", "truncated -----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB"),
    ("password", "wifi password: hunter22", "hunter22"),
    ("password", "DB_PASSWORD=s3cr3t!", "s3cr3t!"),
    ("password", "my password is hunter2.", "hunter2"),
    ("password", "router password: Password123!", "Password123!"),
    ("password", "路由器密码：abc12345", "abc12345"),
    ("secret", "token=abcdef1234567890", "abcdef1234567890"),
    ("secret", "api_key = 'Zx9vB2nM4kL6jH8g'", "Zx9vB2nM4kL6jH8g"),
    ("bearer_token", "Authorization: Bearer abcdefghijklmnop1234", "abcdefghijklmnop1234"),
    ("url_credentials", "db is postgres://alice:hunter2@db.local/app", "hunter2"),
    ("url_credentials", "clone https://bob:Tr0ub4dor@git.example.com/x.git", "Tr0ub4dor"),
    ("high_entropy", "aws secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9kL2mN", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9kL2mN"),
    ("high_entropy", "the key is Xk9mP2qR7vT4wY8zB3nC6dF1 ok", "Xk9mP2qR7vT4wY8zB3nC6dF1"),
    ("card_number", "card 4111 1111 1111 1111 exp 12/28", "4111 1111 1111 1111"),
    ("card_number", "Mastercard 5555-5555-5555-4444", "5555-5555-5555-4444"),
    ("card_number", "amex 3782 822463 10005", "3782 822463 10005"),
    ("card_number", "卡号6011111111111117", "6011111111111117"),
    ("card_number", "4111 1111 1111 1111 12/28", "4111 1111 1111 1111"),
    ("iban", "IBAN GB82 WEST 1234 5698 7654 32 BANK", "GB82 WEST 1234 5698 7654 32"),
    ("iban", "send to DE89370400440532013000 today", "DE89370400440532013000"),
    ("iban", "FR1420041010050500013M02606", "FR1420041010050500013M02606"),
    ("us_ssn", "SSN 536-22-1234 on file", "536-22-1234"),
    ("us_ssn", "ssn 219 45 6789", "219 45 6789"),
    ("cn_resident_id", "身份证号11010519491231002X。", "11010519491231002X"),
    ("cn_resident_id", "id 440524188001010014 ok", "440524188001010014"),
    ("uk_nino", "NINO AB123456C", "AB123456C"),
    ("uk_nino", "NI number JG 10 37 29 D.", "JG 10 37 29 D"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SECRET_CASES)
def test_each_secret_kind_is_found_and_masked(kind: str, text: str, secret: str) -> None:
    findings = find_secrets(text)
    assert [(f.kind, text[f.start : f.end]) for f in findings] == [(kind, secret)]
    redacted = redact_secrets(text, findings)
    assert secret not in redacted
    assert f"[REDACTED:{kind}]" in redacted


LOOK_ALIKES = [
    "Call Alice on +1 415 555 0100 after lunch.",
    "Her mobile is 138-0013-8000.",
    "China mobile +86 138-0013-8000 works too.",
    "The order id is ORD-2026-000123.",
    "My password manager is 1Password.",
    "I forgot my password yesterday.",
    "The password is in the team vault.",
    "The bug was fixed in commit 3f9a1c2e4b5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f last week.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 failed.",
    "The meeting moved to 2026-11-30 at 08:00, then 30/11/2026.",
    "Upgrade whoosh to 2.7.4 and fastembed to v0.9.1-rc.2.",
    "A 16-digit number that fails Luhn: 4111111111111112.",
    "antidisestablishmentarianism and pneumonoultramicroscopicsilicovolcanoconiosis are long words.",
    "Docs at https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz0123456789abcd/edit#heading=h.x1",
    "See https://github.com/anthropics/claude-code/blob/main/README.md?tab=readme-ov-file",
    "张三喜欢靠窗的座位，住在北京市朝阳区。我忘记了密码。",
    "The repo is MyFavoriteRestaurant2024Downtown and the helper getUserAccountSettingsById2.",
    "We use scikit-learn: sk-learn-compatible-pipeline-wrapper is the module.",
    "Set max_token=500 and tokens: 4096.",
    "password: none (it uses SSO)",
    "pwd: /home/alice/project, password: ${DB_PASSWORD}, token: <your token here>",
    "In code: password = getpass(), token = Token(positions), api_key = os.environ, secret = settings.key",
    "def connect(password: str) -> None; docs say postgres://user:pass@localhost/db",
    "self.key_password = key_password; smb://myuser:mypassword@server; gist://username:TOKEN@id",
    "The model lives in memctl/all-MiniLM-L6-v2-int8 under /shared/models/all-MiniLM-L6-v2/.",
    "Invalid SSNs: 000-12-3456, 666-12-3456, 900-12-3456, 536-00-1234, 536-22-0000.",
    "Backup taken at 20261130080000 by cron.",
    "Id 11010519491231002Y has a wrong check character.",
    "GB82 WEST 1234 5698 7654 33 is a mistyped IBAN.",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    ("digits", "valid"),
    [("4111111111111111", True), ("79927398713", True), ("4111111111111112", False), ("1234567812345678", False)],
)
def test_luhn(digits: str, valid: bool) -> None:
    assert luhn_valid(digits) is valid


@pytest.mark.parametrize(
    ("iban", "valid"),
    [
        ("GB82WEST12345698765432", True),
        ("NL91 ABNA 0417 1643 00", True),
        ("GB82WEST12345698765433", False),
        ("DE8937040044053201300", False),  # one digit short for Germany
    ],
)
def test_iban_checksum(iban: str, valid: bool) -> None:
    assert iban_valid(iban) is valid


@pytest.mark.parametrize(("number", "valid"), [("11010519491231002X", True), ("11010519491231002x", True), ("110105194912310021", False)])
def test_cn_resident_id_checksum(number: str, valid: bool) -> None:
    assert cn_resident_id_valid(number) is valid


@pytest.mark.parametrize(
    ("token", "random"),
    [
        ("Xk9mP2qR7vT4wY8zB3nC6dF1", True),
        ("ThisIsMyVeryLongProjectName2026", False),
        ("3f9a1c2e4b5d6e7f8a9b0c1d", False),
        ("memctl/all-MiniLM-L6-v2-int8", False),
        ("aaaaaaaaaaaaaaaaaaaaaaA1", False),
    ],
)
def test_high_entropy_heuristic(token: str, random: bool) -> None:
    assert looks_high_entropy(token) is random


def test_specific_kind_wins_over_overlapping_generic_rules() -> None:
    text = "GITHUB_TOKEN=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"
    assert [f.kind for f in find_secrets(text)] == ["github_token"]


def test_several_secrets_are_reported_in_text_order() -> None:
    text = "card 4111111111111111, ssn 536-22-1234, key AKIAIOSFODNN7EXAMPLE"
    findings = find_secrets(text)
    assert [f.kind for f in findings] == ["card_number", "us_ssn", "aws_access_key"]
    assert redact_secrets(text, findings) == (
        "card [REDACTED:card_number], ssn [REDACTED:us_ssn], key [REDACTED:aws_access_key]"
    )


def test_redact_ignores_overlapping_findings() -> None:
    findings = [SecretFinding(kind="a", start=0, end=4), SecretFinding(kind="b", start=2, end=6)]
    assert redact_secrets("abcdefgh", findings) == "[REDACTED:a]gh"


def test_description_names_kind_and_position_but_not_the_value() -> None:
    text = "pay with 4111 1111 1111 1111 please"
    (finding,) = find_secrets(text)
    message = describe_finding(finding)
    assert message == "looks like a card number (Luhn-valid) at characters 9-28"
    assert "4111" not in message


def test_finding_never_carries_the_secret() -> None:
    (finding,) = find_secrets("AKIAIOSFODNN7EXAMPLE")
    assert set(finding.model_dump()) == {"kind", "start", "end"}


@pytest.mark.parametrize(
    ("text", "kinds"),
    [("Xk9mP2qR7vT4wY8zB3nC6dF1_-" * 2000, {"high_entropy"}), ("a_" * 25000, set()), ("1-" * 25000, set()),
     ("4111 " * 10000, set()), ("eyJabcdefgh." * 4000, set()), ("password: " * 5000, set()),
     ("http://x.com/a b " * 5000, set()), ("-----BEGIN " * 5000, set())],
)
def test_adversarial_input_is_scanned_whole(text: str, kinds: set[str]) -> None:
    # Speed is measured by bench/secrets.py (1 MB of each shape, well under a second), not here.
    assert {f.kind for f in find_secrets(text)} == kinds
