"""Several processes on one database: no lost add, no duplicate id, the write decision consistent.

Two processes with four clients each (a MemoryStore per client thread, as a server would hold per
worker) make 500 mixed adds and recalls on a handful of users, repeating facts and changing keyed
values on purpose. Afterwards every add that said it wrote is there, every id is unique, a repeated
fact is stored once per owner, and a key has one value in force per owner.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from memctl.api import MemoryStore
from memctl.policy.decide import fingerprint
from tests.helpers import ROOT, use_hashing_embedder

CLIENTS = """
import json, random, sys, threading
from memctl.api import MemoryStore
from memctl.errors import MemctlError

root, worker, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
USERS = ["alice", "bob", "carol"]
FACTS = ["keeps bees on the roof", "plays the cello on Sundays", "speaks fluent Portuguese", "drinks green tea",
         "collects vintage maps", "repairs old bicycles", "grows tomatoes on the balcony", "runs marathons"]
CITIES = ["Lisbon", "Berlin", "Osaka", "Quito", "Tromso"]
out, lock = [], threading.Lock()

def client(n):
    rng = random.Random(worker * 100 + n)
    store = MemoryStore(root)
    for _ in range(ops):
        user = rng.choice(USERS)
        roll = rng.random()
        kind = "add" if roll < 0.4 else "key" if roll < 0.6 else "recall"
        try:
            if kind == "add":
                r = store.add(f"{user.title()} {rng.choice(FACTS)}", type="fact", user=user)
                row = [kind, r.decision.action, r.memory.id if r.written else None]
            elif kind == "key":
                r = store.add(f"{user.title()} lives in {rng.choice(CITIES)}", type="fact", user=user, key="home.city")
                row = [kind, r.decision.action, r.memory.id if r.written else None]
            else:
                store.recall(rng.choice(FACTS), users=[user], k=3)
                row = [kind, None, None]
        except MemctlError as exc:
            row = [kind, "refused:" + exc.code, None]
        with lock:
            out.append(row)

threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(out))
"""


def test_two_processes_of_four_clients_lose_nothing_and_decide_consistently(pgdir: Path) -> None:
    use_hashing_embedder(pgdir)
    MemoryStore(pgdir).list()  # the schema, once, before the clients race
    per_client = 63  # 2 processes x 4 clients x 63 = 504 operations
    procs = [subprocess.Popen([sys.executable, "-c", CLIENTS, str(pgdir), str(w), str(per_client)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT) for w in (1, 2)]
    results = []
    for proc in procs:
        stdout, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0
        results += json.loads(stdout)
    assert len(results) == 504
    counts = Counter(row[0] for row in results)
    assert counts["add"] > 100 and counts["key"] > 50 and counts["recall"] > 100
    refused = Counter(row[1] for row in results if str(row[1]).startswith("refused:"))
    assert set(refused) == {"refused:duplicate"} and refused["refused:duplicate"] > 50  # repeats, refused as such

    store = MemoryStore(pgdir)
    every = store.list(status="all")
    ids = [m.id for m in every]
    assert len(ids) == len(set(ids))  # no duplicate id
    written = {row[2] for row in results if row[2]}
    assert written <= set(ids)  # no lost add: everything that said it wrote is there
    active = store.list()
    facts = Counter((m.owner, fingerprint(m.body)) for m in active)
    assert max(facts.values()) == 1  # a repeated fact is stored once per owner
    keyed = Counter(m.owner for m in active if m.key == "home.city")
    assert set(keyed.values()) == {1}  # one value in force per key and owner
    assert len([e for e in store.repo.journal.read() if e.op in ("add", "supersede")]) == len(every)


# -- the acceptance test: two `memctl serve --store URL` processes, four HTTP clients each -----------

SERVED_USERS = ["alice", "bob", "carol"]
SERVED_FACTS = ["keeps bees on the roof", "plays the cello on Sundays", "speaks fluent Portuguese",
                "collects vintage maps", "repairs old bicycles", "grows tomatoes on the balcony"]
SERVED_CITIES = ["Lisbon", "Berlin", "Osaka", "Quito", "Tromso"]
OPS_PER_CLIENT = 125  # 2 servers x 4 clients x 125: 500 requests a server (500 a client took over 10 minutes on 2 cores)


class Client:
    """One HTTP/1.1 connection kept alive, as an agent's client holds one."""

    def __init__(self, url: str) -> None:
        from http.client import HTTPConnection
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.conn = HTTPConnection(parts.hostname, parts.port, timeout=120)

    def send(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        self.conn.request(method, path, body=json.dumps(body).encode() if body is not None else None,
                          headers={"Content-Type": "application/json"})
        resp = self.conn.getresponse()
        return resp.status, json.loads(resp.read())


def run_client(url: str, seed: int, ops: int, out: list[dict]) -> None:
    """`ops` seeded requests: 30% new facts, 15% repeated facts, 15% keyed values, 40% searches."""
    import random
    from urllib.parse import quote

    rng, client = random.Random(seed), Client(url)
    for n in range(ops):
        user, roll = rng.choice(SERVED_USERS), rng.random()
        if roll < 0.4:
            status, env = client.send("GET", f"/api/memory/{user}/search?q={quote(rng.choice(SERVED_FACTS))}&k=3")
            out.append({"kind": "search", "status": status})
            continue
        if roll < 0.7:
            kind, text, key = "new", f"{user.title()} noted item {seed}-{n} on the shelf", None
        elif roll < 0.85:
            kind, text, key = "repeat", f"{user.title()} {rng.choice(SERVED_FACTS)}", None
        else:
            kind, text, key = "key", f"{user.title()} lives in {rng.choice(SERVED_CITIES)}", "home.city"
        body = {"content": text, "type": "fact", "source": "user", **({"key": key} if key else {})}
        status, env = client.send("POST", f"/api/memory/{user}", body)
        data = env.get("data") or {}
        out.append({"kind": kind, "status": status, "user": user, "text": text, "env": env,
                    "id": (data.get("memory") or {}).get("id") if data.get("written") else None,
                    "action": (data.get("decision") or {}).get("action"),
                    "target": (data.get("decision") or {}).get("target")})


def test_two_servers_on_one_database_lose_no_add_and_decide_consistently(tmp_path: Path, pg_url: str) -> None:
    import threading

    from tests.postgres import DatabaseServe, hashing_settings

    settings = hashing_settings(tmp_path / "team.toml")
    MemoryStore.on_database(pg_url).list()  # the schema, once, before the servers race
    # the platform trusts its clients with their source (--trust-source): these adds are the users' own
    servers = [DatabaseServe(tmp_path, "--store", pg_url, "--config", str(settings), "--trust-source") for _ in range(2)]
    results: list[dict] = []
    try:
        threads = [threading.Thread(target=run_client, args=(server.url, 10 * s + c, OPS_PER_CLIENT, results))
                   for s, server in enumerate(servers) for c in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        logs = [server.stop() for server in servers]
    assert all(code == 0 and "Traceback" not in text for code, text in logs), logs
    assert len(results) == 8 * OPS_PER_CLIENT
    failures = [r for r in results if r["status"] not in (200, 201)]
    assert failures == []  # nothing refused: no lock timeout, no conflict, no rate limit
    adds = [r for r in results if r["kind"] != "search"]
    assert {r["kind"] for r in adds} == {"new", "repeat", "key"}

    store = MemoryStore.on_database(pg_url)
    every = {m.id: m for m in store.list(status="all")}
    assert len(every) == len(store.list(status="all"))  # no duplicate id
    created = [r for r in adds if r["status"] == 201]
    assert all(r["id"] in every and every[r["id"]].body == r["text"] for r in created)  # no lost add
    assert len({r["id"] for r in created}) == len(created) == len(every)  # each 201 its own memory, nothing else
    assert all(r["action"] == "add" for r in adds if r["kind"] == "new")

    for (user, text), group in _by(adds, "repeat").items():  # the same text from many clients: one created
        made = [r["id"] for r in group if r["status"] == 201]
        assert len(made) == 1, (user, text, group)
        assert all(r["action"] == "noop" and r["target"] == made[0] for r in group if r["status"] == 200)
        assert [m.id for m in every.values() if m.owner == f"users/{user}" and m.body == text] == made

    for user in SERVED_USERS:  # one value in force per key; the others superseded, each chain ends at it
        keyed = [m for m in every.values() if m.owner == f"users/{user}" and m.key == "home.city"]
        active = [m for m in keyed if m.status == "active"]
        assert len(active) == 1, [(m.id, m.status, m.body) for m in keyed]
        for m in keyed:
            seen = {m.id}
            while m.status != "active":
                assert m.status == "superseded" and m.superseded_by in every and m.superseded_by not in seen
                m = every[m.superseded_by]
                seen.add(m.id)
            assert m.id == active[0].id
    assert len([e for e in store.repo.journal.read() if e.op in ("add", "supersede")]) == len(every)


def _by(rows: list[dict], kind: str) -> dict[tuple[str, str], list[dict]]:
    out: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        if r["kind"] == kind:
            out.setdefault((r["user"], r["text"]), []).append(r)
    return out
