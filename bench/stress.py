"""Stress: concurrent writers with the real model, mixed with recalls and a compaction.

Usage: python bench/stress.py [--writers 8] [--adds 50] [--readers 2] [--runs 5] [--embedder NAME] [--json]

Each run makes a fresh memory directory and starts, as separate processes: `--writers` writers
adding `--adds` distinct memories each through `MemoryStore.add` (the full gate and write
decision; each memory has its own owner, so the decision has nothing to merge), `--readers` processes recalling in a loop, and one process compacting every second.
A run passes when no add was refused, every memory is present exactly once (each written text
once, ids unique, nothing lost to the archive), and `doctor` finds no problem. It prints the adds
per second reached and each run's verdict; the exit code is 1 if any run failed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
WRITER = """
import json, sys, time
from memctl.api import MemoryStore
from memctl.errors import MemctlError
store, name, n = MemoryStore(sys.argv[1]), sys.argv[2], int(sys.argv[3])
refused = []
for i in range(n):
    text = f"Writer {name} noted fact number {i}: the {name}{i} widget ships in crate {name}-{i * 7919 % 1000}"
    try:  # one owner per memory: the write decision has nothing to compare, so every add must land
        store.add(text, type="fact", user=f"user-{name}-{i}")
    except MemctlError as exc:
        refused.append(f"{exc.code}: {exc.message}")
print(json.dumps({"refused": refused}))
"""
READER = """
import sys, time
from memctl.api import MemoryStore
store, until = MemoryStore(sys.argv[1]), float(sys.argv[2])
n = 0
while time.time() < until:
    store.recall("which widget ships in which crate", k=5)
    n += 1
print(n)
"""
COMPACTOR = """
import sys, time
from memctl.api import MemoryStore
store, until = MemoryStore(sys.argv[1]), float(sys.argv[2])
n = 0
while time.time() < until:
    store.compact()
    n += 1
    time.sleep(1)
print(n)
"""


def spawn(code: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def prepare(root: Path, embedder: str) -> None:
    from memctl.api import init_directory

    init_directory(root)
    if embedder != "default":
        config = root / "memctl.toml"
        config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"'))


def one_run(writers: int, adds: int, readers: int, embedder: str) -> dict[str, Any]:
    """One run in a fresh directory: its throughput and whether every check held."""
    with tempfile.TemporaryDirectory(prefix="memctl-stress-") as tmp:
        root = Path(tmp) / "mem"
        prepare(root, embedder)
        start = time.time()
        procs = [spawn(WRITER, str(root), f"w{i}", str(adds)) for i in range(writers)]
        until = str(start + 3600)
        others = [spawn(READER, str(root), until) for _ in range(readers)] + [spawn(COMPACTOR, str(root), until)]
        outputs = [p.communicate(timeout=3600) for p in procs]
        seconds = time.time() - start
        for p in others:
            p.terminate()
            p.communicate(timeout=60)
        return {"seconds": round(seconds, 1), "adds_per_second": round(writers * adds / seconds, 2),
                **verdict(root, writers, adds, procs, outputs)}


def verdict(root: Path, writers: int, adds: int, procs: Sequence[subprocess.Popen[str]],
            outputs: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """Refusals, crashes, and whether every memory is there exactly once with doctor clean."""
    from memctl.api import MemoryStore

    refused = [r for out, _ in outputs for r in (json.loads(out.splitlines()[-1])["refused"] if out.strip() else [])]
    crashed = [err.strip().splitlines()[-1] for p, (_, err) in zip(procs, outputs) if p.returncode != 0 and err.strip()]
    store = MemoryStore(root)
    everything = store.repo.all_memories()
    texts = [m.body for m in everything]
    expected = {f"Writer w{w} noted fact number {i}" for w in range(writers) for i in range(adds)}
    present = {t.split(":")[0] for t in texts}
    doctor = store.doctor()
    checks = {"no_refusal": not refused, "no_crash": not crashed, "all_present": expected <= present,
              "each_once": len(texts) == len(set(texts)) == len(expected),
              "ids_unique": len({m.id for m in everything}) == len(everything),
              "all_active": sum(store.repo.is_active(m) for m in everything) == len(expected),
              "doctor_clean": not doctor["problems"]}
    return {"passed": all(checks.values()), "checks": checks, "refused": refused[:5], "crashed": crashed[:5],
            "problems": doctor["problems"][:5]}


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="memctl under concurrent writers, readers and a compaction.")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--adds", type=int, default=50, help="adds per writer")
    parser.add_argument("--readers", type=int, default=2, help="processes recalling in a loop")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--embedder", default="default", help="an [embedding] model name (hashing: no model)")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    runs = [one_run(args.writers, args.adds, args.readers, args.embedder) for _ in range(args.runs)]
    summary = {"writers": args.writers, "adds": args.adds, "readers": args.readers, "embedder": args.embedder,
               "runs": runs, "passed": sum(r["passed"] for r in runs)}
    if args.json:
        sys.stdout.write(json.dumps(summary) + "\n")
    else:
        for i, r in enumerate(runs, 1):
            failed = [k for k, ok in r["checks"].items() if not ok]
            sys.stdout.write(f"run {i}: {'ok' if r['passed'] else 'FAILED ' + ', '.join(failed)}; "
                             f"{r['adds_per_second']} adds/s over {r['seconds']} s\n")
            for line in r["refused"] + r["crashed"] + [f"{p['kind']}: {p['path']}" for p in r["problems"]]:
                sys.stdout.write(f"    {line}\n")
        sys.stdout.write(f"{summary['passed']}/{len(runs)} runs passed\n")
    return 0 if summary["passed"] == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
