"""Chinese recall: can memctl find a memory from a paraphrase that shares no character with it?

Usage: python bench/cjk.py [--json] [--embedder SPEC[,SPEC...]] [--language zh|en] [--data bench/data/cjk.json]

bench/data/cjk.json holds Chinese memories written for memctl and queries that paraphrase one of
them without sharing a single character (checked here), so keyword search (CJK bigrams) cannot
find the target and any recall of it is semantic. Every memory goes into one fresh directory; each
query is a recall (k=5, nothing held back) per mode; recall@k = the share of queries whose target
is in the top k; the row "hybrid held back" counts the hybrid hits as `recall` returns them by
default (below `[recall] min_relevance` held back). A data file may also list `negatives`, queries
about things its memories never mention: the row "negatives clean" is the share of them for which
hybrid recall, as `recall` returns it by default, shows nothing (bench/data/cjk_fresh.json, an
independent set written blind, has them; run it with --data). SPEC is MODEL or MODEL+SECOND, as in
bench/locomo.py. The directories are `language = "zh"` (there recall uses the multilingual model
alone when it is the second model); `--language en` shows both models fused.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import unicodedata
from pathlib import Path
from typing import Any, Sequence

DATA = Path(__file__).resolve().parent / "data" / "cjk.json"
MODES = ("keyword", "semantic", "hybrid")
# Row name -> (recall mode, min_relevance: 0 holds nothing back, None is the directory's default).
RUNS: dict[str, tuple[str, float | None]] = {**{m: (m, 0.0) for m in MODES}, "hybrid held back": ("hybrid", None)}
CUTOFFS = (1, 5)


def characters(text: str) -> set[str]:
    """The letters, digits and CJK characters of a text (punctuation is not content)."""
    return {c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum()}


def check(data: dict) -> None:
    """Refuse a data set where a query shares a character with its target."""
    for q in data["queries"]:
        shared = characters(q["q"]) & characters(data["memories"][q["target"]])
        if shared:
            raise ValueError(f"query {q['q']!r} shares {''.join(sorted(shared))!r} with its target")


def configure(root: Path, spec: str, language: str = "zh") -> None:
    """[embedding] model (and second_model) from MODEL or MODEL+SECOND, and [memory] language."""
    model, _, second = spec.partition("+")
    path = root / "memctl.toml"
    text = path.read_text(encoding="utf-8").replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{model}"', 1)
    text = text.replace('second_model = "auto"', f'second_model = "{second or "none"}"', 1)
    path.write_text(text.replace('language = "en"', f'language = "{language}"', 1), encoding="utf-8")


def score(data: dict, spec: str, language: str = "zh") -> dict[str, Any]:
    """Recall@1/5 per mode for one embedder spec."""
    from memctl.api import MemoryStore, init_directory

    with tempfile.TemporaryDirectory(prefix="memctl-cjk-") as tmp:
        root = Path(tmp) / "mem"
        init_directory(root)
        configure(root, spec, language)
        store = MemoryStore(root)
        ids = [store.add_raw(text, type="fact", user="wang", source="import").id for text in data["memories"]]
        out: dict[str, Any] = {}
        for row, (mode, min_relevance) in RUNS.items():
            ranks = []
            for q in data["queries"]:
                hits = store.recall(q["q"], k=5, mode=mode, record_usage=False, min_relevance=min_relevance).hits
                ranked = [h.id for h in hits]
                ranks.append(ranked.index(ids[q["target"]]) + 1 if ids[q["target"]] in ranked else None)
            out[row] = {f"R@{c}": round(100 * sum(r is not None and r <= c for r in ranks) / len(ranks), 1)
                         for c in CUTOFFS}
        if data.get("negatives"):
            out["negatives clean"] = negatives_clean(store, data["negatives"])
    return out


def negatives_clean(store: Any, negatives: Sequence[str]) -> float:
    """The share (%) of negative queries hybrid recall returns nothing for by default (min_relevance held back)."""
    empty = sum(not store.recall(q, k=5, mode="hybrid", record_usage=False, min_relevance=None).hits for q in negatives)
    return round(100 * empty / len(negatives), 1)


def main(argv: Sequence[str] | None = None) -> int:
    """Score every embedder spec and print a table or JSON."""
    parser = argparse.ArgumentParser(description="Chinese paraphrase recall of memctl, per embedder and mode.")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--embedder", default=None, metavar="SPEC[,SPEC...]",
                        help="MODEL or MODEL+SECOND (default: the shipped model, the multilingual one, both)")
    parser.add_argument("--language", choices=("zh", "en"), default="zh", help="[memory] language of the directories")
    args = parser.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    check(data)
    specs = [s.strip() for s in (args.embedder or ",".join(default_specs())).split(",") if s.strip()]
    results = {spec: score(data, spec, args.language) for spec in specs}
    if args.json:
        counts = {key: len(data[key]) for key in ("memories", "queries", "negatives") if key in data}
        sys.stdout.write(json.dumps({**counts, "language": args.language, "embedders": results}) + "\n")
        return 0
    print(f"{len(data['memories'])} memories, {len(data['queries'])} queries sharing no character with their target")
    for spec, result in results.items():
        print(spec)
        for row in RUNS:
            print(f"  {row:16s} " + "  ".join(f"R@{c} {result[row][f'R@{c}']:5.1f}" for c in CUTOFFS))
        if "negatives clean" in result:
            print(f"  {'negatives clean':16s} {result['negatives clean']:5.1f}% of {len(data['negatives'])} show nothing")
    return 0


def default_specs() -> list[str]:
    """The shipped model; with the multilingual extra, also the multilingual model alone and both."""
    from memctl.search.embedders import DEFAULT_MODEL, MULTILINGUAL_MODEL, multilingual_installed

    if not multilingual_installed():
        return [DEFAULT_MODEL]
    return [DEFAULT_MODEL, MULTILINGUAL_MODEL, f"{DEFAULT_MODEL}+{MULTILINGUAL_MODEL}"]


if __name__ == "__main__":
    sys.exit(main())
