"""Load benchmark for `memctl serve`: several clients, mixed requests, throughput, latency per route, no add lost.

Usage: python bench/serve.py [--memories 2000] [--clients 4] [--requests 500] [--json] [--embedder hashing]
                             [--store postgresql://... [--servers 2]]

A synthetic directory (bench/speed.py's generator) is served by `memctl serve --port 0` in its own
process. Each client thread keeps one HTTP/1.1 connection and sends its requests one after the
other: 70% searches of a user's memories, 20% adds, 10% lists, in a seeded random order. Every add
writes a new fact for an owner of its own (so the write decision adds it, rather than merging it
with a neighbour). Afterwards the server is stopped and the directory is opened afresh: every add
the server accepted (201) must be on disk with the id and text it answered. Prints throughput,
p50/p95 per route and the count of adds lost (expected 0).

With --store URL the directory is imported into that PostgreSQL database (give it an empty one, or
a schema of its own: `?options=-csearch_path%3Dbench,public`) and --servers processes of `memctl
serve --store URL` (no folder) share it, the clients spread over them; the adds are checked in the
database.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.client import HTTPConnection
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import quote, urlsplit

MIX = (("search", 0.7), ("add", 0.2), ("list", 0.1))


def start_server(root: Path, timeout: float = 300.0) -> tuple[subprocess.Popen, str]:
    """`memctl -d ROOT serve --port 0`, once its record names it (the model is loaded by then)."""
    from memctl.store.server_record import read_record

    proc = subprocess.Popen([sys.executable, "-m", "memctl", "-d", str(root), "serve", "--port", "0"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        record = read_record(root)
        if record and record["pid"] == proc.pid:
            return proc, str(record["url"])
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"memctl serve did not start: {proc.stderr.read().decode(errors='replace')[-800:]}")


def start_database_server(url: str, config: Path, timeout: float = 300.0) -> tuple[subprocess.Popen, str]:
    """`memctl serve --store URL --config FILE --port 0` (no folder, no record): ready once it says where."""
    proc = subprocess.Popen([sys.executable, "-m", "memctl", "serve", "--store", url, "--config", str(config),
                             "--port", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.extend(_until_listening(proc)), daemon=True)
    reader.start()
    reader.join(timeout)
    line = next((line for line in found if "listening on " in line), None)
    if line is None:
        proc.kill()
        raise RuntimeError(f"memctl serve --store did not start: {''.join(found)[-800:]}")
    return proc, line.split("listening on ")[1].split()[0]


def _until_listening(proc: subprocess.Popen) -> list[str]:
    lines = []
    assert proc.stderr is not None
    for line in proc.stderr:
        lines.append(line)
        if "listening on " in line:
            threading.Thread(target=lambda: proc.stderr.read() if proc.stderr else None, daemon=True).start()
            break
    return lines


def stop_server(proc: subprocess.Popen) -> None:
    """Ctrl-C, as a person would stop it."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def percentiles(samples: Sequence[float], scale: float = 1000.0) -> dict[str, float]:
    """p50 and p95 (nearest rank), scaled (seconds to ms by default), 2 decimals."""
    ordered = sorted(samples)
    if not ordered:
        return {"p50": 0.0, "p95": 0.0}
    p95 = ordered[min(len(ordered) - 1, max(0, round(0.95 * len(ordered)) - 1))]
    return {"p50": round(statistics.median(ordered) * scale, 2), "p95": round(p95 * scale, 2)}


class Client(threading.Thread):
    """One client: a kept-alive connection and its share of the requests."""

    def __init__(self, number: int, url: str, requests: int, users: list[str], questions: list[str]) -> None:
        super().__init__(daemon=True)
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.number, self.requests, self.users, self.questions = number, requests, users, questions
        self.rng = random.Random(1000 + number)
        self.timings: dict[str, list[float]] = {name: [] for name, _ in MIX}
        self.statuses: dict[int, int] = {}
        self.accepted: list[tuple[str, str, str]] = []  # (id, owner, content) of every 201
        self.failures: list[str] = []

    def run(self) -> None:
        conn = HTTPConnection(self.host, self.port, timeout=120)
        for i in range(self.requests):
            route = self.rng.choices([n for n, _ in MIX], [w for _, w in MIX])[0]
            method, path, body = self._request(route, i)
            start = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                payload = resp.read()
            except OSError as exc:
                self.failures.append(f"{route}: {exc}")
                conn.close()
                conn = HTTPConnection(self.host, self.port, timeout=120)
                continue
            self.timings[route].append(time.perf_counter() - start)
            self.statuses[resp.status] = self.statuses.get(resp.status, 0) + 1
            self._note(route, resp.status, payload, body)
        conn.close()

    def _request(self, route: str, i: int) -> tuple[str, str, bytes | None]:
        if route == "search":
            q = quote(self.rng.choice(self.questions))
            return "GET", f"/api/memory/{self.rng.choice(self.users)}/search?q={q}&k=5", None
        if route == "list":
            return "GET", f"/api/memory/{self.rng.choice(self.users)}?limit=20", None
        owner = f"load{self.number}x{i}"
        content = f"Load client {self.number} wrote note {i}: the {self.rng.choice(self.questions)} answer is {i * 7}."
        return "POST", f"/api/memory/{owner}", json.dumps({"content": content, "type": "fact"}).encode()

    def _note(self, route: str, status: int, payload: bytes, body: bytes | None) -> None:
        if route != "add":
            if status != 200:
                self.failures.append(f"{route}: HTTP {status}")
            return
        if status != 201:
            self.failures.append(f"add: HTTP {status}: {payload[:200]!r}")
            return
        memory = json.loads(payload)["data"]["memory"]
        self.accepted.append((memory["id"], memory["user"], json.loads(body or b"{}")["content"]))


def lost_adds(root: Path, accepted: list[tuple[str, str, str]], url: str | None = None) -> list[str]:
    """The accepted adds that are not stored as answered (a fresh store reads the directory, or the
    database at `url`)."""
    from memctl.api import MemoryStore
    from memctl.errors import MemctlError

    store = MemoryStore(root) if url is None else MemoryStore.on_database(url, root / "memctl.toml")
    lost = []
    for memory_id, owner, content in accepted:
        try:
            memory = store.get(memory_id)
        except MemctlError as exc:
            lost.append(f"{memory_id}: {exc}")
            continue
        if memory.user != owner or memory.body != content or not store.is_active(memory):
            lost.append(f"{memory_id}: changed ({memory.user}, {memory.status})")
    return lost


def serve_all(root: Path, store: str | None, servers: int) -> tuple[list[subprocess.Popen], list[str]]:
    """The directory's server, or `servers` servers of the database `store` after importing the directory."""
    if store is None:
        proc, url = start_server(root)
        return [proc], [url]
    from memctl.api import MemoryStore

    report = MemoryStore.on_database(store, root / "memctl.toml").import_from("folder", str(root))
    if report.summary.get("refused"):
        raise RuntimeError(f"the import refused memories: {report.summary}")
    started = [start_database_server(store, root / "memctl.toml") for _ in range(servers)]
    return [proc for proc, _ in started], [url for _, url in started]


def measure(memories: int, clients: int, requests: int, embedder: str, store: str | None = None,
            servers: int = 1) -> dict[str, Any]:
    """Build, serve, load, stop, verify."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from speed import USERS, generate, queries

    with tempfile.TemporaryDirectory(prefix="memctl-serve-") as tmp:
        root = Path(tmp) / "mem"
        generate(root, memories)
        if embedder != "default":
            config = root / "memctl.toml"
            config.write_text(config.read_text().replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"'))
        started = time.perf_counter()
        procs, urls = serve_all(root, store, servers)
        ready = time.perf_counter() - started
        workers = [Client(n, urls[n % len(urls)], requests, USERS, queries(200, seed=30 + n)) for n in range(clients)]
        started = time.perf_counter()
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        wall = time.perf_counter() - started
        for proc in procs:
            stop_server(proc)
        accepted = [a for w in workers for a in w.accepted]
        lost = lost_adds(root, accepted, store)
    timings = {route: [t for w in workers for t in w.timings[route]] for route, _ in MIX}
    statuses: dict[str, int] = {}
    for w in workers:
        for status, count in w.statuses.items():
            statuses[str(status)] = statuses.get(str(status), 0) + count
    done = sum(len(t) for t in timings.values())
    return {"memories": memories, "servers": len(urls), "store": "postgresql" if store else "folder",
            "clients": clients, "requests": clients * requests, "answered": done,
            "server_ready_s": round(ready, 2), "wall_s": round(wall, 2), "throughput_rps": round(done / wall, 1),
            "routes": {route: {"count": len(t), **percentiles(t)} for route, t in timings.items()},
            "statuses": statuses, "adds_accepted": len(accepted), "adds_lost": len(lost), "lost": lost[:10],
            "failures": [f for w in workers for f in w.failures][:10]}


def render(result: dict[str, Any]) -> None:
    """A short report for people."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"memctl serve ({result['servers']} on a {result['store']} store): {result['clients']} clients "
                        f"x {result['requests'] // result['clients']} requests over {result['memories']:,} memories")
    for column in ("route", "count", "p50 (ms)", "p95 (ms)"):
        table.add_column(column, justify="right" if column != "route" else "left")
    for route, r in result["routes"].items():
        table.add_row(route, str(r["count"]), f"{r['p50']:.1f}", f"{r['p95']:.1f}")
    console = Console()
    console.print(table)
    console.print(f"throughput {result['throughput_rps']} requests/s over {result['wall_s']} s; statuses "
                  f"{result['statuses']}; adds accepted {result['adds_accepted']}, lost {result['adds_lost']}")
    for failure in result["failures"]:
        console.print(f"failure: {failure}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the load and print a table or JSON; exit 1 if an add was lost or a request failed."""
    parser = argparse.ArgumentParser(description="Load benchmark for memctl serve.")
    parser.add_argument("--memories", type=int, default=2000, help="synthetic memories served")
    parser.add_argument("--clients", type=int, default=4, help="concurrent clients")
    parser.add_argument("--requests", type=int, default=500, help="requests per client")
    parser.add_argument("--embedder", default="default", help="an [embedding] model name, e.g. hashing (no model)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--store", metavar="URL", help="a PostgreSQL database (empty) to import the memories into and serve")
    parser.add_argument("--servers", type=int, default=1, help="with --store: server processes sharing it")
    args = parser.parse_args(argv)
    if min(args.memories, args.clients, args.requests, args.servers) < 1:
        parser.error("--memories, --clients, --requests and --servers must be positive")
    if args.servers > 1 and not args.store:
        parser.error("--servers needs --store (a folder has one server)")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    result = measure(args.memories, args.clients, args.requests, args.embedder, args.store, args.servers)
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
    else:
        render(result)
    return 1 if result["adds_lost"] or result["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
