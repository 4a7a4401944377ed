"""Fit the relevance calibration (memctl/policy/relevance.py) on hand-written data.

Usage: python bench/calibrate.py [--json] [--data bench/data/calibration.json]

bench/data/calibration.json holds small memory sets written for memctl, each with questions and
the memories that answer them. Every set becomes a memory directory; every question is recalled
(hybrid, k=5, nothing held back) against its own set (positives: the answering memories among the
hits) and against every other set, and every off-topic query against every set (negatives: all
their hits). For every combination of signals a recall can have (each model's raw cosine, keyword
coverage) a logistic model is fitted with balanced class weights, so 0.5 means "as likely relevant
as not"; the suggested min_relevance keeps 95% of the relevant hits, and the share the shipped
`[recall] min_relevance` keeps is printed beside it. The LoCoMo data is never
used: its conversations are what bench/locomo.py reports.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

import numpy as np

DATA = Path(__file__).resolve().parent / "data" / "calibration.json"
# (label, [embedding] model, second_model): the shipped models, and the hashing embedder of the tests.
SETUPS = [("shipped", "memctl/all-MiniLM-L6-v2-int8", "multilingual-e5-small"), ("hashing", "hashing", "none")]


def configure(root: Path, model: str, second: str) -> None:
    """Set [embedding] model and second_model in a fresh directory's memctl.toml."""
    path = root / "memctl.toml"
    text = path.read_text(encoding="utf-8")
    text = text.replace('model = "memctl/all-MiniLM-L6-v2-int8"', f'model = "{model}"', 1)
    text = text.replace('second_model = "auto"', f'second_model = "{second}"', 1)
    path.write_text(text, encoding="utf-8")


def load_sets(data: dict, tmp: Path, model: str, second: str) -> list[tuple[Any, dict, list[str]]]:
    """One memory directory per set: (store, set, memory ids in the set's order)."""
    from memctl.api import MemoryStore, init_directory

    out = []
    for n, item in enumerate(data["sets"]):
        root = tmp / f"set{n}"
        init_directory(root)
        configure(root, model, second)
        store = MemoryStore(root)
        ids = [store.add_raw(text, type="fact", user=item["user"], source="import").id for text in item["memories"]]
        out.append((store, item, ids))
    return out


def labelled_hits(sets: list[tuple[Any, dict, list[str]]], off_topic: Sequence[str]) -> list[tuple[dict, int]]:
    """(hit components, 1 if it answers the question else 0) for every hit of every query."""
    rows = []
    for store, item, ids in sets:
        asked = [(q["q"], {ids[a] for a in q["a"]}) for q in item["questions"]]
        asked += [(q["q"], set()) for _, other, _ in sets if other is not item for q in other["questions"]]
        asked += [(text, set()) for text in off_topic]
        for query, answers in asked:
            result = store.recall(query, users=[item["user"]], k=5, min_relevance=0.0, record_usage=False)
            rows += [(hit.components, int(hit.id in answers)) for hit in result.hits]
    return rows


def fit_logistic(features: np.ndarray, labels: np.ndarray, l2: float = 1e-3) -> list[float]:
    """Balanced logistic regression by Newton's method: a weight per feature, then the intercept."""
    weights = np.where(labels == 1, 0.5 / max(labels.sum(), 1), 0.5 / max((1 - labels).sum(), 1))
    x = np.c_[features, np.ones(len(features))]
    penalty = l2 * np.diag([1.0] * features.shape[1] + [0.0])
    beta = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-x @ beta))
        step = np.linalg.solve((x * (weights * p * (1 - p))[:, None]).T @ x + penalty,
                               x.T @ (weights * (p - labels)) + penalty @ beta)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return [round(float(b), 3) for b in beta]


def signal_rows(label: str, model: str, second: str, data: dict) -> tuple[list[dict[str, float]], np.ndarray]:
    """Each hit's signals (model family -> raw cosine, "coverage" -> keyword coverage) and labels."""
    from memctl.policy.relevance import model_family

    with tempfile.TemporaryDirectory(prefix="memctl-calibrate-") as tmp:
        sets = load_sets(data, Path(tmp), model, second)
        identities = [identity for identity, _ in sets[0][0].search.semantic_runs("identity", 1, None)]
        rows = labelled_hits(sets, data["off_topic"])
    names = ["semantic", *(f"semantic{n}" for n in range(2, len(identities) + 1))]
    signals = [{**{model_family(i): c.get(f"{n}_score", 0.0) for n, i in zip(names, identities)},
                "coverage": c.get("coverage", 0.0)} for c, _ in rows]
    return signals, np.array([y for _, y in rows], dtype=float)


def calibrate(data: dict) -> dict[str, Any]:
    """A logistic model for every combination of signals a recall can have, and the threshold
    that keeps 95% of the relevant hits under the full model of the shipped setup."""
    from memctl.config import RecallSettings

    shipped = RecallSettings().min_relevance
    models: dict[str, list[float]] = {}
    threshold, kept = 0.5, 1.0
    for label, model, second in SETUPS:
        signals, labels = signal_rows(label, model, second, data)
        names = sorted(signals[0])
        for size in range(1, len(names) + 1):
            for combo in itertools.combinations(names, size):
                features = np.array([[row[n] for n in combo] for row in signals])
                beta = fit_logistic(features, labels)
                models[",".join(combo)] = beta
                if label == "shipped" and size == len(names):
                    relevance = 1 / (1 + np.exp(-(np.c_[features, np.ones(len(features))] @ np.array(beta))))
                    threshold = float(np.floor(np.percentile(relevance[labels == 1], 5) * 20) / 20)
                    kept = float(np.mean(relevance[labels == 1] >= shipped))
    return {"models": models, "min_relevance": threshold,
            "shipped_min_relevance": shipped, "relevant_kept_at_shipped": round(100 * kept, 1)}


def main(argv: Sequence[str] | None = None) -> int:
    """Fit and print the curves (paste them into memctl/policy/relevance.py)."""
    parser = argparse.ArgumentParser(description="Fit memctl's relevance calibration on hand-written data.")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    curves = calibrate(json.loads(args.data.read_text(encoding="utf-8")))
    if args.json:
        sys.stdout.write(json.dumps(curves) + "\n")
    else:
        print("MODELS = {")
        for combo, beta in sorted(curves["models"].items()):
            print(f"    {tuple(combo.split(','))!r}: {tuple(beta)!r},")
        print("}")
        print(f"min_relevance (keeps 95% of the relevant hits): {curves['min_relevance']}")
        print(f"the shipped min_relevance {curves['shipped_min_relevance']} keeps "
              f"{curves['relevant_kept_at_shipped']}% of the relevant hits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
