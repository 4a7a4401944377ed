"""LoCoMo recall benchmark: how often memctl's recall finds the memories a question's answer is in.

Usage: python bench/locomo.py FILE [--json] [--conversations N] [--modes keyword,semantic,hybrid]
                               [--weights KW,SEM]

Each conversation gets a fresh memory directory; each speaker is a user; each observation is a
`fact` memory dated by its session and carrying its dia_ids as `source_ids`, written through
`MemoryStore.add_raw` (validated, atomic, no gate: the observations are trusted data, and the
duplicate/supersede decision would merge distinct observations). Every question (category 5 and
questions without evidence left out) is a recall over the conversation's two users, k=10.
recall@k = share of the question's evidence ids covered by the top k memories' source_ids.
The LoCoMo data is CC BY-NC 4.0: it is read from FILE, never copied into the project.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

MODES = ("keyword", "semantic", "hybrid")
FILTERED = "hybrid held back"  # hybrid as recall returns it: hits below min_relevance dropped
CUTOFFS = (1, 5, 10)
K = 10
EXCLUDED_CATEGORIES = {5}
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_DATE_RE = re.compile(r"(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})", re.I)
_ID_RE = re.compile(r"D\d+:\d+")


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


def parse_locomo_date(text: str) -> datetime:
    """A LoCoMo session time ("1:56 pm on 8 May, 2023") as an aware UTC datetime."""
    match = _DATE_RE.search(text)
    if not match:
        raise ValueError(f"not a LoCoMo date: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    hour = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    month_no = datetime.strptime(month[:3].title(), "%b").month
    return datetime(int(year), month_no, int(day), hour, int(minute), tzinfo=timezone.utc)


def user_name(speaker: str) -> str:
    """A valid memctl user name for a speaker: letters, digits, . _ @ - only, lower case."""
    folded = "".join(c for c in unicodedata.normalize("NFKD", speaker) if not unicodedata.combining(c))
    name = re.sub(r"[^A-Za-z0-9._@-]+", "-", folded.strip()).strip("-._@").lower()
    return (name or "speaker")[:64]


def split_ids(raw: Any) -> list[str]:
    """Dialogue ids from a string ("D8:6; D9:17") or a list of them, in order, without repeats."""
    items = raw if isinstance(raw, list) else [raw]
    found = [i for item in items for i in _ID_RE.findall(str(item))]
    return list(dict.fromkeys(found))


def observations(sample: dict) -> Iterable[tuple[str, str, list[str], datetime]]:
    """(speaker, fact, dia_ids, session time) for every observation of a conversation."""
    conv = sample["conversation"]
    for key, by_speaker in sample["observation"].items():
        session = key.removesuffix("_observation")
        created = parse_locomo_date(conv[f"{session}_date_time"])
        for speaker, facts in by_speaker.items():
            for fact, ids in facts:
                if str(fact).strip():
                    yield speaker, str(fact), split_ids(ids), created


def questions(sample: dict) -> list[Question]:
    """The questions counted: category 5 and questions without evidence are left out."""
    out = []
    for qa in sample["qa"]:
        evidence = split_ids(qa.get("evidence") or [])
        if qa["category"] not in EXCLUDED_CATEGORIES and evidence:
            out.append(Question(qa["question"], int(qa["category"]), evidence))
    return out


def set_fusion_weights(root: Path, weights: tuple[float, float]) -> None:
    """Override [recall] keyword_weight / semantic_weight in a benchmark directory's memctl.toml."""
    path = root / "memctl.toml"
    text = path.read_text(encoding="utf-8")
    for key, value in zip(("keyword_weight", "semantic_weight"), weights):
        text, n = re.subn(rf"(?m)^{key}\s*=.*$", f"{key} = {value}", text)
        if n != 1:
            raise ValueError(f"memctl.toml has no single {key} line to override")
    path.write_text(text, encoding="utf-8")


def set_embedder(root: Path, spec: str) -> None:
    """Use `spec` in a benchmark directory: MODEL (an [embedding] model name, e.g. hashing; no second
    model) or MODEL+SECOND (recall fuses SECOND too); "default" keeps memctl.toml's settings."""
    if spec == "default":
        return
    model, _, second = spec.partition("+")
    path = root / "memctl.toml"
    text = path.read_text(encoding="utf-8").replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{model}"', 1)
    text = text.replace('second_model = "auto"', f'second_model = "{second or "none"}"', 1)
    path.write_text(text, encoding="utf-8")


def load_conversation(sample: dict, root: Path, weights: tuple[float, float] | None = None,
                      embedder: str = "default") -> tuple[Any, list[str]]:
    """A fresh memory directory at `root` holding the conversation's observations; (store, users)."""
    from memctl.api import MemoryStore, init_directory

    init_directory(root)
    set_embedder(root, embedder)
    if weights is not None:
        set_fusion_weights(root, weights)
    store = MemoryStore(root)
    users = speaker_users(sample["conversation"])
    for speaker, fact, ids, created in observations(sample):
        store.add_raw(fact, type="fact", user=users.get(speaker) or user_name(speaker), created=created,
                      updated=created, source="import", source_ids=ids)
    return store, list(users.values())


def speaker_users(conv: dict) -> dict[str, str]:
    """Speaker -> user name; two speakers whose names sanitise alike still get distinct users."""
    a, b = conv["speaker_a"], conv["speaker_b"]
    name_a, name_b = user_name(a), user_name(b)
    return {a: name_a, b: name_b if name_b != name_a else f"{name_b[:62]}-2"}


def recall_at(hit_ids: Sequence[Sequence[str]], evidence: Sequence[str], k: int) -> float:
    """Share of `evidence` covered by the source ids of the first k hits."""
    covered = {i for ids in hit_ids[:k] for i in ids}
    return sum(e in covered for e in evidence) / len(evidence)


def score_conversation(store: Any, users: list[str], qs: list[Question], modes: Sequence[str]) -> list[dict]:
    """One row per question and mode: category, mode and recall at each cutoff, over the ranking
    (nothing held back); hybrid also as recall returns it by default ("hybrid held back": a second
    recall with the directory's `min_relevance`, so what is held back is what `recall` holds back:
    below min_relevance when no hit reaches it, else below the follow line, and any hit about
    someone else)."""
    rows = []
    for q in qs:
        for mode in modes:
            result = store.recall(q.text, users=users, k=K, mode=mode, record_usage=False, min_relevance=0.0)
            hit_ids = [h.memory.source_ids for h in result.hits]
            rows.append({"category": q.category, "mode": mode,
                         **{f"R@{c}": recall_at(hit_ids, q.evidence, c) for c in CUTOFFS}})
            if mode == "hybrid":
                shown = store.recall(q.text, users=users, k=K, mode=mode, record_usage=False).hits
                kept = [h.memory.source_ids for h in shown if h.memory is not None]
                rows.append({"category": q.category, "mode": FILTERED,
                             **{f"R@{c}": recall_at(kept, q.evidence, c) for c in CUTOFFS}})
    return rows


def negative_clean(store: Any, negatives: list[Question]) -> list[bool]:
    """For each question of another conversation: True when `context` injects no recalled memory.

    No user is named, so recall searches the whole directory (this conversation's two users) and
    the block holds no profile: what is measured is the recalled memories alone."""
    return [not store.context(q.text)["items"] for q in negatives]


def run(path: Path, conversations: int | None, modes: Sequence[str],
        weights: tuple[float, float] | None = None, embedder: str = "default") -> tuple[list[dict], list[bool]]:
    """Every counted question of the first `conversations` samples, scored for each mode, and the
    negative queries: each conversation is also asked the next conversation's questions."""
    samples = json.loads(path.read_text(encoding="utf-8"))[:conversations]
    rows: list[dict] = []
    clean: list[bool] = []
    for n, sample in enumerate(samples):
        with tempfile.TemporaryDirectory(prefix="memctl-locomo-") as tmp:
            store, users = load_conversation(sample, Path(tmp) / "mem", weights, embedder)
            rows += score_conversation(store, users, questions(sample), modes)
            if len(samples) > 1 and "hybrid" in modes:
                clean += negative_clean(store, questions(samples[(n + 1) % len(samples)]))
    return rows, clean


def average(rows: list[dict]) -> dict[str, float]:
    """Mean recall at each cutoff as a percentage with one decimal."""
    return {f"R@{c}": round(100 * sum(r[f"R@{c}"] for r in rows) / max(len(rows), 1), 1) for c in CUTOFFS}


def summarise(rows: list[dict], clean: Sequence[bool] = (), *, modes: Sequence[str]) -> dict[str, Any]:
    """The --json object: question count, overall recall per mode, per category, and the share of
    negative queries for which context injects no memory (with the hybrid recall it returns)."""
    modes = [*modes, FILTERED] if "hybrid" in modes else list(modes)
    by_mode: dict[str, list[dict]] = defaultdict(list)
    by_cat: dict[int, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by_mode[r["mode"]].append(r)
        by_cat[r["category"]][r["mode"]].append(r)
    out: dict[str, Any] = {"questions": len(by_mode[modes[0]]) if modes else 0}
    out.update({m: average(by_mode[m]) for m in modes})
    out["by_category"] = {str(c): {"questions": len(by_cat[c][modes[0]]), **{m: average(by_cat[c][m]) for m in modes}}
                          for c in sorted(by_cat)}
    if clean:
        out["negative_questions"] = len(clean)
        out["negative_clean"] = round(100 * sum(clean) / len(clean), 1)
    return out


def render(summary: dict[str, Any], modes: Sequence[str], embedder: str) -> None:
    """Rich tables: one per category and one overall, a row per mode; then the negative queries."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    modes = [*modes, FILTERED] if "hybrid" in modes else list(modes)
    console.print(f"[bold underline]embedder: {embedder}[/bold underline]")
    sections = [(f"category {c} {CATEGORY_NAMES.get(int(c), '?')} ({v['questions']} questions)", v)
                for c, v in summary["by_category"].items()]
    sections.append((f"overall ({summary['questions']} questions)", summary))
    for title, data in sections:
        console.print(f"[bold]{title}[/bold]")
        table = Table()
        for col in ("mode", *(f"R@{c}" for c in CUTOFFS)):
            table.add_column(col, justify="left" if col == "mode" else "right")
        for m in modes:
            table.add_row(m, *(f"{data[m][f'R@{c}']:.1f}" for c in CUTOFFS))
        console.print(table)
    if "negative_clean" in summary:
        console.print(f"negative queries ({summary['negative_questions']}, another conversation's questions): "
                      f"context injects no memory for {summary['negative_clean']:.1f}%")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="LoCoMo recall@1/5/10 of memctl recall, per mode.")
    parser.add_argument("file", type=Path, help="a LoCoMo-format JSON file (e.g. locomo10.json)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    parser.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated: keyword,semantic,hybrid")
    parser.add_argument("--weights", default=None, metavar="KW,SEM",
                        help="override the fusion weights (default: the memctl.toml defaults)")
    parser.add_argument("--embedder", default=None, metavar="SPEC[,SPEC...]",
                        help="embedders to compare, each MODEL or MODEL+SECOND (e.g. hashing; default: the "
                             "shipped model, and with the multilingual extra also it alone and both fused)")
    args = parser.parse_args(argv)
    if args.weights is not None:
        try:
            kw, sem = (float(x) for x in args.weights.split(","))
        except ValueError:
            parser.error("--weights takes two numbers: KW,SEM")
        args.weights = (kw, sem)
    args.modes = [m.strip() for m in args.modes.replace(" ", ",").split(",") if m.strip()]
    if not args.modes or set(args.modes) - set(MODES):
        parser.error(f"--modes takes {', '.join(MODES)}")
    args.embedder = [e.strip() for e in (args.embedder or ",".join(default_embedders())).split(",") if e.strip()]
    return args


def default_embedders() -> list[str]:
    """The shipped configuration first (what `memctl init` gives), then the models alone."""
    from memctl.search.embedders import DEFAULT_MODEL, MULTILINGUAL_MODEL, multilingual_installed

    if not multilingual_installed():
        return [DEFAULT_MODEL]
    return [f"{DEFAULT_MODEL}+{MULTILINGUAL_MODEL}", DEFAULT_MODEL, MULTILINGUAL_MODEL]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print tables or JSON."""
    args = parse_args(argv)
    summaries = {e: summarise(*run(args.file, args.conversations, args.modes, args.weights, e), modes=args.modes)
                 for e in args.embedder}
    if args.json:  # the first embedder's figures at the top level, every embedder's under "embedders"
        first = summaries[args.embedder[0]]
        sys.stdout.write(json.dumps({**first, "embedder": args.embedder[0], "embedders": summaries}) + "\n")
    else:
        for embedder, summary in summaries.items():
            render(summary, args.modes, embedder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
