"""Claude Code's UserPromptSubmit hook: its wall time as Claude Code pays it, with and without a warm server.

Usage: python bench/hooks.py [--memories 10000] [--runs 15] [--json] [--embedder hashing]

A synthetic directory (bench/speed.py's generator: 20 users, every default type) gets memctl's
hooks installed into a temporary project's `.claude/settings.json`; then the UserPromptSubmit
command line of that file is run by `sh -c` with the hook's JSON on stdin, as Claude Code runs it:
first with no server (the hook opens the store in-process), then with `memctl serve` running for
the directory (the hook forwards the recall to it). Prints p50/p95 wall time of each and whether
the warm p50 meets its target (150 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.serve import start_server
from bench.speed import USERS, generate, queries

TARGET_WARM_P50_MS = 150.0


def install(root: Path, project: Path) -> str:
    """Install the hooks; the UserPromptSubmit command line of the settings file."""
    done = subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), "hooks", "install", "claude",
                           "--project", str(project), "--memory-user", USERS[0]], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    return str(settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"])


def timed_runs(command: str, prompts: list[str], project: Path) -> tuple[list[float], int]:
    """Wall seconds of each run, and how many printed memories."""
    times, printed = [], 0
    for prompt in prompts:
        payload = json.dumps({"session_id": "bench", "transcript_path": "", "cwd": str(project),
                              "hook_event_name": "UserPromptSubmit", "prompt": prompt})
        start = time.perf_counter()
        done = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True, cwd=project)
        times.append(time.perf_counter() - start)
        printed += bool(done.stdout.strip())
    return times, printed


def _stage(text: str) -> None:
    print(f"bench/hooks.py: {text}", file=sys.stderr, flush=True)


def figures(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 1)}


def measure(memories: int, runs: int, embedder: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memctl-bench-hooks-") as tmp:
        root, project = Path(tmp) / "mem", Path(tmp) / "project"
        generate(root, memories)
        if embedder == "hashing":
            config = root / "memctl.toml"
            config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', 'model = "hashing"'))
        project.mkdir()
        command = install(root, project)
        _stage(f"{memories} memories written; reindexing")
        subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), "reindex"], capture_output=True, check=True)
        _stage("timing the hook with no server")
        prompts = queries(runs + 1)
        timed_runs(command, prompts[:1], project)  # the caches warm up once, as on any second prompt
        cold, cold_printed = timed_runs(command, prompts[1:], project)
        _stage("starting memctl serve; timing the hook through it")
        proc, _url = start_server(root)
        try:
            timed_runs(command, prompts[:1], project)
            warm, warm_printed = timed_runs(command, prompts[1:], project)
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    result = {"memories": memories, "runs": runs, "embedder": embedder,
              "no_server": {**figures(cold), "printed": cold_printed},
              "warm_server": {**figures(warm), "printed": warm_printed}}
    result["warm_target_met"] = result["warm_server"]["p50_ms"] <= TARGET_WARM_P50_MS
    return result


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--embedder", choices=("default", "hashing"), default="default")
    parser.add_argument("--json", action="store_true")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = measure(args.memories, args.runs, args.embedder)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"UserPromptSubmit hook at {result['memories']} memories ({result['runs']} prompts, {args.embedder} embedder)")
    for name in ("no_server", "warm_server"):
        r = result[name]
        print(f"  {name:12} p50 {r['p50_ms']:8.1f} ms   p95 {r['p95_ms']:8.1f} ms   printed memories for {r['printed']}")
    met = "met" if result["warm_target_met"] else "NOT met"
    print(f"  warm target p50 <= {TARGET_WARM_P50_MS:.0f} ms: {met}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
