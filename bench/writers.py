"""Writers at once: adds per second from several processes on one memory folder, with the real model.

Usage: python bench/writers.py [--processes 8] [--adds 10] [--modes served,cli,library] [--embedder NAME] [--json]

Each mode starts `--processes` processes at once on a fresh folder (or on `--dir`, left as it was
found apart from the memories added), each adding `--adds` distinct memories, one after another:
- served: `memctl serve` runs for the folder, and each process runs `memctl add` commands (each a
  new CLI process, forwarded to the server: what agents calling the CLI do);
- cli: the same `memctl add` commands with no server (each CLI process loads the model itself);
- library: each process calls `MemoryStore.add` in a loop (one model load per process, no server).
Every memory has an owner of its own, so the write decision has nothing to merge and every add
must be written. Printed per mode: adds/s (wall), the CPU seconds spent per add by every process
involved (the writers, their CLI commands and the server), failures, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
MODES = ("served", "cli", "library")
CLI_WRITER = """
import subprocess, sys
root, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
failed = []
for i in range(n):
    text = f"Writer {name} noted fact number {i}: the {name}x{i} widget ships in crate {name}-{i * 7919 % 1000}"
    done = subprocess.run([sys.executable, "-m", "memctl", "-d", root, "add", text, "--type", "fact",
                           "--user", f"user-{name}-{i}", "--json"], capture_output=True, text=True)
    if done.returncode != 0:
        failed.append((done.stdout + done.stderr).strip()[-300:])
print(repr(failed))
"""
LIBRARY_WRITER = """
import sys
from memctl.api import MemoryStore
from memctl.errors import MemctlError
root, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
store, failed = MemoryStore(root), []
for i in range(n):
    text = f"Writer {name} noted fact number {i}: the {name}x{i} widget ships in crate {name}-{i * 7919 % 1000}"
    try:
        store.add(text, type="fact", user=f"user-{name}-{i}")
    except MemctlError as exc:
        failed.append(f"{exc.code}: {exc.message}"[:300])
print(repr(failed))
"""


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_writers(root: Path, processes: int, adds: int, mode: str, tag: str = "w") -> dict[str, Any]:
    """`processes` writers at once, `adds` each, in `mode` (served, cli or library); adds/s and CPU."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from serve import start_server, stop_server

    server = start_server(root)[0] if mode == "served" else None
    try:
        server_cpu = _cpu_of(server.pid) if server else 0.0
        code = LIBRARY_WRITER if mode == "library" else CLI_WRITER
        load, cpu, start = os.getloadavg()[0], _children_cpu(), time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", code, str(root), f"{tag}{i}", str(adds)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env())
                 for i in range(processes)]
        outputs = [p.communicate(timeout=7200) for p in procs]
        seconds = time.perf_counter() - start
        cpu = _children_cpu() - cpu + ((_cpu_of(server.pid) - server_cpu) if server else 0.0)
    finally:
        if server is not None:
            stop_server(server)
    failed = [f for p, (out, err) in zip(procs, outputs)
              for f in (_failures(out) if p.returncode == 0 else [err.strip()[-300:] or "crashed"])]
    total = processes * adds
    return {"mode": mode, "processes": processes, "adds": total, "failed": len(failed), "failures": failed[:3],
            "seconds": round(seconds, 2), "adds_per_s": round((total - len(failed)) / seconds, 2),
            "cpu_s_per_add": round(cpu / total, 4), "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}


def _failures(out: str) -> list[str]:
    import ast

    lines = out.strip().splitlines()
    return list(ast.literal_eval(lines[-1])) if lines else ["no output"]


def prepare(root: Path, embedder: str) -> None:
    from memctl.api import init_directory

    init_directory(root)
    if embedder != "default":
        config = root / "memctl.toml"
        config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"'))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="adds per second from several writer processes on one folder")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--adds", type=int, default=10, help="adds per process")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--dir", help="an existing memory folder to add to (default: a fresh one per mode)")
    parser.add_argument("--embedder", default="default", help="an [embedding] model name for a fresh folder")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - set(MODES) or args.processes < 1 or args.adds < 1:
        parser.error(f"--modes takes {', '.join(MODES)}; --processes and --adds must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    results = []
    for mode in args.modes:
        if args.dir:
            results.append(run_writers(Path(args.dir), args.processes, args.adds, mode, tag=f"{mode[0]}{int(time.time())}-"))
            continue
        with tempfile.TemporaryDirectory(prefix="memctl-writers-") as tmp:
            prepare(Path(tmp) / "mem", args.embedder)
            results.append(run_writers(Path(tmp) / "mem", args.processes, args.adds, mode))
    if args.json:
        sys.stdout.write(json.dumps({"embedder": args.embedder, "results": results}) + "\n")
        return 0
    for r in results:
        sys.stdout.write(f"{r['mode']:>8}: {r['adds_per_s']} adds/s from {r['processes']} processes "
                         f"({r['adds']} adds in {r['seconds']} s, {r['cpu_s_per_add']} CPU s an add, "
                         f"{r['failed']} failed; load {r['load_average'][0]} -> {r['load_average'][1]})\n")
        for failure in r["failures"]:
            sys.stdout.write(f"    {failure}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
