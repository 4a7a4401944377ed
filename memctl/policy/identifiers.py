"""Identifiers (pure): the numbers that name a person's documents and accounts (a passport, a card,
an account, a membership) stay out of a prompt unless the request is about that thing.

An identifier is a code of at least five letters and digits, four of them digits at least ("X1234567",
"4111 1111 1111 1111", "DE89 3704 0044"), written within a few words after a word that labels one
("passport", "card", "account", "membership", "护照", "卡号"). A flight number or a price has no
such label and stays. A request is about the identifier when it says its label ("when does my
passport expire?"), or asks for an ID or documents.
"""

from __future__ import annotations

import re

LABELS = (  # the words that label one kind of identifier, in each language
    ("passport", "护照"), ("card", "credit card", "debit card", "卡号", "银行卡", "信用卡", "借记卡"),
    ("account", "iban", "routing", "账号", "账户", "帐号", "帐户"), ("membership", "member", "会员"),
    ("licence", "license", "驾照", "驾驶证"), ("social security", "ssn", "national id", "id card", "id number", "身份证"),
    ("policy number", "insurance number", "保单", "医保卡", "社保"), ("customer number", "loyalty", "frequent flyer"),
    ("tax id", "税号"),
)
LABELS_EN = tuple(w for group in LABELS for w in group if w.isascii())
LABELS_ZH = tuple(w for group in LABELS for w in group if not w.isascii())
ASKS_EN = ("id", "ids", "document", "documents", "paperwork", "identification")
ASKS_ZH = ("证件", "文件", "材料")
_LABEL = re.compile(r"(?i)(?<![a-z])(?:" + "|".join(sorted(LABELS_EN, key=len, reverse=True)) + r")(?![a-z])"
                    + "|" + "|".join(LABELS_ZH))
_TOKEN = re.compile(r"(?<![A-Za-z0-9])(?=[A-Za-z]*\d)[A-Za-z0-9][A-Za-z0-9-]{1,}(?:[ -](?=[A-Za-z]*\d)[A-Za-z0-9]{2,})*")
MASK = "[number withheld]"


_DATE = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")


def _is_code(text: str) -> bool:
    """At least five letters and digits, four of them digits, and not a date."""
    return len(re.sub(r"[ -]", "", text)) >= 5 and sum(c.isdigit() for c in text) >= 4 and not _DATE.fullmatch(text)


def identifiers(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each labelled identifier in `text`."""
    spans = []
    for label in _LABEL.finditer(text):
        window = text[label.end():label.end() + 60]
        for token in _TOKEN.finditer(window):
            if _is_code(token.group(0)):
                spans.append((label.end() + token.start(), label.end() + token.end()))
                break
    return sorted(set(spans))


def asks_for_identifiers(query: str, text: str) -> bool:
    """Whether the request is about the identifiers of `text`: it says a label of the kind the text
    says (in any language: "护照" asks for a passport's), or asks for an ID or documents."""
    folded = query.casefold()
    if set(re.findall(r"[a-z]+", folded)) & set(ASKS_EN) or any(w in query for w in ASKS_ZH):
        return True
    labels = {m.group(0).casefold() for m in _LABEL.finditer(text)}
    kinds = [group for group in LABELS if labels & set(group)]
    return any(_says(folded, word) for group in kinds for word in group)


def _says(folded: str, word: str) -> bool:
    if not word.isascii():
        return word in folded
    return re.search(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])", folded) is not None


def withhold_identifiers(text: str, query: str) -> str:
    """`text` with its labelled identifiers masked, unless the request is about them."""
    spans = identifiers(text)
    if not spans or asks_for_identifiers(query, text):
        return text
    out, last = [], 0
    for start, end in spans:
        out += [text[last:start], MASK]
        last = end
    return "".join(out + [text[last:]])
