"""Text as it may be shown: terminal escapes, control and invisible characters taken out (newlines and
tabs kept).

A memory's text comes from a shared folder: `\\x1b[2J` or an OSC title sequence in it must reach
neither a terminal (cli/output.py) nor a generated file someone will `cat` (MEMORY.md, the context
block). Nor must what is shown differ from what is stored in ways no reader sees: bidi embeddings,
overrides and isolates (U+202A-202E, U+2066-2069) reorder the characters on screen (a "trojan
source" spoof: 'invoice 4417' shown as '7144'), and U+200B, U+2060, U+FEFF show nothing at all, so all
of them are removed. The joiners U+200C and U+200D are kept between two characters outside ASCII,
where Persian, Indic scripts and emoji sequences need them, and removed elsewhere (between Latin
letters, beside a space), where they only hide a difference. Tag characters (U+E0000-E007F) spell
ASCII that no one sees but a language model reads ("ASCII smuggling": an instruction hidden in a
memory reaches the context block), so they are removed too, except in a subdivision flag (U+1F3F4,
tags, U+E007F). Marks (U+200E, U+200F) reorder nothing by themselves and stay. The stored file is
never changed. Only `re`: the CLI's start-up imports this.
"""

from __future__ import annotations

import re

_ESCAPE = r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
_INVISIBLE = "\u200b\u2060\ufeff\u202a-\u202e\u2066-\u2069"
_JOINERS = "\u200c\u200d"
_TAGS = "\U000e0000-\U000e007f"
_SHOWN = rf"[^\x00-\x9f\s{_INVISIBLE}{_JOINERS}{_TAGS}]"  # a visible character outside ASCII
_FLAG = "\U0001f3f4[\U000e0020-\U000e007e]+\U000e007f"  # a subdivision flag: a black flag, tags, a cancel tag
_CONTROL = re.compile(rf"({_FLAG})|{_ESCAPE}|[{_INVISIBLE}{_TAGS}]|(?<!{_SHOWN})[{_JOINERS}]|[{_JOINERS}](?!{_SHOWN})")


def printable(text: str) -> str:
    """`text` with terminal escapes, control characters and invisible ones removed (newlines, tabs
    and the joiners scripts and emoji need kept)."""
    return _CONTROL.sub(lambda m: m.group(1) or "", text)
