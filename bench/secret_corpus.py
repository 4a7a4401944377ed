"""A labelled corpus for the secret detector: secrets in sentences, and look-alikes that are not.

Every secret is synthetic (random characters in each provider's published format, checksums
computed), so nothing here is a live credential. `secrets()` gives (sentence, secret) pairs: the
detector must report a finding that covers the secret. `look_alikes()` gives sentences with no
secret in them: commit hashes, UUIDs, versions, phone numbers, IMEIs, public keys, addresses, ...
"""

from __future__ import annotations

import random
import string

LOWER, UPPER, DIGITS = string.ascii_lowercase, string.ascii_uppercase, string.digits
ALNUM = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B64URL = ALNUM + "-_"


def _r(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _mixed(rng: random.Random, n: int) -> str:
    """Random base62 with at least one digit, one lower and one upper letter."""
    while True:
        value = _r(rng, ALNUM, n)
        if any(c.isdigit() for c in value) and any(c.islower() for c in value) and any(c.isupper() for c in value):
            return value


def _luhn_complete(prefix: str, length: int, rng: random.Random) -> str:
    body = prefix + _r(rng, DIGITS, length - len(prefix) - 1)
    for check in DIGITS:
        candidate = body + check
        total = sum((int(c) * (2 if i % 2 else 1)) - (9 if int(c) * (2 if i % 2 else 1) > 9 else 0)
                    for i, c in enumerate(reversed(candidate)))
        if total % 10 == 0:
            return candidate
    raise AssertionError("unreachable")


def _iban(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in rearranged)) % 97
    return f"{country}{check:02d}{bban}"


def _cn_id(rng: random.Random) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    body = f"{rng.choice(['110105', '310101', '440305', '510104'])}19{rng.randint(50, 99)}{rng.randint(1, 12):02d}" \
           f"{rng.randint(1, 28):02d}{rng.randint(100, 999)}"
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights)) % 11]


def _ssn(rng: random.Random, sep: str) -> str:
    return f"{rng.randint(100, 665)}{sep}{rng.randint(10, 99)}{sep}{rng.randint(1000, 9999)}"


def _tokens(rng: random.Random) -> list[tuple[str, str]]:
    """(template, secret) pairs; the template has one {} where the secret goes."""
    t = [
        ("our deploy key is {} for staging", "AKIA" + _r(rng, UPPER + DIGITS, 16)),
        ("temporary credentials {} expire tonight", "ASIA" + _r(rng, UPPER + DIGITS, 16)),
        ("push with {} please", "ghp_" + _mixed(rng, 36)),
        ("the CI uses {} as its token", "ghs_" + _mixed(rng, 36)),
        ("fine-grained token {}", "github_pat_" + _mixed(rng, 22) + "_" + _mixed(rng, 59)),
        ("GitLab runner registered with {}", "glpat-" + _mixed(rng, 20)),
        ("claude calls use {}", "sk-ant-api03-" + _r(rng, B64URL, 90) + "AA"),
        ("OPENAI_API_KEY={}", "sk-proj-" + _mixed(rng, 48)),
        ("the old openai key was {}", "sk-" + _mixed(rng, 48)),
        ("download models with {}", "hf_" + _mixed(rng, 34)),
        ("bot token {} for the alerts channel", f"xoxb-{_r(rng, DIGITS, 12)}-{_r(rng, DIGITS, 13)}-{_mixed(rng, 24)}"),
        ("post to {} when a build fails", f"https://hooks.slack.com/services/T{_r(rng, UPPER + DIGITS, 8)}/B{_r(rng, UPPER + DIGITS, 10)}/{_mixed(rng, 24)}"),
        ("billing runs on {}", "sk_live_" + _mixed(rng, 24)),
        ("webhook signing secret {}", "whsec_" + _mixed(rng, 32)),
        ("maps key {} is restricted to our domain", "AIza" + _r(rng, B64URL, 35)),
        ("the oauth client secret is {}", "GOCSPX-" + _r(rng, B64URL, 28)),
        ("twilio API key {}", "SK" + _r(rng, HEX, 32)),
        ("Twilio auth token: {}", _r(rng, HEX, 32)),
        ("mailgun key {}", "key-" + _mixed(rng, 32)),
        ("mailchimp api key {}", _r(rng, HEX, 32) + "-us" + str(rng.randint(1, 21))),
        ("DD_API_KEY={}", _r(rng, HEX, 32)),
        ("datadog app key: {}", _r(rng, HEX, 40)),
        ("shopify admin token {}", "shpat_" + _r(rng, HEX, 32)),
        ("HEROKU_API_KEY={}", f"{_r(rng, HEX, 8)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 12)}"),
        ("sendgrid: {}", "SG." + _r(rng, B64URL, 22) + "." + _r(rng, B64URL, 43)),
        ("publish with {}", "npm_" + _mixed(rng, 36)),
        ("the PyPI upload token is {}", "pypi-AgEIcHlwaS5vcmc" + _r(rng, B64URL, 60)),
        ("DigitalOcean token {}", "dop_v1_" + _r(rng, HEX, 64)),
        ("discord bot {}", "M" + _mixed(rng, 23) + "." + _r(rng, B64URL, 6) + "." + _r(rng, B64URL, 27)),
        ("telegram bot token {}", f"{rng.randint(10**8, 10**9)}:AA{_r(rng, B64URL, 33)}"),
        ("square access token {}", "sq0atp-" + _r(rng, B64URL, 22)),
        ("vault login token {}", "hvs." + _r(rng, B64URL, 90)),
        ("age identity {}", "AGE-SECRET-KEY-1" + _r(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
        ("linear key {}", "lin_api_" + _mixed(rng, 40)),
        ("databricks token {}", "dapi" + _r(rng, HEX, 32)),
        ("postman key {}", f"PMAK-{_r(rng, HEX, 24)}-{_r(rng, HEX, 34)}"),
        ("the session JWT {} expired", "eyJhbGciOiJIUzI1NiJ9.eyJ" + _r(rng, B64URL, 40) + "." + _r(rng, B64URL, 43)),
        ("AccountKey={}", _r(rng, ALNUM + "+/", 86) + "=="),
        ("aws_secret_access_key = {}", _mixed(rng, 40)),
        ("the signing key is {} keep it safe", _mixed(rng, 32)),
        ("Authorization: Bearer {}", _mixed(rng, 40)),
        ("client_secret: {}", _mixed(rng, 24)),
        ("api_key='{}'", _mixed(rng, 20)),
    ]
    return t


def _credentials(rng: random.Random) -> list[tuple[str, str]]:
    pw = [_mixed(rng, 10) + "!", "Summer2024!", "Tr0ub4dor&3", "hunter2", "P@ssw0rd99", "s3cr3t!", "ZxCv1234"]
    return [
        ("db is postgres://app:{}@db.internal:5432/main", pw[0]),
        ("cache at redis://:{}@cache.local:6379/0", _mixed(rng, 16)),
        ("clone https://bob:{}@git.example.com/team/repo.git", pw[2]),
        ("wifi password: {}", pw[3] + "22"),
        ("DB_PASSWORD={}", pw[5]),
        ("my password is {}.", pw[3]),
        ("the router password {}", pw[1]),
        ("the admin password was changed to {} yesterday", pw[4]),
        ("the passphrase is {} for the backup disk", "Gr33nTea&Honey"),
        ("my wifi password is {}", "correct horse battery staple"),
        ("the vpn password is now {}", pw[6]),
        ("路由器密码是{}", "abc12345"),
        ("系统口令：{}", "Pass4321"),
        ("my PIN is {}", str(rng.randint(1000, 9999))),
        ("card PIN: {}", str(rng.randint(100000, 999999))),
        ("the door pin code is {}", str(rng.randint(1000, 9999))),
        ("password for the staging box is {}", pw[0]),
        ("login with user alice and password {}", "Winter2025#"),
        ('"password": "{}"', _mixed(rng, 14)),
        ("export MYSQL_PWD={}", _mixed(rng, 12)),
    ]


def _identifiers(rng: random.Random) -> list[tuple[str, str]]:
    visa, mc, amex = _luhn_complete("4", 16, rng), _luhn_complete("51", 16, rng), _luhn_complete("37", 15, rng)
    grouped = " ".join(visa[i:i + 4] for i in range(0, 16, 4))
    dashed = "-".join(mc[i:i + 4] for i in range(0, 16, 4))
    de = _iban("DE", _r(rng, DIGITS, 18))
    gb = _iban("GB", "WEST" + _r(rng, DIGITS, 14))
    return [
        ("pay with {} please", grouped),
        ("the corporate card {} is blocked", dashed),
        ("amex {} exp 09/29", amex),
        ("card number {}", _luhn_complete("6011", 16, rng)),
        ("卡号{}", _luhn_complete("62", 16, rng)),
        ("send the refund to {}", de),
        ("IBAN: {}", " ".join([gb[i:i + 4] for i in range(0, len(gb), 4)])),
        ("French account {}", _iban("FR", _r(rng, DIGITS, 10) + _r(rng, UPPER + DIGITS, 11) + _r(rng, DIGITS, 2))),
        ("Dutch IBAN {}", _iban("NL", "ABNA" + _r(rng, DIGITS, 10))),
        ("SSN {} on file", _ssn(rng, "-")),
        ("social security number {}", _ssn(rng, " ")),
        ("her SSN is {}", _ssn(rng, "")),
        ("身份证号{}。", _cn_id(rng)),
        ("resident id {}", _cn_id(rng)),
        ("NINO {}", rng.choice(["AB", "JG", "CE", "HS"]) + _r(rng, DIGITS, 6) + rng.choice("ABCD")),
        ("NI number {}", f"JG {rng.randint(10, 99)} {rng.randint(10, 99)} {rng.randint(10, 99)} C"),
    ]


def _pem(rng: random.Random) -> list[tuple[str, str]]:
    body = "\n".join(_r(rng, ALNUM + "+/", 64) for _ in range(3))
    return [
        ("my key:\n{}\nthanks", f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"),
        ("{}", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{body}\n-----END OPENSSH PRIVATE KEY-----"),
        ("pasted half a key -----BEGIN EC PRIVATE KEY-----\n{}", _r(rng, ALNUM, 40)),
    ]


def secrets(seed: int = 2026) -> list[tuple[str, str]]:
    """(sentence, secret): each sentence holds one secret, which a finding must cover."""
    rng = random.Random(seed)
    pairs = [*_tokens(rng), *_credentials(rng), *_identifiers(rng), *_pem(rng)]
    rng2 = random.Random(seed + 1)
    pairs += [*_tokens(rng2)[::2], *_identifiers(rng2)[::3]]  # more draws of the same formats
    return [(template.format(secret), secret) for template, secret in pairs]


def look_alikes(seed: int = 7) -> list[str]:
    """Sentences with nothing secret in them."""
    rng = random.Random(seed)
    out = [
        f"The bug was fixed in commit {_r(rng, HEX, 40)} last week.",
        f"Short sha {_r(rng, HEX, 7)} is on main.",
        f"Request id {_r(rng, HEX, 8)}-{_r(rng, HEX, 4)}-4{_r(rng, HEX, 3)}-a{_r(rng, HEX, 3)}-{_r(rng, HEX, 12)} failed.",
        f"The image digest is sha256:{_r(rng, HEX, 64)}.",
        f"sha256sum of the release: {_r(rng, HEX, 64)}",
        "Upgrade whoosh to 2.7.4 and fastembed to v0.9.1-rc.2.",
        "We pinned numpy==2.4.6, pydantic>=2.6 and typer 0.29.2.",
        "My password manager is 1Password.",
        "I forgot my password yesterday and had to reset it.",
        "The password is in the team vault.",
        "Passwords must be at least 12 characters long.",
        "The password reset link expires in one hour.",
        "The token expires in 30 days.",
        "API key rotation happens monthly.",
        "Set max_tokens=4096 and temperature=0.2.",
        "The PIN reset form is at the bank's branch.",
        "The SSN field is optional in the signup form.",
        "Call Alice on +1 415 555 0100 after lunch.",
        "Her mobile is 138-0013-8000.",
        "China mobile +86 138-0013-8000 works too.",
        "The order id is ORD-2026-000123.",
        "Invoice INV-88412 was paid on 2026-03-04.",
        "Tracking number 1Z999AA10123456784 is out for delivery.",
        "The phone's IMEI is 490154203237518.",
        "IMEI 356938035643809 was reported stolen.",
        "ISBN 978-3-16-148410-0 is the second edition.",
        "Send the coins to bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq, not to me.",
        "Donations go to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT.",
        f"My public key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_r(rng, ALNUM + '+/', 43)} alice@laptop",
        f"deploy key: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{_r(rng, ALNUM + '+/', 60)} ci@build",
        "The meeting moved to 2026-11-30 at 08:00, then 30/11/2026.",
        "Backup taken at 20261130080000 by cron.",
        "A 16-digit number that fails Luhn: 4111111111111112.",
        "antidisestablishmentarianism is a long word.",
        "Docs at https://docs.google.com/document/d/1aBcD3fGhIjKlMnOpQrStUvWxYz0123456789abcd/edit#heading=h.x1",
        "See https://github.com/anthropics/claude-code/blob/main/README.md?tab=readme-ov-file",
        "The model lives in memctl/all-MiniLM-L6-v2-int8 under /shared/models/all-MiniLM-L6-v2/.",
        "The repo is MyFavoriteRestaurant2024Downtown and the helper getUserAccountSettingsById2.",
        "We use scikit-learn: sk-learn-compatible-pipeline-wrapper is the module.",
        "password: none (it uses SSO)",
        "pwd: /home/alice/project, password: ${DB_PASSWORD}, token: <your token here>",
        "In code: password = getpass(), token = Token(positions), api_key = os.environ, secret = settings.key",
        "def connect(password: str) -> None; docs say postgres://user:pass@localhost/db",
        "Invalid SSNs: 000-12-3456, 666-12-3456, 900-12-3456, 536-00-1234, 536-22-0000.",
        "Id 11010519491231002Y has a wrong check character.",
        "GB82 WEST 1234 5698 7654 33 is a mistyped IBAN.",
        "张三喜欢靠窗的座位，住在北京市朝阳区。我忘记了密码。",
        "The pod web-7d9f8c6b5-x2k4p restarted twice.",
        f"The S3 bucket arn:aws:s3:::memctl-backups-{_r(rng, LOWER + DIGITS, 8)} holds snapshots.",
        "Slack channel C024BE91L is #general.",
        "The server's MAC address is 00:1A:2B:3C:4D:5E and its IPv6 is fe80::1ff:fe23:4567:890a.",
        "Room 4B, desk 12, floor 3: the key is at reception.",
        "The API key field in settings is empty.",
        "Use the `token` parameter to paginate.",
        "The secret ingredient is cardamom.",
        "Bearer of good news: the release shipped.",
        "Her PIN code changed last month.",
        "Alice keeps her passwords in Bitwarden.",
        "The passphrase policy requires four words.",
        "Version v2.3.1-beta.4 fixes the leak.",
        "Build 20261201.3 passed all 1337 tests.",
        "EAN barcode 4006381333931 is on the box.",
        "The flight is UA 5678 on March 9, seat 14C.",
        "Booking reference QX7PLM for the hotel.",
        "Postcode SW1A 1AA and zip 94103.",
        "The Kubernetes secret is named db-credentials.",
        "Read the token from the TOKEN_FILE environment variable.",
        "Store the key in AWS Secrets Manager, never in git.",
        "JWTs are signed with RS256 here.",
        "The passwords table has a bcrypt column.",
        "my favourite number is 4111.",
        "The conference code is CONF2026.",
        "Order #4417 shipped, order #4418 is pending.",
        "Flight LH441 departs at 14:35 from gate B22.",
        "Her employee number is E-104233.",
        "The MongoDB ObjectId 507f1f77bcf86cd799439011 is missing.",
        "The header is base64 of the user name and a colon, then the realm.",
        "The Docker tag memctl:0.2.0-slim is published.",
        "Python 3.11.7 and pip 23.2.1 are installed.",
        "The card ends in 1111.",
        "Account number ending 0042.",
        "The wifi network is called CoffeeShopGuest.",
        "Ticket PAY-1234 and ticket PAY-1302 are linked.",
        "ERR_42 means the payment was declined.",
        "The UUID v7 0190b2a4-7f3e-7c2a-9b1d-3e5f7a9c1b2d orders by time.",
        "createOrderFromCheckoutSessionV2 is the handler.",
        "The cron expression is 0 3 * * 1-5.",
        "Latitude 52.5200, longitude 13.4050.",
        "The download is 1,048,576 bytes.",
    ]
    out += [f"Commit {_r(rng, HEX, 40)} reverted {_r(rng, HEX, 40)}." for _ in range(5)]
    out += [f"Trace {_r(rng, HEX, 32)} spans 14 services." for _ in range(5)]
    out += [f"Request {_r(rng, HEX, 8)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 4)}-{_r(rng, HEX, 12)} timed out." for _ in range(5)]
    out += [f"Call {rng.randint(200, 999)}-{rng.randint(200, 999)}-{rng.randint(1000, 9999)} for support." for _ in range(5)]
    return out
