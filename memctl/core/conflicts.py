"""Git's merge-conflict markers in a file's text: where they are, and the two sides they separate.

A memory folder travels through git, so any file in it may hold an unresolved conflict (`<<<<<<<`,
`|||||||`, `=======`, `>>>>>>>` lines). A memory file with markers is refused (fileformat.py,
claudefile.py) and reported with the lines; a MEMORY.md with markers is read as both sides' lines,
never with the markers as text. Pure functions over text, bounded by the text itself.
"""

from __future__ import annotations

import re

_OPEN = re.compile(r"<{7}(?: |$)")
_BASE = re.compile(r"\|{7}(?: |$)")
_SPLIT = re.compile(r"={7}$")
_CLOSE = re.compile(r">{7}(?: |$)")


def conflict_regions(text: str) -> list[tuple[int, int]]:
    """The 1-based (first, last) line numbers of each `<<<<<<<` … `>>>>>>>` region; an opening marker
    never closed runs to the end, a stray closing marker is a region of its own line."""
    regions: list[tuple[int, int]] = []
    start: int | None = None
    number = 0
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip("\r")
        if _OPEN.match(line) and start is None:
            start = number
        elif _CLOSE.match(line):
            regions.append((number, number) if start is None else (start, number))
            start = None
    if start is not None:
        regions.append((start, number))
    return regions


def where(regions: list[tuple[int, int]]) -> str:
    """`line 4` / `lines 4-9, 12-15`: where the conflicts are, for a one-line message."""
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in regions[:5]]
    more = f" and {len(regions) - 5} more" if len(regions) > 5 else ""
    noun = "line" if len(regions) == 1 and regions[0][0] == regions[0][1] else "lines"
    return f"{noun} {', '.join(parts)}{more}"


def both_sides(text: str) -> list[str]:
    """The file's lines with every conflict resolved as "keep both": outside a conflict as written;
    inside one, our side's lines then their side's lines that ours does not already have. The common
    ancestor's lines (`|||||||` sections) and the markers themselves are dropped."""
    out: list[str] = []
    ours: list[str] = []
    theirs: list[str] = []
    section = ""  # "", "ours", "base", "theirs"
    for line in text.splitlines():
        bare = line.rstrip("\r")
        if _OPEN.match(bare) and not section:
            section, ours, theirs = "ours", [], []
        elif section and _BASE.match(bare):
            section = "base"
        elif section and _SPLIT.match(bare):
            section = "theirs"
        elif section and _CLOSE.match(bare):
            out += _keep_both(ours, theirs)
            section = ""
        elif section == "ours":
            ours.append(line)
        elif section == "theirs":
            theirs.append(line)
        elif not section and not _CLOSE.match(bare):  # `=======` alone is a Markdown heading's underline
            out.append(line)
    if section:  # never closed: keep what was read of both sides
        out += _keep_both(ours, theirs)
    return out


def _keep_both(ours: list[str], theirs: list[str]) -> list[str]:
    seen = set(ours)
    return ours + [line for line in theirs if line not in seen]
