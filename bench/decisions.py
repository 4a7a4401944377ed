"""The write decision on labelled pairs nobody tuned it on: changes caught, distinct facts kept
apart, duplicates merged; per split, source and language.

Usage: python bench/decisions.py [--split dev|test|all] [--json] [--show] [--llm CMD] [--locomo PATH]

Each pair is (stored text, new text, label): "change" (a new value of the same attribute of the same
subject), "distinct" (another fact that looks alike) or "duplicate" (the same fact again). The stored
text is written to a fresh memory directory (one user per pair, so a pair's decision sees only its
own stored memory), then `MemoryStore.gate(new)` asks what `add` would do, with the shipped embedding
model's real cosines, the shipped thresholds and the rules alone (or `--llm CMD`, asked about the
cases the rules leave ambiguous, as `add --llm` does). The gate's length floor is lowered so that a
short Chinese statement is decided, not refused as too short.

- changes caught: the new memory supersedes the stored one or is linked to it as a possible conflict;
- distinct linked: a distinct pair superseded, merged or linked (the share that must stay low);
- duplicates merged: the new memory is a NOOP or an UPDATE of the stored one.

Sources:
- blind, blind2, ...: bench/data/decision_pairs_blind*.jsonl, each written by a helper who never read
  the rules (English and Chinese, each pair with its own `split`: tune on dev, report test); the
  source is the file's name after `decision_pairs_`;
- locomo: derived at run time from the LoCoMo dev slice (../shared/bench/locomo-dev.json, or --locomo;
  never copied here): two observations of one speaker in one session, from different dialogue turns
  and sharing words, are two facts the annotators wrote apart (label distinct); the first conversation
  is dev, the others test. Skipped, with a note, when the file is absent;
- table: bench/decision_pairs.py, written beside the rules (dev only: it shows what the rules claim,
  not how they generalise).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
BLIND = HERE / "data"  # decision_pairs_blind*.jsonl
LOCOMO = HERE.parent.parent / "shared" / "bench" / "locomo-dev.json"
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
LABELS = ("change", "distinct", "duplicate")


@dataclass(frozen=True)
class Pair:
    source: str
    split: str
    lang: str
    old: str
    new: str
    label: str
    ref: str  # where the pair comes from (an id: the texts of LoCoMo pairs are never printed for test)
    user: str = ""  # whose memories these are (the pair's person), when known


def blind_pairs(folder: Path = BLIND) -> list[Pair]:
    return [pair for path in sorted(folder.glob("decision_pairs_blind*.jsonl")) for pair in _blind_file(path)]


def _ref(source: str, ident: object) -> str:
    return str(ident) if source == "blind" else f"{source}:{ident}"  # the first file's ids as they were


def _blind_file(path: Path) -> list[Pair]:
    source = path.stem.removeprefix("decision_pairs_")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Pair(source, r["split"], r["lang"], r["old"], r["new"], r["label"], _ref(source, r["id"]),
                 str(r.get("user", ""))) for r in rows]


def table_pairs() -> list[Pair]:
    from decision_pairs import PAIRS

    def lang(text: str) -> str:
        return "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"

    return [Pair("table", "dev", lang(old), old, new, "change" if label == "change" else "distinct", f"table:{n}")
            for n, (old, new, _type, _cos, label) in enumerate(PAIRS)]


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if len(w) > 3}


def locomo_pairs(path: Path, per_session: int = 4) -> list[Pair]:
    """Two observations of one speaker in one session, from different turns, most alike in wording
    first (share of shared words >= 0.25): distinct facts by how the data set was written."""
    conversations = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for n, conv in enumerate(conversations):
        split = "dev" if n == 0 else "test"
        for session, speakers in sorted(conv["observation"].items()):
            for speaker, observations in sorted(speakers.items()):
                out.extend(_session_pairs(conv["sample_id"], session, speaker, observations, split, per_session))
    return out


def _session_pairs(sample: str, session: str, speaker: str, observations: list, split: str, limit: int) -> list[Pair]:
    items = [(str(text), str(ids)) for text, ids in observations]
    scored = []
    for i, (a, ia) in enumerate(items):
        for j, (b, ib) in enumerate(items[i + 1:], start=i + 1):
            wa, wb = _words(a), _words(b)
            overlap = len(wa & wb) / len(wa | wb) if wa | wb else 0.0
            if ia != ib and overlap >= 0.25:
                scored.append((-overlap, i, j))
    return [Pair("locomo", split, "en", items[i][0], items[j][0], "distinct", f"{sample}:{session}:{speaker}:{i}:{j}",
                 speaker.split()[0])
            for _, i, j in sorted(scored)[:limit]]


def owner_of(pair: Pair, n: int) -> str:
    """The memories' user: the person the pair is about when their name is a valid user name (so
    "Wendy's team" in Wendy's memories is her own), else one made up for the pair."""
    name = pair.user.casefold()
    return name if re.fullmatch(r"[a-z][a-z0-9._-]{0,40}", name) else f"p{n}"


def rounds(pairs: Sequence[Pair]) -> list[list[int]]:
    """Pair indexes in rounds where no user has two pairs, so no pair sees another's memory."""
    out: list[list[int]] = []
    used: list[set[str]] = []
    for n, pair in enumerate(pairs):
        owner = owner_of(pair, n)
        slot = next((k for k, names in enumerate(used) if owner not in names), None)
        if slot is None:
            out.append([])
            used.append(set())
            slot = len(out) - 1
        out[slot].append(n)
        used[slot].add(owner)
    return out


def decide_all(pairs: Sequence[Pair], llm: str | None) -> list[str]:
    """What the write path does with each pair: merged, superseded, linked or added."""
    from memctl.api import MemoryStore
    from memctl.store.directory import init_directory

    outcomes = [""] * len(pairs)
    with tempfile.TemporaryDirectory(prefix="memctl-decisions-") as tmp:
        os.environ["MEMCTL_CACHE_DIR"] = str(Path(tmp) / "cache")  # the directories' caches go with them
        for k, members in enumerate(rounds(pairs)):
            root = Path(tmp) / f"mem{k}"
            init_directory(root)
            store = MemoryStore(root)
            stored = {n: store.add_raw(pairs[n].old, type="fact", user=owner_of(pairs[n], n), created=T0,
                                       updated=T0).id for n in members}
            for n in members:
                outcomes[n] = _outcome(store, pairs[n], owner_of(pairs[n], n), stored[n], llm)
    return outcomes


def _outcome(store: Any, pair: Pair, owner: str, old_id: str, llm: str | None) -> str:
    result = store.gate(pair.new, type="fact", user=owner, llm=llm, overrides={"min_length": 1})
    decision = result.decision
    if decision.target == old_id and decision.action in ("noop", "update"):
        return "merged"
    if decision.target == old_id and decision.action == "supersede":
        return "superseded"
    return "linked" if old_id in decision.conflicts_with else "added"


def _share(hits: int, total: int) -> float | None:
    return round(100 * hits / total, 1) if total else None


def figures(rows: Iterable[tuple[Pair, str]]) -> dict[str, Any]:
    rows = list(rows)
    by = {label: [outcome for p, outcome in rows if p.label == label] for label in LABELS}
    return {
        "pairs": len(rows), "changes": len(by["change"]), "distinct": len(by["distinct"]),
        "duplicates": len(by["duplicate"]),
        "changes_caught": _share(sum(o in ("superseded", "linked") for o in by["change"]), len(by["change"])),
        "distinct_linked": _share(sum(o != "added" for o in by["distinct"]), len(by["distinct"])),
        "duplicates_merged": _share(sum(o == "merged" for o in by["duplicate"]), len(by["duplicate"])),
    }


def report(pairs: Sequence[Pair], outcomes: Sequence[str]) -> dict[str, Any]:
    rows = list(zip(pairs, outcomes))
    out: dict[str, Any] = {}
    for split in sorted({p.split for p in pairs}):
        part = [(p, o) for p, o in rows if p.split == split]
        groups: dict[str, Any] = {"all": figures(part)}
        for source in sorted({p.source for p, _ in part}):
            for lang in sorted({p.lang for p, _ in part if p.source == source}):
                groups[f"{source}/{lang}"] = figures((p, o) for p, o in part if p.source == source and p.lang == lang)
        out[split] = groups
    return out


def _cell(value: float | None, total: int) -> str:
    return "-" if value is None else f"{value:5.1f}% of {total}"


def render(result: dict[str, Any]) -> str:
    lines = []
    for split, groups in result.items():
        lines.append(f"split {split}")
        lines.append(f"  {'group':<14} {'changes caught':>18} {'distinct linked':>18} {'duplicates merged':>18}")
        for name, f in groups.items():
            lines.append(f"  {name:<14} {_cell(f['changes_caught'], f['changes']):>18} "
                         f"{_cell(f['distinct_linked'], f['distinct']):>18} {_cell(f['duplicates_merged'], f['duplicates']):>18}")
    return "\n".join(lines) + "\n"


def wrong(pairs: Sequence[Pair], outcomes: Sequence[str]) -> list[str]:
    """Dev pairs decided wrongly (never test pairs: the held-out split is not looked at)."""
    expected = {"change": ("superseded", "linked"), "distinct": ("added",), "duplicate": ("merged",)}
    return [f"  {p.ref} [{p.label} -> {o}] {p.old!r} -> {p.new!r}"
            for p, o in zip(pairs, outcomes) if p.split == "dev" and o not in expected[p.label]]


def gather(split: str, locomo: Path, notes: list[str]) -> list[Pair]:
    pairs = blind_pairs() + table_pairs()
    if locomo.is_file():
        pairs += locomo_pairs(locomo)
    else:
        notes.append(f"LoCoMo pairs skipped: {locomo} not found (the dev slice lives in ../shared/bench)")
    return [p for p in pairs if split == "all" or p.split == split]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="memctl write decision on held-out labelled pairs.")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="list the dev pairs decided wrongly")
    parser.add_argument("--llm", help="ask this command about the cases the rules leave ambiguous")
    parser.add_argument("--locomo", type=Path, default=LOCOMO)
    args = parser.parse_args(argv)
    if args.show and args.split != "dev":
        parser.error("--show lists dev pairs only: the test split is held out")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    notes: list[str] = []
    pairs = gather(args.split, args.locomo, notes)
    outcomes = decide_all(pairs, args.llm)
    result = report(pairs, outcomes)
    if args.json:
        sys.stdout.write(json.dumps({"splits": result, "notes": notes}, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(result) + "".join(f"note: {n}\n" for n in notes))
        if args.show:
            sys.stdout.write("\n".join(wrong(pairs, outcomes)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
