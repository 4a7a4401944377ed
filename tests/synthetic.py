"""Synthetic memory sets with planted cases, for compaction tests and end-to-end directories.

`make_memories` returns memories, usage, a similarity map and `Expected`: exactly
which ids each compaction rule must hit under `synthetic_settings()`. Everything
not planted is filler built to be safe from every rule (recently used, confident,
unique, no keys, not expired), so the expected sets are exact.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from memctl.config import LifecycleSettings
from memctl.core.fileformat import serialise_memory
from memctl.core.models import Memory
from memctl.policy.importance import Usage
from memctl.store.layout import MemctlLayout

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
USERS = ("alice", "bob", "carol", "dave", "erin", "wei")
PROJECTS = ("shop", "pipeline")
FILLER_TYPES = ("preference", "fact", "skill", "habit", "event", "context", "constraint", "decision")
HISTORY_KEY = "editor.history"
_NOUNS = ("budget review", "release train", "api gateway", "tea order", "reading list", "gym plan",
          "code review", "garden project", "flight booking", "tax form", "guitar lesson", "data model")
_VERBS = ("mentioned", "asked about", "prefers", "worked on", "scheduled", "compared", "finished")


@dataclass
class Expected:
    """The ids each rule must hit, and the ids that must come through untouched."""

    expire: set[str] = field(default_factory=set)
    supersede_key: dict[str, set[str]] = field(default_factory=dict)  # winner -> superseded ids
    promote: dict[str, str] = field(default_factory=dict)  # id -> target scope
    consolidate: list[set[str]] = field(default_factory=list)
    archive_low_importance: set[str] = field(default_factory=set)
    pinned: set[str] = field(default_factory=set)
    protected: set[str] = field(default_factory=set)
    inactive: set[str] = field(default_factory=set)

    def archived(self) -> set[str]:
        """Every id the plan must move to the archive."""
        merged = set().union(*self.consolidate) if self.consolidate else set()
        superseded = set().union(*self.supersede_key.values()) if self.supersede_key else set()
        return self.expire | superseded | merged | self.archive_low_importance


def synthetic_settings() -> LifecycleSettings:
    """Default lifecycle settings plus one `history` key, as the planted cases assume."""
    return LifecycleSettings(keys={HISTORY_KEY: "history"})


class _Builder:
    """Accumulates memories, usage and similarities with deterministic ids."""

    def __init__(self, seed: int, now: datetime) -> None:
        self.rng = random.Random(seed)
        self.now = now
        self.memories: list[Memory] = []
        self.usage: dict[str, Usage] = {}
        self.similarity: dict[tuple[str, str], float] = {}
        self.taken: set[str] = set()

    def new_id(self) -> str:
        while True:
            candidate = f"{self.rng.getrandbits(32):08x}"
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate

    def add(self, body: str, *, age: float = 10, updated_age: float | None = None, **fields: Any) -> str:
        """One memory created `age` days before now (defaults: an alice fact, confidence 0.9)."""
        created = self.now - timedelta(days=age)
        updated = self.now - timedelta(days=age if updated_age is None else updated_age)
        fields.setdefault("type", "fact")
        fields.setdefault("user", "alice" if fields.get("scope") != "project" else None)
        fields.setdefault("confidence", 0.9)
        memory = Memory(id=self.new_id(), body=body, created=created, updated=updated, **fields)
        self.memories.append(memory)
        return memory.id

    def use(self, memory_id: str, count: int, days_ago: float, sessions: tuple[str, ...] = ()) -> None:
        self.usage[memory_id] = Usage(count=count, last_used=self.now - timedelta(days=days_ago),
                                      sessions=list(sessions))

    def link(self, ids: list[str], low: float, high: float) -> None:
        """Every pair of `ids` gets a cosine drawn from [low, high]."""
        for a, b in itertools.combinations(ids, 2):
            self.similarity[(a, b)] = round(self.rng.uniform(low, high), 4)

    def cluster(self, bodies: list[str], *, used: bool = True, **fields: Any) -> list[str]:
        """Closely related memories (pairwise cosine 0.82-0.96), used recently unless `used=False`."""
        ids = [self.add(body, age=40 + 3 * i, **fields) for i, body in enumerate(bodies)]
        if used:
            for i in ids:
                self.use(i, 6, 2)
        self.link(ids, 0.82, 0.96)
        return ids

    def at(self, days: float) -> datetime:
        return self.now + timedelta(days=days)


def _plant_expiry(b: _Builder, exp: Expected) -> None:
    exp.expire.add(b.add("Alice is in Madrid until Friday.", expires=b.at(-1)))
    exp.expire.add(b.add("The shop banner shows the summer sale.", scope="project", project="shop",
                         type="context", expires=b.at(-100)))
    exp.expire.add(b.add("Bob is on call this week.", user="bob", type="context", expires=b.now))
    exp.expire.add(b.add("Alice is drafting the Q3 memo in this session.", scope="session",
                         session="s-exp", tags=["remember"], expires=b.at(-0.5)))
    exp.expire.add(b.add("Carol must not schedule meetings this week.", user="carol",
                         type="constraint", importance=1.0, expires=b.at(-2)))
    near_miss = b.add("Erin is travelling until tomorrow.", user="erin", type="context",
                      expires=b.now + timedelta(seconds=1))
    b.use(near_miss, 2, 1)


def _plant_keys(b: _Builder, exp: Expected) -> None:
    city = [b.add(f"Alice lives in {c}.", age=a, key="home.city")
            for c, a in (("Porto", 300), ("Lisbon", 100), ("Berlin", 5))]
    exp.supersede_key[city[2]] = {city[0], city[1]}
    for user in ("bob", "carol"):  # same key, other owners: nothing to supersede
        b.use(b.add(f"{user.title()} lives in Toronto.", user=user, key="home.city"), 3, 4)
    seat = [b.add(f"Alice prefers {s} seats.", age=60, updated_age=u, type="preference", key="travel.seat")
            for s, u in (("aisle", 50), ("window", 20))]
    exp.supersede_key[seat[1]] = {seat[0]}
    same = sorted(b.add(f"Alice's team is {t}.", age=30, key="work.team") for t in ("Growth", "Payments"))
    exp.supersede_key[same[1]] = {same[0]}  # identical times: the larger id wins
    deploy = [b.add(f"The shop deploys on {d}.", age=a, scope="project", project="shop", key="deploy.day")
              for d, a in (("Tuesdays", 90), ("Thursdays", 9))]
    exp.supersede_key[deploy[1]] = {deploy[0]}
    db = [b.add(f"The shop uses {d}.", age=a, scope="project", project="shop", type="decision",
                key="db.choice") for d, a in (("MySQL", 200), ("PostgreSQL", 20))]
    exp.supersede_key[db[1]] = {db[0]}
    for winner in exp.supersede_key:
        b.use(winner, 4, 3)
    for editor in ("vim", "emacs", "vscode"):  # a history key keeps every version
        b.use(b.add(f"Bob used {editor}.", user="bob", type="habit", key=HISTORY_KEY), 2, 5)
    phone = [b.add(f"Dave's phone is a {p}.", user="dave", age=a, key="phone", expires=e)
             for p, a, e in (("Pixel", 50, None), ("Fairphone", 2, b.at(-1)))]
    exp.expire.add(phone[1])  # the newest version expired first, so nothing is left to supersede
    b.use(phone[0], 2, 3)


def _plant_sessions(b: _Builder, exp: Expected) -> None:
    s = {"scope": "session", "expires": b.at(5), "age": 1}
    two = b.add("Alice is comparing trains to Porto.", session="s1", **s)
    b.use(two, 3, 0.5, ("s1", "s2"))
    exp.promote[two] = "user"
    proj = b.add("Carol is tuning the checkout cache.", user="carol", project="shop", session="s7", **s)
    b.use(proj, 5, 0.2, ("s7", "s8", "s9"))
    exp.promote[proj] = "project"
    exp.promote[b.add("Alice wants the packing list kept.", session="s3", tags=["remember"], **s)] = "user"
    flagged = b.add("Bob is reading about CRDTs.", user="bob", session="s4", extra={"remember": True}, **s)
    exp.promote[flagged] = "user"
    b.use(b.add("Alice is choosing a hotel.", session="s5", **s), 2, 0.1, ("s5", "s5"))
    b.use(b.add("Alice keeps her receipts.", tags=["remember"]), 1, 1)  # not a session memory


_WEATHER = [
    "Alice asked about the weather in Lisbon.",
    "Alice asked for the Lisbon weather forecast.",
    "Alice wanted to know what the weather in Lisbon is like.",
    "Alice asked whether the weather in Lisbon would be good.",
    "Alice checked the weather forecast for Lisbon.",
    "Alice asked how the weather in Lisbon looks.",
]
# Distinct facts that look alike (other days, another city): never one summary (issue 22).
_WEATHER_DAYS = [
    "Alice asked for the weather in Lisbon this morning.",
    "Alice wanted to know if it will rain in Lisbon today.",
    "Alice asked for the weather in Porto for the weekend.",
    "Alice asked what the weather would be like in Lisbon tomorrow.",
]
_STAGING = [
    "The staging database is refreshed every night.",
    "Staging gets a fresh copy of the database each night.",
    "The staging database copy is rebuilt nightly from a masked snapshot.",
    "Nightly jobs refresh the staging database.",
]
_COFFEE = [
    "Alice likes oat milk in her coffee.",
    "Alice drinks flat whites with oat milk.",
    "Alice orders oat milk coffee.",
    "Alice prefers oat milk over dairy.",
    "Alice takes her coffee with oat milk.",
]


def _plant_clusters(b: _Builder, exp: Expected) -> None:
    exp.consolidate.append(set(b.cluster(_WEATHER, type="event", used=False)))
    exp.consolidate.append(set(b.cluster(_STAGING, scope="project", project="shop")))
    coffee = b.cluster(_COFFEE, type="preference")
    pinned = b.memories[-5]
    pinned.importance = 1.0  # the pinned member stays; the other four still form a cluster
    exp.pinned.add(pinned.id)
    exp.consolidate.append(set(coffee) - {pinned.id})
    exp.protected.update(b.cluster([f"Bob must never deploy on {d}." for d in ("Fridays", "Friday evenings",
                                    "Friday afternoons", "the Friday before a holiday", "late Fridays")],
                                   user="bob", type="constraint", used=False))
    _plant_near_clusters(b, exp)


def _plant_near_clusters(b: _Builder, exp: Expected) -> None:
    """Related memories that must not be consolidated."""
    b.cluster(_WEATHER_DAYS, type="event", user="alice", used=False)  # four facts: other days, another city
    left = b.cluster([f"Bob runs {w} mornings." for w in ("on Monday", "on Tuesday", "early")],
                     user="bob", type="habit")
    right = b.cluster([f"Bob swims {w}." for w in ("on Fridays", "weekly", "at the lido")],
                      user="bob", type="habit")
    b.similarity[(left[-1], right[0])] = 0.85  # single-link would chain them into six
    split = b.cluster(["Carol knows Rust.", "Carol writes Rust daily."], user="carol", type="skill")
    split += b.cluster(["Dave knows Rust.", "Dave writes Rust daily."], user="dave", type="skill")
    b.link(split, 0.9, 0.95)  # similar, but two owners
    mixed = b.cluster(["Erin bikes to work.", "Erin cycles daily."], user="erin", type="habit")
    mixed += b.cluster(["Erin owns a bike.", "Erin has a road bike."], user="erin", type="fact")
    b.link(mixed, 0.9, 0.95)  # similar, but two types
    b.cluster(["Wei uses PyTorch.", "Wei trains models in PyTorch.", "Wei prefers PyTorch."],
              user="wei", type="skill")  # only three
    ctx = b.cluster([f"Alice is planning the offsite {w}." for w in ("agenda", "venue", "budget", "dates")],
                    type="context")
    b.memories[-4].expires = b.at(-3)  # expired first, leaving three
    exp.expire.add(ctx[0])


def _plant_low_importance(b: _Builder, exp: Expected) -> None:
    for i, (age, conf) in enumerate(((200, 0.3), (260, 0.5), (320, 0.4), (400, 0.6), (365, 0.2), (230, 0.35))):
        exp.archive_low_importance.add(b.add(f"{USERS[i].title()} once mentioned podcast episode {i}.", age=age,
                                             confidence=conf, user=USERS[i], type="event"))
    once = b.add("Bob tried a standing desk.", age=400, user="bob", type="habit", confidence=0.5)
    b.use(once, 1, 300)
    exp.archive_low_importance.add(once)
    exp.archive_low_importance.add(b.add("Alice likes the colour teal.", age=120, importance=0.05,
                                         type="preference"))
    better = b.add("The pipeline retries failed tasks three times.", age=300, confidence=0.8,
                   scope="project", project="pipeline")
    b.use(better, 5, 3)
    weaker = b.add("Failed pipeline tasks are retried three times.", age=300, confidence=0.8,
                   scope="project", project="pipeline")
    b.similarity[(weaker, better)] = 0.97
    exp.archive_low_importance.add(weaker)  # fine alone, but a near-copy of a better memory
    b.add("Pipeline tasks time out after an hour.", age=300, confidence=0.8, scope="project",
          project="pipeline")  # same score as `weaker`, but unique: kept
    exp.pinned.add(b.add("Alice's emergency contact is Rui.", age=500, confidence=0.3, importance=1.0))
    for kind in ("constraint", "decision"):
        exp.protected.add(b.add(f"An old {kind} nobody uses.", age=500, confidence=0.3, type=kind))
    b.add("Alice's passport number is stored in the vault.", age=500, importance=0.9)
    b.add("Alice joined a new team today.", age=1, confidence=0.0)  # grace period


def _plant_inactive(b: _Builder, exp: Expected) -> None:
    for status in ("superseded", "merged", "expired", "archived"):
        exp.inactive.add(b.add(f"An old {status} note.", age=400, confidence=0.1, status=status,
                               key="home.city", expires=b.at(-30)))


def _filler(b: _Builder, k: int) -> str:
    rng = b.rng
    age = rng.uniform(0, 400)
    owner: dict[str, Any]
    if rng.random() < 0.2:
        owner = {"scope": "project", "project": rng.choice(PROJECTS), "user": None}
    elif rng.random() < 0.05:
        owner = {"scope": "session", "user": rng.choice(USERS), "session": f"f{k}", "expires": b.at(3)}
        age = rng.uniform(0, 3)
    else:
        owner = {"user": rng.choice(USERS)}
    who = (owner.get("project") or owner["user"]).title()
    extra = {"importance": round(rng.uniform(0.5, 0.9), 2)} if rng.random() < 0.05 else {}
    memory_id = b.add(f"{who} {rng.choice(_VERBS)} the {rng.choice(_NOUNS)} (note {k}).", age=age,
                      updated_age=rng.uniform(0, age), type=rng.choice(FILLER_TYPES),
                      confidence=round(rng.uniform(0.7, 1.0), 2), **owner, **extra)
    b.use(memory_id, rng.randint(1, 20), rng.uniform(0, min(20.0, age)), (f"f{k}",))
    return memory_id


def _link_filler(b: _Builder, ids: list[str]) -> None:
    """Loosely related filler pairs (cosine < 0.45): realistic, but below every threshold."""
    peers: dict[tuple[str, str], list[str]] = {}
    by_id = {m.id: m for m in b.memories}
    for i in ids:
        peers.setdefault((by_id[i].owner, by_id[i].type), []).append(i)
    for group in peers.values():
        for a in group:
            for c in b.rng.sample(group, min(3, len(group))):
                if c != a:
                    b.similarity[(a, c)] = round(b.rng.uniform(0.05, 0.45), 4)


def make_memories(
    n: int = 1000, seed: int = 0, now: datetime = NOW,
) -> tuple[list[Memory], dict[str, Usage], dict[tuple[str, str], float], Expected]:
    """`n` memories (planted cases plus filler), their usage and similarities, and what compact must do."""
    b, exp = _Builder(seed, now), Expected()
    for plant in (_plant_expiry, _plant_keys, _plant_sessions, _plant_clusters, _plant_low_importance,
                  _plant_inactive):
        plant(b, exp)
    if n < len(b.memories):
        raise ValueError(f"n must be at least {len(b.memories)} (the planted cases)")
    _link_filler(b, [_filler(b, k) for k in range(n - len(b.memories))])
    order = list(b.memories)
    b.rng.shuffle(order)  # the planner must not depend on input order
    return order, b.usage, b.similarity, exp


def write_directory(root: Path, memories: list[Memory]) -> list[Path]:
    """Write memories as files (`users/<user>/<slug>-<id>.md`, `projects/<p>/...`); inactive ones to archive/."""
    directory = MemctlLayout(root)
    paths = []
    for memory in memories:
        path = directory.new_path(memory, archived=memory.status != "active")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialise_memory(memory), encoding="utf-8")
        paths.append(path)
    return paths
