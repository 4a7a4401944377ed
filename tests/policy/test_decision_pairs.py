"""The rules' own table (bench/decision_pairs.py, written beside the rules) and the benchmark's
bookkeeping (bench/decisions.py: its figures, its rounds, the held-out split never listed)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memctl.policy.decide import Candidate, Neighbor, decide

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from decision_pairs import PAIRS  # noqa: E402
from decisions import Pair, blind_pairs, figures, main, rounds  # noqa: E402


def detected(old: str, new: str, type_: str, cosine: float) -> bool:
    decision = decide(Candidate(text=new, type=type_), [Neighbor(id="m1", text=old, type=type_, cosine=cosine)])
    return decision.action == "supersede" or "m1" in decision.conflicts_with


def test_table_is_large_and_balanced():
    labels = [label for *_, label in PAIRS]
    assert len(PAIRS) >= 60
    assert abs(labels.count("change") - labels.count("distinct")) <= 2
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in old) for old, *_ in PAIRS)


@pytest.mark.parametrize("old,new,type_,cosine,label", [p for p in PAIRS if p[4] == "change"])
def test_every_change_of_the_table_is_caught(old, new, type_, cosine, label):
    assert detected(old, new, type_, cosine)


def test_most_distinct_pairs_of_the_table_stay_apart():
    distinct = [p for p in PAIRS if p[4] == "distinct"]
    linked = [p for p in distinct if detected(*p[:4])]
    assert len(linked) <= 4, linked  # the table was written beside the rules: held-out figures are the bench's


def test_the_blind_pairs_are_shipped_with_both_splits_and_languages():
    pairs = blind_pairs()
    assert len(pairs) >= 300
    assert {p.split for p in pairs} == {"dev", "test"} and {p.lang for p in pairs} == {"en", "zh"}
    assert {p.label for p in pairs} == {"change", "distinct", "duplicate"}


def test_figures_count_each_label_by_its_own_outcome():
    def pair(label: str) -> Pair:
        return Pair("blind", "dev", "en", "a", "b", label, "x")

    rows = [(pair("change"), "linked"), (pair("change"), "added"), (pair("distinct"), "added"),
            (pair("distinct"), "merged"), (pair("duplicate"), "merged")]
    got = figures(rows)
    assert (got["changes_caught"], got["distinct_linked"], got["duplicates_merged"]) == (50.0, 50.0, 100.0)


def test_rounds_never_put_one_users_two_pairs_together():
    pairs = [Pair("blind", "dev", "en", "a", "b", "change", str(n), user) for n, user in
             enumerate(["Ann", "Ann", "Bo", "Ann", "日本"])]
    grouped = rounds(pairs)
    assert sorted(n for group in grouped for n in group) == list(range(5))
    assert all(len({pairs[n].user for n in group}) == len(group) for group in grouped)


def test_the_held_out_split_is_never_listed():
    with pytest.raises(SystemExit):
        main(["--split", "test", "--show"])
