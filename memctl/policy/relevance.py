"""Calibrated relevance (pure): how likely a recalled memory is to be about the query, in [0, 1].

Fused similarity and the final score are relative: BM25 is divided by the query's best match and
cosines are min-max normalised over the candidates, so the best candidate of any query scores near
1, even when nothing is about the query. Relevance reads absolute signals instead:

- each embedding model's raw cosine (cosines of one model sit in a band of their own:
  all-MiniLM-L6-v2 gives unrelated texts about 0.0-0.4, multilingual-e5-small about 0.7-0.8);
- keyword coverage: the IDF-weighted share of the query's terms the memory holds, where a specific
  term no memory holds weighs the most (a name the store never heard of) and a common word no
  memory holds nothing (a task's words: "schedule", "help"); see search/keyword.py.

relevance = sigmoid(w . signals + b), a small logistic model per combination of signals a recall
can have (keyword only, one model, one model and keyword, two models and keyword, ...). Each was
fitted with balanced classes, so 0.5 means "as likely about the query as not"; the default
`[recall] min_relevance` (0.55) keeps 93.6% of the relevant hits of the fitting data (0.5, 95%). The numbers
come from `python bench/calibrate.py` on the hand-written bench/data/calibration.json, never from
the LoCoMo conversations the benchmark reports. A model with no fitted numbers (another fastembed
model) is left out of the signals; with no signal left, relevance is None and nothing is held back.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from memctl.core.models import Hit

COVERAGE = "coverage"
# Signal names (sorted) -> (a weight per signal, in that order, then the intercept).
# Fitted by bench/calibrate.py; model names are families (see `model_family`).
MODELS: dict[tuple[str, ...], tuple[float, ...]] = {
    ("coverage",): (6.072, -2.077),
    ("coverage", "hashing"): (4.39, 7.543, -3.102),
    ("coverage", "memctl/all-MiniLM-L6-v2-int8"): (3.586, 7.324, -3.873),
    ("coverage", "memctl/all-MiniLM-L6-v2-int8", "multilingual-e5-small-q4"): (3.543, 6.997, 2.216, -5.521),
    ("coverage", "multilingual-e5-small-q4"): (4.943, 7.579, -7.621),
    ("hashing",): (12.837, -2.619),
    ("memctl/all-MiniLM-L6-v2-int8",): (10.022, -3.623),
    ("memctl/all-MiniLM-L6-v2-int8", "multilingual-e5-small-q4"): (9.504, 3.223, -6.017),
    ("multilingual-e5-small-q4",): (14.41, -11.583),
}


def model_family(identity: str) -> str:
    """The calibration key of an embedder identity: its name without size or engine version
    ("memctl/all-MiniLM-L6-v2-int8:384" -> "memctl/all-MiniLM-L6-v2-int8")."""
    return identity.rpartition(":")[0].partition("@")[0] or identity


def relevance(cosines: Mapping[str, float], coverage: float | None,
              models: Mapping[tuple[str, ...], tuple[float, ...]] = MODELS) -> float | None:
    """Relevance in [0, 1] from raw cosines (model identity -> cosine) and keyword coverage (None
    when keyword search did not run); signals without fitted numbers are left out; None if none remain."""
    signals = {model_family(m): c for m, c in cosines.items()}
    if coverage is not None:
        signals[COVERAGE] = coverage
    known = {n for key in models for n in key}
    names = tuple(sorted(n for n in signals if n in known))
    beta = models.get(names)
    if beta is None:
        return None
    return sigmoid(sum(w * signals[n] for w, n in zip(beta, names)) + beta[-1])


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), without overflow for large |x|."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def annotate(hits: Sequence[Hit], models: Sequence[tuple[str, str, float]],
             coverage: Mapping[str, float] | None) -> list[Hit]:
    """The hits with `relevance` set. `models` holds (component name, model identity, floor) per
    cosine run ("semantic", "memctl/...:384", lowest cosine returned): a hit a run did not return
    scored below everything it did, so it gets the floor. `coverage` is None without keyword search."""
    out = []
    for hit in hits:
        cosines = {identity: hit.components.get(f"{name}_score", floor) for name, identity, floor in models}
        covered = None if coverage is None else round(coverage.get(hit.id, 0.0), 6)
        value = relevance(cosines, covered)
        components = hit.components if covered is None else {**hit.components, "coverage": covered}
        out.append(hit.model_copy(update={"relevance": None if value is None else round(value, 4),
                                          "components": components}))
    return out


def hold_back(hits: Sequence[Hit], min_relevance: float) -> tuple[list[Hit], list[Hit]]:
    """(shown, held back): hits below `min_relevance` are held back, order kept; a hit with no
    relevance (no calibrated signal) is always shown."""
    shown = [h for h in hits if h.relevance is None or h.relevance >= min_relevance]
    return shown, [h for h in hits if h.relevance is not None and h.relevance < min_relevance]
