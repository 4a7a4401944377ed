"""Speed benchmark: index build, incremental sync, recall latency (warm and fresh process), peak memory.

Usage: python bench/speed.py [--sizes 1000,10000] [--json] [--warm-queries 50] [--fresh-runs 15] [--served DIR] [--build-only]

For each size, a synthetic memory directory is generated (template sentences with varied vocabulary,
20 users, every default type; files written directly with `serialise_memory` for speed), then:
- build: a first index build as `memctl reindex` does it (catalog scan, keyword index, the shipped
  model's vectors), beside `memctl reindex` with the shipped model alone (a new process), CPU and
  wall s; then the second model's lazy fill, measured apart (it happens later: search/fused.py);
- incremental: one file's body edited on disk, then the sync the next recall pays (catalog rescan,
  keyword update, one re-embedding), excluding the query itself;
- warm: recall latency in this process (keyword and hybrid), p50/p95 over --warm-queries queries;
- fresh: `python -m memctl -d DIR recall Q --mode M --json` as a new process, p50/p95 wall time;
- served: with `memctl serve` running for the directory, the server's own search (`GET
  /api/memory/USER/search?q=Q` on a kept-alive connection) and a fresh `memctl recall Q --json`
  process forwarded to it, p50/p95; then, interleaved query by query, `rg -l -i WORD DIR` (the
  query's longest word) and a plain `memctl -d DIR recall Q --json` forwarded to it: p50s, their
  ratio (target forwarded <= 2x rg) and CPU ms; `--served DIR` measures only this on a built directory.
  memctl's modules are byte-compiled first, as an install does (`bytecode` in the output: with
  PYTHONDONTWRITEBYTECODE set a checkout has no .pyc files and each process compiles its imports);
- peak memory: ru_maxrss of the fresh processes and of this (warm) process;
- writers: 8 processes at once, each running `memctl add` commands one after another (bench/writers.py),
  forwarded to `memctl serve` (--writer-adds each) and with no server (a fifth as many): adds/s, the
  CPU seconds an add of every process involved, and the load;
- import: `memctl import` of a JSON Lines file of as many synthetic candidates as the size (or
  --import-lines; 0 skips) into a fresh directory (bench/import_rate.py): memories/s, CPU ms a memory, load.
`--embedder hashing` uses the deterministic hashing embedder instead of the model (for tests; the
figures then mean little).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

TARGETS = {"fresh_keyword_p50_s": 0.3, "fresh_hybrid_p50_s": 1.0, "warm_hybrid_p50_ms": 30.0,
           "incremental_sync_s": 0.5, "server_search_p50_ms": 20.0, "forwarded_recall_p50_ms": 100.0,
           "adds_per_s_8_processes": 20.0, "forwarded_vs_rg": 2.0, "import_memories_per_s": 200.0}
WRITERS = 8  # processes adding at once (issue 27: >= 20 adds/s from 8 processes)
USERS = [f"user{i:02d}" for i in range(20)]
WORDS = {
    "name": "Alice Bob Carla Deepak Elena Farid Grace Hiro Ines Jonas Kofi Lena Mateo Nadia Omar Priya "
            "Quinn Rosa Sven Tomoko".split(),
    "food": "sushi ramen tacos pho paella risotto curry falafel dumplings lasagna kimchi bagels".split(),
    "drink": "espresso oolong matcha cappuccino kombucha chai lemonade decaf rooibos".split(),
    "city": "Lisbon Osaka Nairobi Montreal Krakow Denver Seoul Porto Melbourne Utrecht Austin".split(),
    "tool": "docker terraform pytest ruff poetry kubectl ansible webpack gradle cargo nix bazel".split(),
    "lang": "Python Rust Go TypeScript Kotlin Elixir Haskell Java Swift Zig".split(),
    "thing": "billing search checkout onboarding invoices notifications analytics auth payments "
             "reporting exports scheduler".split(),
    "hobby": "bouldering pottery chess sailing birdwatching salsa running woodworking knitting surfing".split(),
    "day": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(),
    "adj": "quiet early detailed short async written weekly visual remote careful".split(),
}
TEMPLATES = [
    ("preference", "{name} prefers {drink} over coffee and likes {adj} meetings."),
    ("preference", "{name} likes {food} but avoids anything too spicy."),
    ("fact", "{name} moved to {city} and now works on the {thing} team."),
    ("fact", "{name} is allergic to peanuts and orders {food} when the team eats out."),
    ("skill", "{name} knows {lang} well and reviews the {thing} code written in it."),
    ("habit", "{name} goes {hobby} every {day} after work."),
    ("event", "{name} presented the {thing} redesign in {city} on a {day}."),
    ("context", "The {thing} service is built with {lang} and deployed with {tool}."),
    ("constraint", "Never run {tool} against the production {thing} database without a backup."),
    ("decision", "We chose {tool} for the {thing} pipeline because builds were too slow."),
    ("decision", "The {thing} API moves to {lang}; {name} owns the migration."),
    ("fact", "{name} has a dog, plays {hobby}, and visits {city} every summer."),
]
QUERY_TEMPLATES = ["what does {name} like to drink", "{tool} in production", "who works on {thing}",
                   "{hobby} on {day}", "which language is the {thing} service in", "food allergies",
                   "why did we pick {tool}", "{name} {city}"]


def fill(template: str, rng: random.Random) -> str:
    """A template with each slot drawn from its vocabulary."""
    return template.format(**{slot: rng.choice(words) for slot, words in WORDS.items()})


def generate(root: Path, n: int, seed: int = 7) -> None:
    """Write `n` synthetic memories under a fresh memory directory at `root`."""
    from memctl.core.fileformat import serialise_memory
    from memctl.core.models import Memory
    from memctl.store.directory import init_directory
    from memctl.store.layout import MemctlLayout

    init_directory(root)
    directory, rng, taken = MemctlLayout(root), random.Random(seed), set()
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for i in range(n):
        type_, template = rng.choice(TEMPLATES)
        body = f"{fill(template, rng)} Note {i}: {fill(rng.choice(TEMPLATES)[1], rng)}"
        when = start + timedelta(minutes=rng.randrange(60 * 24 * 700))
        memory = Memory(id=_new_id(rng, taken), type=type_, user=rng.choice(USERS), created=when,
                        updated=when, confidence=rng.choice([0.7, 0.8, 0.9, 1.0]), body=body)
        path = directory.new_path(memory)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialise_memory(memory), encoding="utf-8")


def _new_id(rng: random.Random, taken: set[str]) -> str:
    while True:
        candidate = f"{rng.getrandbits(32):08x}"
        if candidate not in taken and not candidate.isdigit():
            taken.add(candidate)
            return candidate


def queries(count: int, seed: int = 11) -> list[str]:
    """Query texts drawn from the same vocabulary as the memories."""
    rng = random.Random(seed)
    return [fill(rng.choice(QUERY_TEMPLATES), rng) for _ in range(count)]


def timed(action: Callable[[], Any]) -> float:
    """Seconds `action` takes."""
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def cpu_timed(action: Callable[[], Any]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process: every thread, user and system) `action` takes.
    On a shared machine the wall time says how busy it was; the CPU time what the work cost."""
    start, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - start, time.process_time() - cpu


def build(root: Path) -> tuple[dict[str, float], dict[str, float]]:
    """A first index build from nothing, phase by phase (what `memctl reindex` does): wall and CPU s.
    A second model's vectors are not part of it: they are filled lazily (`fill_second`)."""
    from memctl.api import MemoryStore

    store = MemoryStore(root)
    engines = engines_of(store)  # each engine syncs from the snapshot's file hashes
    phases = {"catalog": lambda: store.repo.snapshot(refresh=True),
              "keyword": lambda: engines[0].sync_keyword(force=True),
              "vectors": lambda: engines[0].sync_vectors()}
    wall, cpu = {}, {}
    for name, action in phases.items():
        wall[name], cpu[name] = cpu_timed(action)
    wall["total"], cpu["total"] = sum(wall.values()), sum(cpu.values())
    return wall, cpu


def fill_second(root: Path) -> dict[str, float] | None:
    """The second model's lazy fill after the build, all at once (`memctl reindex --full`'s extra
    part; a server does it in the background): wall and CPU s, None with no second model."""
    from memctl.api import MemoryStore

    search: Any = MemoryStore(root).search
    if not hasattr(search, "fill"):
        return None
    wall, cpu = cpu_timed(search.fill)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def drop_caches(root: Path) -> None:
    """Remove this user's caches of the folder (keyword index, vectors, catalog): the next build is a first one."""
    import shutil

    from memctl.store.cachedir import folder_cache

    shutil.rmtree(folder_cache(root), ignore_errors=True)


def single_model_build(root: Path) -> dict[str, float]:
    """`memctl reindex` from empty caches with `second_model = "none"` (the shipped model alone), as a
    new process: wall and CPU seconds (its start-up included), for the default build to be compared with."""
    config = root / "memctl.toml"
    text = config.read_text()
    config.write_text(re.sub(r'(?m)^second_model = ".*"$', 'second_model = "none"', text))
    drop_caches(root)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), "reindex"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    config.write_text(text)
    drop_caches(root)
    if proc.returncode != 0:
        raise RuntimeError(f"memctl reindex exited {proc.returncode}: {proc.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2)}


def engines_of(store: Any) -> list[Any]:
    """The search engines of a store: one, or the primary and the second model's (vectors only)."""
    search = store.search
    return [search.primary, search.second] if hasattr(search, "second") else [search]


def edit_one(root: Path) -> Path:
    """Change the body of one memory file on disk, as an editor would."""
    path = sorted((root / "users").rglob("*.md"))[0]
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + " Edited by hand to test incremental sync.\n", encoding="utf-8")
    return path


def incremental(store: Any) -> dict[str, float]:
    """The sync after one edited file, in a process with the model loaded: what the next recall pays."""
    out = {"catalog": timed(lambda: store.repo.snapshot(refresh=True))}
    engines = engines_of(store)
    out["keyword"] = timed(lambda: engines[0].sync_keyword())
    out["vectors"] = timed(lambda: [e.sync_vectors() for e in engines])
    out["total"] = sum(out.values())
    return out


def percentiles(samples: Sequence[float], scale: float = 1.0) -> dict[str, float]:
    """p50 and p95 (nearest rank) of `samples`, multiplied by `scale`, 3 decimals."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {"p50": round(statistics.median(ordered) * scale, 3), "p95": round(p95 * scale, 3)}


def warm_latency(store: Any, texts: list[str]) -> dict[str, dict[str, float]]:
    """Recall latency in this process (caches synced, model loaded), in milliseconds."""
    out = {}
    for mode in ("keyword", "hybrid"):
        store.recall(texts[0], k=5, mode=mode, record_usage=False)  # first call loads what it needs
        samples = [timed(lambda q=q, m=mode: store.recall(q, k=5, mode=m, record_usage=False)) for q in texts]
        out[mode] = percentiles(samples, 1000.0)
    return out


# `python -m memctl ARGS` that reports its own peak RSS (VmHWM) on stderr at exit. A child's
# ru_maxrss is no use here: Linux carries the parent's high-water mark across fork and exec.
_RUN_MEMCTL = """
import atexit, runpy, sys
def _hwm():
    try:
        with open('/proc/self/status') as f:
            kb = next(line.split()[1] for line in f if line.startswith('VmHWM:'))
        sys.stderr.write('\\nMEMCTL_BENCH_HWM_KB ' + kb + '\\n')
    except (OSError, StopIteration):
        pass
atexit.register(_hwm)
sys.argv = ['memctl', *sys.argv[1:]]
runpy.run_module('memctl', run_name='__main__')
"""


def run_fresh(args: list[str]) -> tuple[float, float]:
    """Run `memctl ARGS` as a new process: (wall seconds, its peak RSS in MB, 0 if unknown)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _RUN_MEMCTL, *args], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"memctl {' '.join(args)} exited {proc.returncode}: {proc.stderr[-800:]}")
    marks = [line.split()[1] for line in proc.stderr.splitlines() if line.startswith("MEMCTL_BENCH_HWM_KB ")]
    return elapsed, (int(marks[-1]) / 1024 if marks else 0.0)


def fresh_latency(root: Path, texts: list[str]) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """`memctl recall` as a new process per query, per mode: latency (s) and peak RSS (MB)."""
    latency, rss = {}, {}
    for mode in ("keyword", "hybrid"):
        runs = [run_fresh(["-d", str(root), "recall", q, "--mode", mode, "--json"]) for q in texts]
        latency[mode] = percentiles([t for t, _ in runs])
        rss[f"fresh_{mode}"] = round(max(m for _, m in runs), 1)
    return latency, rss


def served_latency(root: Path, searches: list[str], recalls: list[str]) -> tuple[dict[str, dict[str, float]], float]:
    """With `memctl serve` running: its own search latency and forwarded fresh-process recall (ms),
    and the forwarded processes' peak RSS (MB)."""
    from http.client import HTTPConnection
    from urllib.parse import quote, urlsplit

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from serve import start_server, stop_server

    proc, url = start_server(root)
    try:
        parts = urlsplit(url)
        conn = HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=60)

        def search(q: str, user: str) -> None:
            conn.request("GET", f"/api/memory/{user}/search?q={quote(q)}&k=5")
            resp = conn.getresponse()
            resp.read()
            if resp.status != 200:
                raise RuntimeError(f"search answered {resp.status}")

        for user in USERS:  # a warm server: caches synced, each user's candidate pool built once
            search(searches[0], user)
        server = [timed(lambda q=q, i=i: search(q, USERS[i % len(USERS)])) for i, q in enumerate(searches)]
        conn.close()
        compile_package()  # the forwarded processes start as an installed memctl's do
        runs = [run_fresh(["-d", str(root), "recall", q, "--json"]) for q in recalls]
        beside = rg_beside_forwarded(root, recalls)
    finally:
        stop_server(proc)
    out = {"server_search_ms": percentiles(server, 1000.0),
           "forwarded_recall_ms": percentiles([t for t, _ in runs], 1000.0), "rg_beside": beside}
    return out, round(max(m for _, m in runs), 1)


def compile_package() -> bool:
    """Byte-compile memctl's modules, as installing it does (pip writes the .pyc files). With
    PYTHONDONTWRITEBYTECODE set (it is on the team's machine) a checkout has none, and every fresh
    process compiles what it imports: a forwarded recall's client then costs about 37 ms CPU instead
    of 22 (Python's start alone: 18). Returns whether every module compiled."""
    import compileall

    import memctl

    return bool(compileall.compile_dir(str(Path(memctl.__file__).resolve().parent), quiet=1))


def query_word(text: str) -> str:
    """The query's longest word: what a person would hand `rg -l -i`."""
    return max(re.findall(r"[A-Za-z]+", text) or ["memory"], key=len)


def rg_beside_forwarded(root: Path, recalls: list[str]) -> dict[str, Any]:
    """`rg -l -i WORD ROOT` and a plain `memctl -d ROOT recall Q --json` forwarded to the running
    server, interleaved query by query (the same minutes, the same folder): p50/p95 ms of each,
    the ratio of the p50s (issue 27's target: forwarded <= 2x rg), and the CPU ms of each (children)."""
    import shutil

    rg = shutil.which("rg")
    if rg is None:
        return {"rg": None, "note": "rg (ripgrep) is not installed: apt-get install ripgrep"}
    compiled = compile_package()
    walls: dict[str, list[float]] = {"rg": [], "forwarded": []}
    cpus: dict[str, list[float]] = {"rg": [], "forwarded": []}
    for q in recalls:
        for name, argv in (("rg", [rg, "-l", "-i", query_word(q), str(root)]),
                           ("forwarded", [sys.executable, "-m", "memctl", "-d", str(root), "recall", q, "--json"])):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=name == "forwarded")
            walls[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    out: dict[str, Any] = {name: percentiles(values, 1000.0) for name, values in walls.items()}
    out["cpu_ms"] = {name: round(statistics.median(values) * 1000, 1) for name, values in cpus.items()}
    out["ratio"] = round(out["forwarded"]["p50"] / out["rg"]["p50"], 2) if out["rg"]["p50"] else None
    out["load_average"], out["bytecode"] = _load(), compiled
    return out


def served_only(root: Path, runs: int) -> dict[str, Any]:
    """`--served DIR`: forwarded recall beside rg on an existing, already built directory (what a
    full run measures last, without building a new one), with the load average."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from serve import start_server, stop_server

    recalls = queries(runs, seed=19)
    proc, _ = start_server(root)
    try:
        run_fresh(["-d", str(root), "recall", recalls[0], "--json"])  # the server's first answer warms it
        return {"root": str(root), "load_before": _load(), **rg_beside_forwarded(root, recalls)}
    finally:
        stop_server(proc)


def writer_rates(root: Path, adds: int) -> dict[str, Any]:
    """Adds/s from WRITERS processes at once, each running `memctl add` commands one after another:
    forwarded to `memctl serve` (which writes concurrent adds in groups), and with no server."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from writers import run_writers

    if adds < 1:
        return {}
    return {mode: run_writers(root, WRITERS, adds if mode == "served" else max(1, adds // 5), mode, tag=f"speed-{mode}-")
            for mode in ("served", "cli")}


def import_rate(lines: int, embedder: str, second: str) -> dict[str, Any]:
    """memories/s of one `memctl import` of `lines` candidates into a new directory (bench/import_rate.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from import_rate import measure as measure_import

    return measure_import(lines, second, embedder) if lines > 0 else {}


def measure(size: int, warm_queries: int, fresh_runs: int, embedder: str = "default",
            second: str = "auto", writer_adds: int = 0, build_only: bool = False,
            import_lines: int | None = None) -> dict[str, Any]:
    """Every figure for one directory size."""
    from memctl.api import MemoryStore

    with tempfile.TemporaryDirectory(prefix="memctl-speed-") as tmp:
        root = Path(tmp) / "mem"
        generated = timed(lambda: generate(root, size))
        config = root / "memctl.toml"
        text = config.read_text().replace('second_model = "auto"', f'second_model = "{second}"')
        if embedder != "default":
            text = text.replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"')
        config.write_text(text)
        single = single_model_build(root) if second != "none" else None
        built, built_cpu = build(root)
        load_after_build = _load()
        sys.stderr.write(f"{size}: first build {built['total']:.1f} s wall, {built_cpu['total']:.1f} s CPU; "
                         f"shipped model alone {single}; load {load_after_build}\n")
        filled = fill_second(root)  # the rest is measured with both models' vectors complete
        figures = {"memories": size, "generate_s": round(generated, 2), "load_average": load_after_build,
                   "build_s": {k: round(v, 3) for k, v in built.items()},
                   "build_cpu_s": {k: round(v, 3) for k, v in built_cpu.items()},
                   "single_model_build": single,
                   "build_cpu_ratio": round(built_cpu["total"] / single["cpu_s"], 2) if single and single["cpu_s"] else None,
                   "second_model_fill": filled, "load_average_after_fill": _load()}
        if build_only:
            return figures
        store = MemoryStore(root)
        warm = warm_latency(store, queries(warm_queries))
        edit_one(root)
        synced = incremental(store)
        fresh, rss = fresh_latency(root, queries(fresh_runs, seed=13))
        served, rss["forwarded"] = served_latency(root, queries(warm_queries, seed=17), queries(fresh_runs, seed=19))
        writers = writer_rates(root, writer_adds)  # last: the memories it adds change the folder
    imported = import_rate(size if import_lines is None else import_lines, embedder, second)  # its own directory
    rss["warm"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return {**figures, "load_average": _load(),
            "incremental_sync_s": {k: round(v, 4) for k, v in synced.items()},
            "warm_ms": warm, "fresh_s": fresh, **served, "peak_rss_mb": rss, "writers": writers, "import": imported}


def _load() -> list[float]:
    """The machine's load average (1, 5, 15 minutes): every figure here depends on it."""
    return [round(x, 2) for x in os.getloadavg()]


def check_targets(result: dict[str, Any]) -> dict[str, bool]:
    """Which of the speed targets (meant for 10k memories) this size meets."""
    return {"fresh_keyword_p50_s": result["fresh_s"]["keyword"]["p50"] <= TARGETS["fresh_keyword_p50_s"],
            "fresh_hybrid_p50_s": result["fresh_s"]["hybrid"]["p50"] <= TARGETS["fresh_hybrid_p50_s"],
            "warm_hybrid_p50_ms": result["warm_ms"]["hybrid"]["p50"] <= TARGETS["warm_hybrid_p50_ms"],
            "incremental_sync_s": result["incremental_sync_s"]["total"] <= TARGETS["incremental_sync_s"],
            "server_search_p50_ms": result["server_search_ms"]["p50"] <= TARGETS["server_search_p50_ms"],
            "forwarded_recall_p50_ms": result["forwarded_recall_ms"]["p50"] <= TARGETS["forwarded_recall_p50_ms"],
            "forwarded_vs_rg": (result["rg_beside"].get("ratio") or float("inf")) <= TARGETS["forwarded_vs_rg"],
            "adds_per_s_8_processes": result["writers"].get("served", {}).get("adds_per_s", 0.0)
            >= TARGETS["adds_per_s_8_processes"],
            "import_memories_per_s": result["import"].get("memories_per_s", 0.0) >= TARGETS["import_memories_per_s"]}


def render(results: list[dict[str, Any]]) -> None:
    """One rich table: a row per figure, a column per size."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="memctl speed (targets are for 10k memories)")
    table.add_column("figure")
    for r in results:
        table.add_column(f"{r['memories']:,} memories", justify="right")
    for label, get in ROWS:
        table.add_row(label, *(_cell(get, r) for r in results))
    Console().print(table)


def _writers(r: dict[str, Any], mode: str) -> str:
    w = r["writers"].get(mode)
    if not w:
        return "-"
    failed = f", {w['failed']} failed" if w["failed"] else ""
    mark = (" ok" if w["adds_per_s"] >= TARGETS["adds_per_s_8_processes"] else " MISSED") if mode == "served" else ""
    return f"{w['adds_per_s']:.1f} ({w['cpu_s_per_add']:.3f}; {w['load_average'][0]:.1f}){failed}{mark}"


def _imported(r: dict[str, Any]) -> str:
    i = r["import"]
    if not i:
        return "-"
    mark = " ok" if i["memories_per_s"] >= TARGETS["import_memories_per_s"] else " MISSED"
    return (f"{i['memories_per_s']:.1f} ({i['lines']:,} lines; {i['cpu_ms_per_memory']:.1f} CPU ms a memory; "
            f"load {i['load_average_before'][0]:.1f} -> {i['load_average_after'][0]:.1f}){mark}")


def _beside(b: dict[str, Any]) -> str:
    if b.get("rg") is None:
        return b.get("note", "-")
    return f"{b['rg']['p50']:.0f} / {b['forwarded']['p50']:.0f}, {b['ratio']:.2f}x (CPU {b['cpu_ms']['rg']:.0f} / " \
           f"{b['cpu_ms']['forwarded']:.0f} ms; load {b['load_average'][0]:.1f})"


def _cell(get: Callable[[dict[str, Any]], str], r: dict[str, Any]) -> str:
    """One figure, or "-" when it was not measured (--build-only)."""
    try:
        return get(r)
    except KeyError:
        return "-"


def _mark(r: dict[str, Any], key: str, text: str) -> str:
    return f"{text} {'ok' if r['targets'][key] else 'MISSED'}"


ROWS: list[tuple[str, Callable[[dict[str, Any]], str]]] = [
    ("build: catalog / keyword / vectors (s)",
     lambda r: "{catalog:.2f} / {keyword:.2f} / {vectors:.2f}".format(**r["build_s"])),
    ("build total (s)", lambda r: f"{r['build_s']['total']:.2f}"),
    ("build CPU: catalog / keyword / vectors / total (s)",
     lambda r: "{catalog:.2f} / {keyword:.2f} / {vectors:.2f} / {total:.2f}".format(**r["build_cpu_s"])),
    ("build, shipped model alone: CPU / wall (s)",
     lambda r: "{cpu_s:.2f} / {wall_s:.2f}".format(**r["single_model_build"]) if r["single_model_build"] else "-"),
    ("first build CPU, as configured / model alone (target <= 3x)",
     lambda r: f"{r['build_cpu_ratio']:.2f}x" if r["build_cpu_ratio"] else "-"),
    ("second model's lazy fill, later: CPU / wall (s)",
     lambda r: "{cpu_s:.2f} / {wall_s:.2f}".format(**r["second_model_fill"]) if r["second_model_fill"] else "-"),
    ("load average after build / after fill (1 min)",
     lambda r: f"{r['load_average'][0]:.1f} / {r['load_average_after_fill'][0]:.1f}"),
    ("load average while measuring (1 / 5 / 15 min)", lambda r: " / ".join(f"{x:.1f}" for x in r["load_average"])),
    ("incremental sync after 1 edit (s)",
     lambda r: _mark(r, "incremental_sync_s", f"{r['incremental_sync_s']['total']:.3f}")),
    ("warm keyword p50 / p95 (ms)", lambda r: "{p50:.1f} / {p95:.1f}".format(**r["warm_ms"]["keyword"])),
    ("warm hybrid p50 / p95 (ms)",
     lambda r: _mark(r, "warm_hybrid_p50_ms", "{p50:.1f} / {p95:.1f}".format(**r["warm_ms"]["hybrid"]))),
    ("fresh keyword p50 / p95 (s)",
     lambda r: _mark(r, "fresh_keyword_p50_s", "{p50:.2f} / {p95:.2f}".format(**r["fresh_s"]["keyword"]))),
    ("fresh hybrid p50 / p95 (s)",
     lambda r: _mark(r, "fresh_hybrid_p50_s", "{p50:.2f} / {p95:.2f}".format(**r["fresh_s"]["hybrid"]))),
    ("server search p50 / p95 (ms)",
     lambda r: _mark(r, "server_search_p50_ms", "{p50:.1f} / {p95:.1f}".format(**r["server_search_ms"]))),
    ("forwarded CLI recall p50 / p95 (ms)",
     lambda r: _mark(r, "forwarded_recall_p50_ms", "{p50:.0f} / {p95:.0f}".format(**r["forwarded_recall_ms"]))),
    ("beside: `rg -l -i WORD` / forwarded `memctl recall` p50 (ms), ratio (target <= 2x)",
     lambda r: _mark(r, "forwarded_vs_rg", _beside(r["rg_beside"]))),
    (f"adds/s from {WRITERS} processes of `memctl add`, served (CPU s an add; load)",
     lambda r: _writers(r, "served")),
    (f"adds/s from {WRITERS} processes of `memctl add`, no server (CPU s an add; load)",
     lambda r: _writers(r, "cli")),
    ("`memctl import` memories/s (target >= 200)", _imported),
    ("peak RSS fresh keyword / hybrid / forwarded (MB)",
     lambda r: "{fresh_keyword:.0f} / {fresh_hybrid:.0f} / {forwarded:.0f}".format(**r["peak_rss_mb"])),
    ("peak RSS warm process so far (MB)", lambda r: f"{r['peak_rss_mb']['warm']:.0f}"),
]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="memctl index build and recall speed on synthetic directories.")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated memory counts")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--served", metavar="DIR", help="only forwarded recall beside `rg -l -i` on this built directory")
    parser.add_argument("--warm-queries", type=int, default=50, help="recalls timed in this process per mode")
    parser.add_argument("--fresh-runs", type=int, default=15, help="fresh `memctl recall` processes per mode")
    parser.add_argument("--embedder", default="default", help="an [embedding] model name, e.g. hashing (no model)")
    parser.add_argument("--writer-adds", type=int, default=10,
                        help=f"adds per process of the {WRITERS} writer processes, served (a fifth of them with no server; 0: skip)")
    parser.add_argument("--import-lines", type=int, default=None,
                        help="candidates of the `memctl import` measured (default: the size; 0: skip)")
    parser.add_argument("--build-only", action="store_true", help="measure the first build (and the fill) only")
    parser.add_argument("--second-model", default=None,
                        help="[embedding] second_model (default: auto, or none with --embedder)")
    args = parser.parse_args(argv)
    if args.second_model is None:
        args.second_model = "auto" if args.embedder == "default" else "none"
    try:
        args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes comma-separated integers")
    if not args.sizes or min(args.sizes) < 1 or args.warm_queries < 1 or args.fresh_runs < 1:
        parser.error("sizes, --warm-queries and --fresh-runs must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every size and print a table or JSON."""
    args = parse_args(argv)
    if args.served:
        sys.stdout.write(json.dumps(served_only(Path(args.served), args.fresh_runs)) + "\n")
        return 0
    results = []
    for size in args.sizes:
        result = measure(size, args.warm_queries, args.fresh_runs, args.embedder, args.second_model, args.writer_adds,
                         args.build_only, args.import_lines)
        result["targets"] = {} if args.build_only else check_targets(result)
        results.append(result)
    if args.json:
        sys.stdout.write(json.dumps({"embedder": args.embedder, "second_model": args.second_model,
                                     "targets": TARGETS, "sizes": results}) + "\n")
    else:
        render(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
