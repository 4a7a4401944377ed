"""The current time, overridable for tests and time travel (`--now`, MEMCTL_NOW)."""

from __future__ import annotations

import os
import re
import time
from datetime import datetime, timedelta, timezone

from memctl.errors import UsageError

_override: datetime | None = None
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")


def parse_timestamp(value: str) -> datetime:
    """Parse an ISO 8601 time or date; naive values are taken as UTC."""
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(f"not an ISO 8601 time: {value!r}", code="bad_time") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    try:
        return parsed.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01T00:00+05:00 is before year 1 in UTC
        raise UsageError(f"a time outside the years 1-9999 in UTC: {value!r}", code="bad_time") from None


MAX_DURATION = timedelta(days=36500)  # a century: longer is a typo, and datetime arithmetic overflows


def parse_duration(value: str) -> timedelta:
    """Parse a TTL such as `7d`, `12h`, `30m`, `2w`: more than zero, at most a century."""
    match = _DURATION.match(value or "")
    if not match:
        raise UsageError(f"not a duration (use e.g. 7d, 12h, 30m, 2w): {value!r}", code="bad_duration")
    amount = float(match.group(1))
    seconds = amount * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[match.group(2)]
    if not 0 < seconds <= MAX_DURATION.total_seconds():
        raise UsageError(f"a duration must be more than 0 and at most 36500d, got {value!r}", code="bad_duration")
    return timedelta(seconds=seconds)


def set_now(value: datetime | None) -> None:
    """Pin the clock (None unpins it)."""
    global _override
    _override = value


def now() -> datetime:
    """Now in UTC, to the second: the pinned time, else MEMCTL_NOW, else the system clock."""
    if _override is not None:
        return _override
    env = os.environ.get("MEMCTL_NOW")
    if env:
        return parse_timestamp(env)
    return datetime.now(timezone.utc).replace(microsecond=0)


def after(moment: datetime, ttl: str) -> datetime:
    """`moment` plus a TTL (parse_duration); a UsageError when that is past year 9999."""
    try:
        return moment + parse_duration(ttl)
    except OverflowError:
        raise UsageError(f"{ttl!r} after {format_timestamp(moment)} is past the year 9999", code="bad_duration") from None


def format_timestamp(value: datetime) -> str:
    """Canonical file form: UTC, seconds, trailing Z; the year in four digits (strftime writes year 1 as "1")."""
    utc = value.astimezone(timezone.utc).replace(microsecond=0)
    return f"{utc.year:04d}-{utc:%m-%dT%H:%M:%S}Z"


def monotonic() -> float:
    """Seconds on a clock that only moves forward (time.monotonic; tests replace it to make a slow
    machine: how often caches are re-checked must not depend on how fast the steps run)."""
    return time.monotonic()
