"""Import speed: memories/s of `memctl import` of a JSON Lines file into a fresh directory.

    python bench/import_rate.py --lines 300 [--second-model auto|none]

Issue 27 item 3 targets >= 200 memories/s for a 10k file with the default configuration. Each line
is generated from bench/speed.py's vocabulary (synthetic, no dataset), imported by one `memctl
import` process; the figure is printed with the machine's load average, on which it depends.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from speed import TEMPLATES, USERS, fill

TARGET = 200.0


def write_lines(path: Path, n: int, seed: int = 23) -> None:
    """`n` JSON Lines candidates, each a distinct synthetic memory."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for i in range(n):
            type_, template = rng.choice(TEMPLATES)
            text = f"{fill(template, rng)} Note {i}: {fill(rng.choice(TEMPLATES)[1], rng)}"
            out.write(json.dumps({"content": text, "type": type_, "user": rng.choice(USERS)}) + "\n")


def memctl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "memctl", *args], capture_output=True, text=True)


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (the import's own CPU time)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(lines: int, second: str, embedder: str = "default") -> dict[str, Any]:
    """Time one `memctl import` of `lines` candidates into a new directory (`embedder`: another
    [embedding] model, e.g. hashing, for tests)."""
    with tempfile.TemporaryDirectory(prefix="memctl-import-") as tmp:
        root, source = Path(tmp) / "mem", Path(tmp) / "in.jsonl"
        memctl("init", str(root))
        config = root / "memctl.toml"
        text = config.read_text().replace('second_model = "auto"', f'second_model = "{second}"')
        if embedder != "default":
            text = text.replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"')
        config.write_text(text)
        write_lines(source, lines)
        before, start, cpu = os.getloadavg(), time.perf_counter(), _children_cpu()
        proc = memctl("-d", str(root), "import", str(source))
        wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
        outcomes = [line.split("\t")[1] for line in proc.stdout.splitlines() if line.count("\t") >= 2]
    return {"lines": lines, "second_model": second, "exit": proc.returncode, "wall_s": round(wall, 2),
            "memories_per_s": round(lines / wall, 1), "cpu_s": round(cpu, 2),
            "cpu_ms_per_memory": round(1000 * cpu / lines, 1), "added": outcomes.count("added"),
            "load_average_before": [round(x, 2) for x in before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="memctl import memories/s on a synthetic JSON Lines file.")
    parser.add_argument("--lines", type=int, default=300, help="candidates in the file (target is for 10000)")
    parser.add_argument("--second-model", default="auto", help="[embedding] second_model (default: auto)")
    args = parser.parse_args(argv)
    if args.lines < 1:
        parser.error("--lines must be positive")
    result = measure(args.lines, args.second_model)
    result["target_memories_per_s"], result["target_met"] = TARGET, result["memories_per_s"] >= TARGET
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
