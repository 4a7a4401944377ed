"""The labelled pair table (bench/decision_pairs.py): every pair is decided right."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from decision_pairs import PAIRS  # noqa: E402
from decisions import detected, evaluate  # noqa: E402


def test_table_is_large_and_balanced():
    labels = [label for *_, label in PAIRS]
    assert len(PAIRS) >= 60
    assert abs(labels.count("change") - labels.count("distinct")) <= 2
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in old) for old, *_ in PAIRS)


@pytest.mark.parametrize("old,new,type_,cosine,label", PAIRS)
def test_pair_is_decided_right(old, new, type_, cosine, label):
    assert detected(old, new, type_, cosine) == (label == "change")


def test_precision_and_recall_are_reported():
    figures = evaluate()
    print(f"\ndecision precision {figures['precision']}%, recall {figures['recall']}%")
    assert figures["precision"] == 100.0 and figures["recall"] == 100.0
