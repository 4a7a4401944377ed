"""Three-way merge of a memory's frontmatter, field by field (the git merge driver's judgement).

Given the common ancestor's fields and both sides', each field is merged by what it means: labels
(tags, sources, entities) as sets, links (conflicts_with, merged_from, source_ids) unioned, `updated`
the later, whole-number counters (`use_count`, `hits`) summed, and every other field taken from the side that changed
it. Both sides changing one field to different values is a conflict: the result keeps ours and
names the field, so the caller can keep theirs as a second memory. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SET_FIELDS = ("tags", "sources", "entities")
LINK_FIELDS = ("conflicts_with", "merged_from", "source_ids")
LATER_FIELDS = ("updated", "archived_at")
COUNTER_NAME = re.compile(r"(?:^|_)(?:count|counter|uses|hits|seen|times)$")  # `use_count: 3`, `hits: 7`
_MISSING = object()


@dataclass
class FieldMerge:
    """The merged fields (in ours' order, then keys only theirs has) and the fields in conflict."""

    fields: dict[str, Any]
    conflicts: list[str] = field(default_factory=list)


def merge_fields(base: Mapping[str, Any], ours: Mapping[str, Any], theirs: Mapping[str, Any]) -> FieldMerge:
    """Merge `ours` and `theirs`, both changed from `base` (an empty mapping when the file is new)."""
    keys = list(dict.fromkeys([*ours, *theirs, *base]))
    out = FieldMerge({})
    for key in keys:
        value, clash = merge_value(key, base.get(key, _MISSING), ours.get(key, _MISSING), theirs.get(key, _MISSING))
        if clash:
            out.conflicts.append(key)
        if value is not _MISSING:
            out.fields[key] = value
    return out


def merge_value(key: str, base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """One field's merged value (`_MISSING`: left out) and whether the sides clashed on it."""
    if ours == theirs:
        return ours, False
    if key in SET_FIELDS + LINK_FIELDS and _listish(base, ours, theirs):
        return _merge_sets(base, ours, theirs), False
    if key in LATER_FIELDS and isinstance(ours, str) and isinstance(theirs, str):
        return max(ours, theirs), False  # memctl's timestamps are ISO 8601 in UTC: text order is time order
    if COUNTER_NAME.search(key) and _counter(base, ours, theirs):
        return ours + theirs - (base if base is not _MISSING else 0), False
    if ours == base:
        return theirs, False
    if theirs == base:
        return ours, False
    return ours, True


def _listish(*values: Any) -> bool:
    return all(v is _MISSING or v is None or isinstance(v, list) for v in values)


def _merge_sets(base: Any, ours: Any, theirs: Any) -> list[Any]:
    """Both sides' members, less those either side removed from the base; ours' order, then theirs'."""
    def members(value: Any) -> list[Any]:
        return [v for v in value if isinstance(v, (str, int, float))] if isinstance(value, list) else []

    was, a, b = members(base), members(ours), members(theirs)
    removed = {v for v in was if v not in a or v not in b}
    return [v for v in dict.fromkeys([*a, *b]) if v not in removed]


def _counter(*values: Any) -> bool:
    """Whole numbers on both sides (the base a whole number or absent): a count, summed."""
    base, ours, theirs = values

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    return whole(ours) and whole(theirs) and (base is _MISSING or whole(base))
