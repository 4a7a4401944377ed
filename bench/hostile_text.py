"""Hostile text: does any text reader of memctl grow faster than linearly on a crafted input?

Usage: python bench/hostile_text.py [--sizes 2000,4000,8000,16000] [--only NAME] [--patterns-only]
                                    [--functions-only] [--limit SECONDS] [--json]

A memory folder is attacker-controlled, so any text in a memory file, an add or a query reaches the
readers of memctl/policy and memctl/search. This runs every module-level compiled regex of those
packages (`finditer` over the whole text: the most work any use of it can do) and every function of
the text modules whose required parameters are all `str` (the readers, each given the text in every
parameter), on adversarial texts: one unit repeated up to n characters. The units are a fixed set
(repeated short words, a letter run with no space, digits, '的' runs, mixed CJK and ASCII, blank runs,
sentence ends) plus, for each target, the literal words of its module's patterns alone, capitalised
and in pairs ('my ', 'My ', 'is my ').

Each target runs in a forked child so a pattern that never ends is killed after --limit seconds (a
timeout is a finding). A target is first run once at the largest size; one that takes under --floor
ms there is linear enough (a quadratic reader takes far more on 16k characters). Else the series is timed, and its growth
exponent (log2 of the time ratio per doubling, averaged) is printed: 1 is linear, 2 quadratic.
A finding is a growth of at least 1.5 (time x2.8 when n x2) both over the series (the slope of log
time on log size) and over its last step, or a timeout, or an exception. On a busy machine the small
timings are noisy: a series that grows is timed again at 4x the largest size (under 1 s), and its
last step (x4) must grow too.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import itertools
import json
import math
import multiprocessing as mp
import pkgutil
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

# Search modules that read text only; the others open indexes, caches and models.
TEXT_SEARCH_MODULES = {"analysis", "cjknames", "cjkplaces", "entities", "relations", "specificity"}
FIXED_UNITS = ("my ", "a ", "a", "A", "Aa ", "Ab'", "1", "1 ", "1.", "1,", "1:", "的", "的a", "a的", "一",
               "点一", "我的", " ", "\n", " \n", ". ", "a. ", "-", "a-", "'s ", "$1", "1a ", "ab1 ", "(", "#",
               "\t ", "，", "x@", "a.b", "A.", "Mr. ")
FINDING_EXPONENT = 1.5


@dataclass
class Target:
    name: str
    run: Callable[[str], Any]
    units: list[str] = field(default_factory=list)


def _literal_units(source: str) -> list[str]:
    """The words a pattern spells out (escapes and group names dropped), alone, capitalised, paired."""
    plain = re.sub(r"\\.|\(\?P<\w{1,40}>|\(\?P=\w{1,40}\)|\(\?<?[=!]", " ", source)
    words = re.findall(r"[A-Za-z]{2,20}|[\u4e00-\u9fff]{1,6}", plain)
    seen = list(dict.fromkeys(words))[:24]
    units = [w + " " for w in seen] + [w[:1].upper() + w[1:] + " " for w in seen if w.isascii()]
    units += [f"{a} {b} " for a, b in itertools.pairwise(seen)] + [w for w in seen if not w.isascii()]
    return units


def _consume(result: Any) -> None:
    if inspect.isgenerator(result):
        for _ in result:
            pass


def _pattern_run(pattern: re.Pattern[str]) -> Callable[[str], Any]:
    return lambda text: sum(1 for _ in pattern.finditer(text))


def _function_run(function: Callable[..., Any], arity: int) -> Callable[[str], Any]:
    return lambda text: _consume(function(*([text] * arity)))


def _str_arity(function: Callable[..., Any]) -> int:
    """The number of required parameters when every one is annotated `str`, else 0."""
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return 0
    required = [p for p in params if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if not required or any(p.annotation not in ("str", str) for p in required):
        return 0
    return len(required)


def _modules() -> list[Any]:
    import memctl.policy
    import memctl.search
    found = []
    for package in (memctl.policy, memctl.search):
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("__"):
                found.append(importlib.import_module(f"{package.__name__}.{info.name}"))
    return found


def _targets(patterns: bool, functions: bool) -> list[Target]:
    targets: list[Target] = []
    for module in _modules():
        short = module.__name__.removeprefix("memctl.")
        own = [v for v in vars(module).values() if isinstance(v, re.Pattern) and isinstance(v.pattern, str)]
        units = list(dict.fromkeys(u for p in own for u in _literal_units(p.pattern)))[:60]
        for name, value in sorted(vars(module).items()):
            if patterns and isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                targets.append(Target(f"{short}.{name}", _pattern_run(value), _literal_units(value.pattern)))
            text_module = short.startswith("policy.") or short.split(".")[1] in TEXT_SEARCH_MODULES
            if functions and text_module and inspect.isfunction(value) and value.__module__ == module.__name__:
                arity = _str_arity(value)
                if arity:
                    targets.append(Target(f"{short}.{name}()", _function_run(value, arity), units))
    return targets


def _text(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _time(run: Callable[[str], Any], text: str, budget: float = 0.02) -> float:
    """Seconds one call takes: the best of three rounds, each repeated until it took `budget` (a busy
    machine's noise is in the slower rounds)."""
    best = math.inf
    for _ in range(3):
        calls, start = 0, time.perf_counter()
        while True:
            run(text)
            calls += 1
            spent = time.perf_counter() - start
            if spent >= budget:
                break
        best = min(best, spent / calls)
        if spent > 0.5:
            break
    return best


def _child(target: Target, units: list[str], sizes: list[int], floor: float, out: Any) -> None:
    for unit in units:
        out.send(("start", unit))
        try:
            start = time.perf_counter()
            target.run(_text(unit, sizes[-1]))
            times = {sizes[-1]: time.perf_counter() - start}
            if times[sizes[-1]] >= floor:
                for size in sizes:
                    out.send(("start", unit))
                    times[size] = _time(target.run, _text(unit, size))
                if _grows(times) and times[sizes[-1]] < 1.0:  # confirmed at 4x the size: noise aside
                    out.send(("start", unit))
                    times[4 * sizes[-1]] = _time(target.run, _text(unit, 4 * sizes[-1]))
        except Exception as error:  # a reader raising on hostile text is a finding too
            out.send(("error", unit, f"{type(error).__name__}: {error}"[:200]))
            continue
        out.send(("done", unit, times))
    out.send(("end",))


def exponent(times: dict[int, float]) -> float:
    """The growth exponent: the least-squares slope of log time on log size (1 linear, 2 quadratic)."""
    sizes = sorted(times)
    if len(sizes) < 2 or min(times.values()) <= 0:
        return 0.0
    xs = [math.log2(n) for n in sizes]
    ys = [math.log2(times[n]) for n in sizes]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def last_doubling(times: dict[int, float]) -> float:
    """The exponent between the two largest sizes (noise at the small sizes aside)."""
    sizes = sorted(times)
    if len(sizes) < 2 or min(times.values()) <= 0:
        return 0.0
    return math.log(times[sizes[-1]] / times[sizes[-2]]) / math.log(sizes[-1] / sizes[-2])


def _measure(target: Target, sizes: list[int], floor: float, limit: float) -> list[dict[str, Any]]:
    """Each unit's timings for one target; a child stuck over `limit` seconds is killed (a timeout)."""
    units = list(dict.fromkeys([*FIXED_UNITS, *target.units]))
    rows: list[dict[str, Any]] = []
    while units:
        ours, theirs = mp.Pipe(duplex=False)
        child = mp.get_context("fork").Process(target=_child, args=(target, units, sizes, floor, theirs))
        child.start()
        current = None
        while True:
            if not ours.poll(limit):
                rows.append({"unit": current, "timeout": limit})
                child.kill()
                break
            message = ours.recv()
            if message[0] == "start":
                current = message[1]
            elif message[0] == "error":
                rows.append({"unit": message[1], "error": message[2]})
            elif message[0] == "done":
                rows.append({"unit": message[1], "times": message[2], "exponent": exponent(message[2])})
            else:
                break
        child.join()
        done = {row["unit"] for row in rows}
        units = [u for u in units if u not in done]
    return rows


def _grows(times: dict[int, float]) -> bool:
    return min(exponent(times), last_doubling(times)) >= FINDING_EXPONENT


def _is_finding(row: dict[str, Any], floor: float) -> bool:
    if "timeout" in row or "error" in row:
        return True
    return max(row["times"].values()) >= floor and _grows(row["times"])


def _describe(row: dict[str, Any]) -> str:
    if "timeout" in row:
        return f"TIMEOUT over {row['timeout']:.0f} s"
    if "error" in row:
        return f"ERROR {row['error']}"
    series = "  ".join(f"{n // 1000}k {t * 1000:.1f} ms" for n, t in sorted(row["times"].items()))
    return f"{series}  exponent {row['exponent']:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="2000,4000,8000,16000")
    parser.add_argument("--only", default="", help="targets whose name contains this")
    parser.add_argument("--patterns-only", action="store_true")
    parser.add_argument("--functions-only", action="store_true")
    parser.add_argument("--limit", type=float, default=20.0, help="seconds before a stuck target is killed")
    parser.add_argument("--floor", type=float, default=10.0, help="ms at the largest size below which it is linear")
    parser.add_argument("--all-rows", action="store_true", help="print every timed series, not only findings")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    floor = args.floor / 1000
    targets = [t for t in _targets(not args.functions_only, not args.patterns_only) if args.only in t.name]
    report: dict[str, list[dict[str, Any]]] = {}
    for target in targets:
        rows = _measure(target, sizes, floor, args.limit)
        shown = [r for r in rows if (args.all_rows and "times" in r and len(r["times"]) > 2) or _is_finding(r, floor)]
        report[target.name] = shown
        if not args.json:
            for row in shown:
                mark = "FINDING" if _is_finding(row, floor) else "ok"
                print(f"{mark:8} {target.name:50} {row['unit']!r:16} {_describe(row)}", flush=True)
    found = sum(_is_finding(r, floor) for rows in report.values() for r in rows)
    if args.json:
        print(json.dumps({"sizes": sizes, "targets": len(targets), "findings": report}, indent=1, default=str))
    else:
        print(f"{len(targets)} targets, {found} findings (exponent >= {FINDING_EXPONENT} or timeout)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
