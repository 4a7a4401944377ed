"""How long one Tab takes: shell completion of commands, options and values, as a shell runs it.

    python bench/completion.py [--runs N] [--memories N] [--json]

Each Tab is a fresh `memctl` process (the console script beside this Python, as bash's script
starts it) with _MEMCTL_COMPLETE, COMP_WORDS and COMP_CWORD set, timed from start to exit. The
memory directory holds `--memories` memories (their ids and users are what `show <TAB>` and
`--user <TAB>` offer). Prints the median, 95th percentile and worst per command line, and the load
average beside them (the target: every Tab under 150 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINES = ["memctl ", "memctl re", "memctl recall --mode ", "memctl recall -", "memctl list --sort ",
         "memctl -d {dir} show ", "memctl -d {dir} recall q --user ", "memctl -d {dir} list --type ",
         "memctl config get recall."]


def program() -> list[str]:
    script = Path(sys.executable).parent / "memctl"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memctl"]


def fill(root: Path, count: int) -> None:
    sys.path.insert(0, str(ROOT))
    from memctl.api import MemoryStore
    from memctl.store.directory import init_directory

    init_directory(root)
    store = MemoryStore(root)
    for i in range(count):
        store.add_raw(f"Person {i % 50} noted fact number {i} about trains", type="fact", user=f"user{i % 50}")


def time_tab(line: str, runs: int) -> list[float]:
    words = line.split()
    env = {**os.environ, "COMP_WORDS": line, "COMP_CWORD": str(len(words) if line.endswith(" ") else len(words) - 1),
           "_MEMCTL_COMPLETE": "bash"}
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(program(), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memctl-completion-") as tmp:
        root = Path(tmp) / "mem"
        fill(root, options.memories)
        rows = []
        for line in LINES:
            times = sorted(time_tab(line.format(dir=root), options.runs))
            rows.append({"line": line, "p50_ms": round(statistics.median(times), 1),
                         "p95_ms": round(times[int(0.95 * (len(times) - 1))], 1), "max_ms": round(times[-1], 1)})
    load = os.getloadavg()
    if options.json:
        print(json.dumps({"rows": rows, "load": load, "memories": options.memories}, indent=2))
    else:
        for row in rows:
            print(f"{row['line']:36} p50 {row['p50_ms']:6.1f} ms  p95 {row['p95_ms']:6.1f} ms  max {row['max_ms']:6.1f} ms")
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {options.memories} memories, "
              f"{options.runs} Tabs per line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
