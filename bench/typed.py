"""Typed facts benchmark: how well plain statements are typed, exactness of `query`, and what
`check`, `query` and a recall that touches a typed memory cost, warm and as a fresh process.

Usage: python bench/typed.py --split dev|test|all [--locomo PATH] [--json]      (typing accuracy)
       python bench/typed.py [--sizes 1000,10000] [--typed-share 0.2] [--fresh-runs 5] [--json]

Typing accuracy (`--split`): bench/data/typed/ holds statements and texts written by a helper who
never read the recognisers (bench/data/typed/README.md), each with a `split`. For every statement
the offline proposal (what `add` infers, services/structure.py: propose) is compared with the
labelled kind and fields; for every text, the dates read (core/textdates.py) with the labelled
ones. Per split and language it prints kind precision (a null statement typed counts against it)
and recall, field accuracy over the statements whose kind is right (fields right / fields in either,
typed fields compared as values, text fields after folding case, articles and plurals, one
containing the other), and date precision and recall. Tune on dev only; test is the held-out figure.

For each size, a synthetic directory (bench/speed.py's generator) gets a share of typed memories on
top: trips (departures over 2023-2025, some international), passports, birthdays and expenses, over
20 users, written directly as files. Then:
- exact: `query count --kind trip --where 'departs in YEAR'` (and with `international = true`) for
  each year against a plain Python count of the generated trips (must be 1.0: every answer right);
- warm: `check` the first time in a process (compiling the rules) and again, `query count`, and a
  keyword recall that hits trips (its findings evaluated) and one that hits untyped memories, in ms;
- fresh: `memctl check`, `memctl query count` and `memctl recall --mode keyword` as new processes
  (p50 seconds), the recall once for a query that hits a trip (so its findings are evaluated) and
  once for one that hits untyped memories only.
`--embedder hashing` uses the hashing embedder (the default here too: no step embeds with the model).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence

BENCH = Path(__file__).resolve().parent
YEARS = (2023, 2024, 2025)
CITIES = ["Tokyo", "Lisbon", "Oslo", "Lima", "Hanoi", "Denver", "Seoul", "Porto"]


def _speed() -> Any:
    spec = importlib.util.spec_from_file_location("bench_speed", BENCH / "speed.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["bench_speed"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def typed_memories(n: int, seed: int = 15) -> list[dict[str, Any]]:
    """`n` typed memories as (kind, fields, body, user) dicts: about 60% trips, the rest passports,
    birthdays and expenses."""
    rng, out = random.Random(seed), []
    for i in range(n):
        user = f"user{rng.randrange(20):02d}"
        roll = rng.random()
        if roll < 0.6:
            departs = date(YEARS[0], 1, 1) + timedelta(days=rng.randrange(3 * 365))
            city = rng.choice(CITIES)
            fields = {"departs": departs.isoformat(), "destination": city, "international": rng.random() < 0.5}
            out.append({"kind": "trip", "fields": fields, "user": user, "body": f"Trip {i} to {city} on {departs}"})
        elif roll < 0.7:
            expires = date(2026, 1, 1) + timedelta(days=rng.randrange(3650))
            out.append({"kind": "passport", "fields": {"country": "US", "expires": expires.isoformat()}, "user": user,
                        "body": f"Passport {i} expires {expires}"})
        elif roll < 0.85:
            born = date(1960, 1, 1) + timedelta(days=rng.randrange(40 * 365))
            out.append({"kind": "birthday", "fields": {"person": f"Friend {i}", "date": born.isoformat()}, "user": user,
                        "body": f"Friend {i} was born on {born}"})
        else:
            amount = f"{rng.randrange(5, 500)}.{rng.randrange(100):02d} EUR"
            out.append({"kind": "expense", "fields": {"item": f"item {i}", "amount": amount}, "user": user,
                        "body": f"Spent {amount} on item {i}"})
    return out


def write_typed(root: Path, items: list[dict[str, Any]]) -> None:
    """The typed memories as files (validated as `add` would, written directly for speed)."""
    from memctl.core.fileformat import serialise_memory
    from memctl.core.models import Memory
    from memctl.core.schemas import validate_fields
    from memctl.store.directory import read_config
    from memctl.store.kinds import KindFiles
    from memctl.store.layout import MemctlLayout

    schemas = KindFiles(root, read_config(root)).schemas
    layout, when = MemctlLayout(root), datetime(2025, 6, 1, tzinfo=timezone.utc)
    for i, item in enumerate(items):
        fields = validate_fields(schemas, item["kind"], item["fields"])
        memory = Memory(id=f"{0xa0000000 + i:08x}", type=schemas[item["kind"]].type or "fact", user=item["user"],
                        kind=item["kind"], fields=fields, created=when, updated=when, body=item["body"])
        path = layout.new_path(memory)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialise_memory(memory), encoding="utf-8")


def exactness(store: Any, items: list[dict[str, Any]]) -> float:
    """The share of per-year counts `query` gets exactly right (against plain Python)."""
    trips = [i["fields"] for i in items if i["kind"] == "trip"]
    asked = right = 0
    for year in YEARS:
        for extra, keep in (([], lambda t: True), (["international = true"], lambda t: t["international"])):
            expected = sum(1 for t in trips if t["departs"].startswith(str(year)) and keep(t))
            got = store.query("count", "trip", where=[f"departs in {year}", *extra]).value
            asked, right = asked + 1, right + (got == expected)
    return right / asked


def timed_ms(action: Any) -> float:
    start = time.perf_counter()
    action()
    return round((time.perf_counter() - start) * 1000, 2)


def warm(root: Path) -> dict[str, float]:
    from memctl.api import MemoryStore

    store = MemoryStore(root)
    store.list()  # the catalog, so the figures below are the checks' own
    first = timed_ms(lambda: store.check(at="2025-03-01"))
    again = timed_ms(lambda: store.check(at="2025-03-01"))
    queries = [timed_ms(lambda: store.query("count", "trip", where=["departs in 2024", "international = true"]))
               for _ in range(10)]
    recalls = {name: statistics.median(timed_ms(lambda q=q: store.recall(q, mode="keyword", record_usage=False))
                                       for _ in range(10))
               for name, q in (("recall_typed_hit_p50_ms", "trip to Tokyo"), ("recall_untyped_p50_ms", "espresso in Lisbon"))}
    return {"check_first_ms": first, "check_again_ms": again, "query_count_p50_ms": statistics.median(queries),
            **recalls}


def fresh(root: Path, runs: int) -> dict[str, float]:
    """p50 wall seconds of each command as a new process."""
    commands = {
        "check": ["check", "--at", "2025-03-01", "--json"],
        "query_count": ["query", "count", "--kind", "trip", "--where", "departs in 2024", "--json"],
        "recall_typed_hit": ["recall", "trip to Tokyo", "--mode", "keyword", "--json"],
        "recall_untyped": ["recall", "espresso in Lisbon", "--mode", "keyword", "--json"],
    }
    out = {}
    for name, args in commands.items():
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), *args], capture_output=True, text=True)
            times.append(time.perf_counter() - start)
            if proc.returncode not in (0, 1):  # check exits 1 when it has findings
                raise RuntimeError(f"memctl {' '.join(args)} exited {proc.returncode}: {proc.stderr[-600:]}")
        out[f"{name}_p50_s"] = round(statistics.median(times), 3)
    return out


def measure(size: int, share: float, runs: int, embedder: str) -> dict[str, Any]:
    """Every figure for one directory size."""
    from memctl.api import MemoryStore

    speed = _speed()
    typed_n = max(1, int(size * share))
    items = typed_memories(typed_n)
    with tempfile.TemporaryDirectory(prefix="memctl-typed-") as tmp:
        root = Path(tmp) / "mem"
        speed.generate(root, size - typed_n)
        config = root / "memctl.toml"
        config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"')
                          .replace('second_model = "auto"', 'second_model = "none"'))
        write_typed(root, items)
        store = MemoryStore(root)
        store.reindex(vectors=False)
        report = store.check(at="2025-03-01")
        result = {"memories": size, "typed": typed_n, "kinds": dict(Counter(i["kind"] for i in items)),
                  "query_exact": exactness(store, items), "findings": len(report.findings),
                  "warm": warm(root), "fresh": fresh(root, runs)}
    return result


DATA = BENCH / "data" / "typed"
_ARTICLES = re.compile(r"\b(?:the|a|an|my|our|his|her|their|your)\b|[^\w\s]")


def _fold(text: str) -> str:
    words = _ARTICLES.sub(" ", str(text).casefold()).split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words)


def same_value(spec_type: str, gold: Any, got: Any) -> bool:
    """Whether a proposed field value is the labelled one (see the module's doc)."""
    from memctl.core.typed import coerce

    if spec_type == "text":
        a, b = _fold(gold), _fold(got)
        return bool(a and b) and (a == b or f" {a} " in f" {b} " or f" {b} " in f" {a} ")
    if spec_type == "quantity" and isinstance(gold, dict):
        gold = {"amount": gold.get("value", gold.get("amount")), "unit": gold.get("unit")}
    try:
        return coerce(gold, spec_type) == coerce(got, spec_type)
    except ValueError:
        return False


def _rows(name: str, split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r for r in rows if split == "all" or r["split"] == split]


def typing_scores(split: str) -> dict[str, dict[str, Any]]:
    """Kind, field and date figures per language for one split (never the items themselves)."""
    from memctl.config import Config
    from memctl.core.textdates import read_dates
    from memctl.services.structure import propose
    from memctl.store.kinds import KindFiles

    kinds = KindFiles(None, Config())
    propose("warm up: the rules compile on first use", date(2026, 1, 1), kinds)
    out: dict[str, dict[str, Any]] = {}
    for row in _rows("statements.jsonl", split):
        s = out.setdefault(row["lang"], Counter())
        start = time.perf_counter()
        got = propose(row["text"], date.fromisoformat(row["today"]), kinds)
        s["micros"] += int((time.perf_counter() - start) * 1e6)
        s["statements"] += 1
        s["predicted"] += got is not None
        s["labelled"] += row["kind"] is not None
        if got is None or got.kind != row["kind"]:
            continue
        s["kind_right"] += 1
        schema = kinds.schemas[got.kind]
        for field in set(row["fields"]) | set(got.fields):
            group = "text" if schema.fields[field].type == "text" else "typed"
            s[f"{group}_fields"] += 1
            if field in row["fields"] and field in got.fields:
                s[f"{group}_right"] += same_value(schema.fields[field].type, row["fields"][field], got.fields[field])
    for row in _rows("dates.jsonl", split):
        s = out.setdefault(row["lang"], Counter())
        gold = list(row["dates"])
        read = [m.day.isoformat() for m in read_dates(row["text"], date.fromisoformat(row["today"]))]
        right = 0
        for day in read:
            if day in gold:
                gold.remove(day)
                right += 1
        s["texts"] += 1
        s["dates_read"] += len(read)
        s["dates_right"] += right
        s["dates_labelled"] += right + len(gold)
    return {lang: _figures(c) for lang, c in sorted(out.items())}


def _share(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _figures(c: Counter) -> dict[str, Any]:
    fields = c["typed_fields"] + c["text_fields"]
    return {"statements": c["statements"], "ms_per_statement": round(c["micros"] / 1000 / max(1, c["statements"]), 2),
            "kind_precision": _share(c["kind_right"], c["predicted"]),
            "kind_recall": _share(c["kind_right"], c["labelled"]),
            "field_accuracy": _share(c["typed_right"] + c["text_right"], fields),
            "typed_field_accuracy": _share(c["typed_right"], c["typed_fields"]),
            "text_field_accuracy": _share(c["text_right"], c["text_fields"]),
            "texts": c["texts"], "date_precision": _share(c["dates_right"], c["dates_read"]),
            "date_recall": _share(c["dates_right"], c["dates_labelled"])}


def locomo_typed(path: str) -> dict[str, Any]:
    """External texts nobody typed: how many of a LoCoMo file's observations and turns are typed, by
    kind (each read as of its session's date; the data stays where it is, never copied)."""
    from memctl.config import Config
    from memctl.services.structure import propose
    from memctl.store.kinds import KindFiles

    kinds, texts, typed = KindFiles(None, Config()), 0, Counter()
    for conv in json.loads(Path(path).read_text(encoding="utf-8")):
        for per in conv.get("observation", {}).values():
            for items in per.values():
                for item in items:
                    texts += 1
                    typed[getattr(propose(item[0], date(2023, 6, 1), kinds), "kind", None)] += 1
        for turns in conv.get("conversation", {}).values():
            for turn in turns if isinstance(turns, list) else []:
                texts += 1
                typed[getattr(propose(turn.get("text", ""), date(2023, 6, 1), kinds), "kind", None)] += 1
    return {"texts": texts, "typed": {k: v for k, v in typed.items() if k}}


def typing_main(split: str, as_json: bool, locomo: str | None = None) -> int:
    """Print the typing figures of one split, per language (and of a LoCoMo file, when given)."""
    scores = typing_scores(split)
    if locomo:
        scores["locomo"] = locomo_typed(locomo)
    if as_json:
        sys.stdout.write(json.dumps({"split": split, "languages": scores}) + "\n")
        return 0
    pct = lambda v: "-" if v is None else f"{v:.1%}"  # noqa: E731
    external = scores.pop("locomo", None)
    if external:
        sys.stdout.write(f"locomo: {external['texts']} texts, typed: {external['typed'] or 'none'}\n")
    for lang, f in scores.items():
        sys.stdout.write(f"{split} {lang}: {f['statements']} statements: kind P {pct(f['kind_precision'])} "
                         f"R {pct(f['kind_recall'])}; fields {pct(f['field_accuracy'])} (typed "
                         f"{pct(f['typed_field_accuracy'])}, text {pct(f['text_field_accuracy'])}); {f['texts']} texts: "
                         f"dates P {pct(f['date_precision'])} R {pct(f['date_recall'])}; "
                         f"{f['ms_per_statement']} ms a statement\n")
    return 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="memctl typed facts: query exactness, check and recall cost.")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated memory counts")
    parser.add_argument("--typed-share", type=float, default=0.2, help="share of the memories that are typed")
    parser.add_argument("--fresh-runs", type=int, default=5, help="fresh processes per command")
    parser.add_argument("--embedder", default="hashing", help="the [embedding] model (no step here embeds)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    parser.add_argument("--split", choices=("dev", "test", "all"), help="typing accuracy on this split instead")
    parser.add_argument("--locomo", metavar="PATH", help="with --split: also how many LoCoMo texts get typed")
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes comma-separated integers")
    if not args.sizes or min(args.sizes) < 2 or not 0 < args.typed_share <= 1 or args.fresh_runs < 1:
        parser.error("sizes must be at least 2, --typed-share in (0, 1], --fresh-runs positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every size and print the figures."""
    args = parse_args(argv)
    if args.split:
        return typing_main(args.split, args.json, args.locomo)
    results = [measure(size, args.typed_share, args.fresh_runs, args.embedder) for size in args.sizes]
    if args.json:
        sys.stdout.write(json.dumps({"embedder": args.embedder, "sizes": results}) + "\n")
        return 0
    for r in results:
        sys.stdout.write(f"{r['memories']} memories ({r['typed']} typed): query exact {r['query_exact']:.0%}, "
                         f"{r['findings']} findings; warm check {r['warm']['check_first_ms']} ms first, "
                         f"{r['warm']['check_again_ms']} ms again, query {r['warm']['query_count_p50_ms']} ms, recall "
                         f"{r['warm']['recall_typed_hit_p50_ms']} / {r['warm']['recall_untyped_p50_ms']} ms; fresh "
                         + ", ".join(f"{k} {v}" for k, v in r["fresh"].items()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
