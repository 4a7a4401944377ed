"""Precision and recall of the write decision on labelled pairs (bench/decision_pairs.py).

Usage: python bench/decisions.py [--json] [--show]

A pair counts as detected as a change when the new memory supersedes the stored one or is linked
to it as a possible conflict; a distinct pair must be neither. Precision = right changes / all
detected changes; recall = right changes / all real changes. No model is involved: the cosines are
part of the table, and the decision is the rules alone (memctl.policy.decide).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decision_pairs import PAIRS

from memctl.policy.decide import Candidate, Neighbor, decide


def detected(old: str, new: str, type_: str, cosine: float) -> bool:
    """Whether the rules treat `new` as a new value of what `old` says."""
    decision = decide(Candidate(text=new, type=type_), [Neighbor(id="m1", text=old, type=type_, cosine=cosine)])
    return decision.action == "supersede" or "m1" in decision.conflicts_with


def evaluate() -> dict[str, Any]:
    rows = [(old, new, label, detected(old, new, type_, cosine)) for old, new, type_, cosine, label in PAIRS]
    true_pos = sum(1 for *_, label, hit in rows if hit and label == "change")
    found = sum(1 for *_, hit in rows if hit)
    real = sum(1 for *_, label, _ in rows if label == "change")
    wrong = [(old, new, label) for old, new, label, hit in rows if hit != (label == "change")]
    return {"pairs": len(rows), "changes": real, "distinct": len(rows) - real,
            "precision": round(100 * true_pos / found, 1) if found else 100.0,
            "recall": round(100 * true_pos / real, 1) if real else 100.0, "wrong": wrong}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="memctl write decision: precision and recall on labelled pairs.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="list the pairs decided wrongly")
    args = parser.parse_args(argv)
    result = evaluate()
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
        return 0
    sys.stdout.write(f"{result['pairs']} pairs ({result['changes']} changes, {result['distinct']} distinct facts): "
                     f"precision {result['precision']}%, recall {result['recall']}%\n")
    if args.show:
        for old, new, label in result["wrong"]:
            sys.stdout.write(f"  wrong ({label}): {old!r} -> {new!r}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
