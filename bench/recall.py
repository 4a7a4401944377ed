"""Relevance on stores memctl never saw: what recall ranks, what it returns by default, and what a
query about nothing stored injects; per language and per shape of query.

Usage: python bench/recall.py [--json] [--lang en,zh] [--split dev|test|all] [--embedder SPEC,...]
                              [--data bench/data/recall] [--stores NAME,...]

bench/data/recall/<lang>/ holds memory stores and queries written by helpers who never read
memctl's rules (stores.jsonl: one memory a line, with its store, type, created date and state;
queries.jsonl: one query a line, its shape (question, task, dialogue: a few lines of a
conversation), the ids of the memories that answer it, or `negative` with `neg_kind`
(absent-entity: it names someone or something the store never mentions; unrelated), and its
`split`: dev (what the relevance calibration may be fitted on) or test (held out: run only for
these aggregate figures, never looked at item by item).

Each store is a fresh directory (`language` = the data's language) with one user. Each positive
query is a recall over that user: ranked R@5 is the share of its relevant memories among the top
5 with nothing held back; default R@5 the same for `recall` as it returns by default (hits below
`[recall] min_relevance` held back). Each negative is a `context` with no user (the directory holds
only that store): clean when it injects no memory. SPEC as in bench/locomo.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Sequence

DATA = Path(__file__).resolve().parent / "data" / "recall"
SHAPES = ("question", "task", "dialogue")
K = 5


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_set(folder: Path) -> tuple[dict[str, list[dict]], list[dict]]:
    """(store -> its memories in file order, queries) of one language's data."""
    stores: dict[str, list[dict]] = defaultdict(list)
    for memory in read_jsonl(folder / "stores.jsonl"):
        stores[memory["store"]].append(memory)
    return dict(stores), read_jsonl(folder / "queries.jsonl")


def configure(root: Path, spec: str, language: str) -> None:
    """[embedding] model / second_model from SPEC ("default": as `memctl init` writes them) and
    [memory] language."""
    path = root / "memctl.toml"
    text = path.read_text(encoding="utf-8").replace('language = "en"', f'language = "{language}"', 1)
    if spec != "default":
        model, _, second = spec.partition("+")
        text = text.replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{model}"', 1)
        text = text.replace('second_model = "auto"', f'second_model = "{second or "none"}"', 1)
    path.write_text(text, encoding="utf-8")


def user_of(store: str) -> str:
    return "".join(c if c.isalnum() or c in "._@-" else "-" for c in store.lower()).strip("-._@") or "user"


def when(text: str | None) -> datetime | None:
    if not text:
        return None
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def build_store(root: Path, memories: Iterable[dict], spec: str, language: str) -> tuple[Any, dict[str, str]]:
    """A fresh directory holding one store's memories: (store, data id -> memctl id)."""
    from memctl.api import MemoryStore, init_directory

    init_directory(root)
    configure(root, spec, language)
    store = MemoryStore(root)
    ids = {}
    for m in memories:
        created = when(m.get("created"))
        extra: dict[str, Any] = {"created": created, "updated": created} if created else {}
        if m.get("state") and m["state"] != "active":
            extra["state"] = m["state"]
        ids[m["id"]] = store.add_raw(m["text"], type=m.get("type") or "fact", user=user_of(m["store"]),
                                     source="import", **extra).id
    return store, ids


def recall_share(hits: Sequence[Any], wanted: set[str]) -> float:
    """The share of `wanted` among the hits' ids."""
    return len(wanted & {h.id for h in hits}) / len(wanted) if wanted else 0.0


def score_store(store: Any, user: str, ids: dict[str, str], queries: list[dict]) -> list[dict]:
    """One row per query: language, shape, split, and ranked / default R@5 or clean."""
    rows = []
    for q in queries:
        row = {"lang": q.get("lang"), "shape": q["shape"], "split": q["split"], "negative": bool(q.get("negative"))}
        if row["negative"]:
            row["clean"] = not store.context(q["query"])["items"]
        else:
            wanted = {ids[i] for i in q["relevant"] if i in ids}
            ranked = store.recall(q["query"], users=[user], k=K, min_relevance=0.0, record_usage=False).hits
            default = store.recall(q["query"], users=[user], k=K, record_usage=False).hits
            row.update(ranked=recall_share(ranked, wanted), default=recall_share(default, wanted))
        rows.append(row)
    return rows


def run(data: Path, language: str, spec: str, split: str, only: set[str] | None = None) -> list[dict]:
    """Every query of the split, over its own store (only the stores named in `only`, when given)."""
    stores, queries = load_set(data / language)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="memctl-recall-bench-") as tmp:
        for n, (name, memories) in enumerate(sorted(stores.items())):
            asked = [q for q in queries if q["store"] == name and (split == "all" or q["split"] == split)]
            if not asked or (only and name not in only):
                continue
            store, ids = build_store(Path(tmp) / f"s{n}", memories, spec, language)
            rows += [{**r, "set": language} for r in score_store(store, user_of(name), ids, asked)]
    return rows


def summarise(rows: list[dict]) -> dict[str, Any]:
    """Per shape and overall: positives, ranked and default R@5 (percent), negatives, clean (percent)."""
    out: dict[str, Any] = {}
    for shape in (*SHAPES, "all"):
        part = [r for r in rows if shape == "all" or r["shape"] == shape]
        pos, neg = [r for r in part if not r["negative"]], [r for r in part if r["negative"]]
        out[shape] = {"queries": len(pos), "ranked R@5": _pct(r["ranked"] for r in pos),
                      "default R@5": _pct(r["default"] for r in pos), "negatives": len(neg),
                      "negative_clean": _pct(r["clean"] for r in neg)}
    return out


def _pct(values: Iterable[float]) -> float | None:
    items = list(values)
    return round(100 * sum(items) / len(items), 1) if items else None


def render(results: dict[str, dict[str, Any]]) -> None:
    print("set | split | embedder | shape | positives | ranked R@5 | default R@5 | lost | negatives | clean %")
    for key, summary in results.items():
        for shape, s in summary.items():
            lost = None if s["ranked R@5"] is None else round(s["ranked R@5"] - s["default R@5"], 1)
            print(f"{key} | {shape} | {s['queries']} | {s['ranked R@5']} | {s['default R@5']} | {lost} | "
                  f"{s['negatives']} | {s['negative_clean']}")


def default_embedders() -> list[str]:
    """What `memctl init` gives, and with the multilingual extra also the shipped model alone."""
    from memctl.search.embedders import DEFAULT_MODEL, multilingual_installed

    return ["default", DEFAULT_MODEL] if multilingual_installed() else ["default"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Relevance on held-out stores: ranked vs default R@5, negatives.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--lang", default="en,zh")
    parser.add_argument("--split", default="test", choices=("dev", "test", "all"))
    parser.add_argument("--embedder", default=None, metavar="SPEC[,SPEC...]")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--stores", default=None, metavar="NAME[,NAME...]", help="only these stores")
    args = parser.parse_args(argv)
    only = {name.strip() for name in args.stores.split(",")} if args.stores else None
    specs = [e.strip() for e in (args.embedder or ",".join(default_embedders())).split(",") if e.strip()]
    languages = [lang for lang in args.lang.split(",") if (args.data / lang / "queries.jsonl").exists()]
    results = {f"{lang} | {args.split} | {spec}": summarise(run(args.data, lang, spec, args.split, only))
               for spec in specs for lang in languages}
    if args.json:
        sys.stdout.write(json.dumps(results) + "\n")
    else:
        render(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
