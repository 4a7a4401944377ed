"""The secret detector on its labelled corpus (bench/secret_corpus.py): >= 95% found, <= 3% false alarms.

bench/secret_detector.py prints the same figures and the scan speed."""

from __future__ import annotations

import importlib.util

from memctl.policy.secrets import find_secrets
from tests.helpers import ROOT


def corpus():  # the corpus lives in bench/ so the benchmark and this test share it
    spec = importlib.util.spec_from_file_location("secret_corpus", ROOT / "bench" / "secret_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def covered(sentence: str, secret: str) -> bool:
    start = sentence.index(secret)
    return any(f.start < start + len(secret) and start < f.end for f in find_secrets(sentence))


def test_the_corpus_is_big_enough() -> None:
    c = corpus()
    assert len(c.secrets()) >= 100 and len(c.look_alikes()) >= 100


def test_detection_is_at_least_95_percent() -> None:
    pairs = corpus().secrets()
    missed = [s for s, secret in pairs if not covered(s, secret)]
    assert len(missed) <= 0.05 * len(pairs), missed


def test_false_positives_are_at_most_3_percent() -> None:
    texts = corpus().look_alikes()
    flagged = [t for t in texts if find_secrets(t)]
    assert len(flagged) <= 0.03 * len(texts), flagged
