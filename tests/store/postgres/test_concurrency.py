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
