"""Fit the write decision's pair model (policy/pairs.py) on the dev split of bench/decisions.py.

Usage: python bench/decision_fit.py [--folds 5] [--by pair|source] [--write] [--l2 0.01]

Reads the dev pairs only (blind dev, the table, LoCoMo's dev conversation): the test split is never
read here. Each pair's features are computed with the shipped embedding model (the cosine of the
texts and of their frames, values masked); a multinomial logistic regression (numpy, L2) is fitted.
It prints the cross-validated figures on dev (folds by pair id: each pair judged by a model that did
not see it; `--by source`: leave one source out, each source's pairs judged by a model fitted on the
other writers' pairs only, the honest test of a writer the fit never saw), then with --write fits
on all of dev and writes policy/decision_fit.py.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path
from typing import Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import numpy as np  # noqa: E402
from decisions import LOCOMO, Pair, gather, owner_of  # noqa: E402

from memctl.policy.pairs import CHANGE_FLOOR, DUPLICATE_FLOOR, LABELS, frame, ml_pairs, pair_features  # noqa: E402

OUT = HERE.parent / "memctl" / "policy" / "decision_fit.py"
FEATURES = ("cos", "frame", "frame_gain", "slot_share", "slot_shared", "chars", "subject_differs",
            "relations_differ", "negation_flip", "negation_differs", "announces", "additive", "zh",
            "values_same", "values_swapped", "values_one_side", "values_jaccard", "values_covered", "values_none",
            "identifiers_differ", "qualifier_differs", "frame_words", "frame_chars", "only_old", "only_new",
            "both_owner", "length_ratio", "new_values_novel", "old_values_lost", "new_words_novel", "old_words_lost",
            "novel_both", "new_state")
# The second fit also reads the statements' attributes and values (policy/triple.py), by words and by
# the multilingual model's cosines (it reads Chinese, which the write model does not).
ML_FEATURES = (*FEATURES, "attr_words", "value_words", "attr_equal", "both_read", "attr_differs", "value_overlap",
               "ml_cos", "ml_frame", "ml_attr", "ml_value")
MODEL = "memctl/all-MiniLM-L6-v2-int8"  # the shipped model: the cosines the fit reads
ML_MODEL = "multilingual-e5-small"  # the second fit also reads this model's cosines (when installed)


def cosines(pairs: Sequence[Pair], name: str) -> list[dict[str, float]]:
    """Full and frame cosines of each pair with a model (stored text as a document, the new one as a
    query, as the write path compares them; frames as documents, the owner's name as "I")."""
    from memctl.search.embedders import get_embedder

    model = get_embedder(name, None)
    owners = [owner_of(p, n) for n, p in enumerate(pairs)]
    olds = model.embed([p.old for p in pairs])
    news = np.stack([model.embed_query(p.new) for p in pairs])
    frames_old = model.embed([frame(p.old, o) for p, o in zip(pairs, owners)])
    frames_new = model.embed([frame(p.new, o) for p, o in zip(pairs, owners)])
    out = [{"cos": float(olds[i] @ news[i]), "frame": float(frames_old[i] @ frames_new[i])} for i in range(len(pairs))]
    return [{**c, **m} for c, m in zip(out, ml_cosines(pairs, owners))]


def ml_cosines(pairs: Sequence[Pair], owners: Sequence[str]) -> list[dict[str, float]]:
    """The multilingual model's cosines of each pair's `ml_pairs` (all embedded as documents, as the
    write path does); none when its extra is not installed."""
    from memctl.search.embedders import get_embedder, multilingual_installed

    if not multilingual_installed():
        return [{} for _ in pairs]
    texts = [ml_pairs(p.old, p.new, o) for p, o in zip(pairs, owners)]
    keys = list(texts[0]) if texts else []
    flat = [t for pair in texts for k in keys for t in pair[k]]
    vectors = get_embedder(ML_MODEL, None).embed(flat).reshape(len(pairs), len(keys), 2, -1)
    return [{k: float(vectors[i, j, 0] @ vectors[i, j, 1]) for j, k in enumerate(keys)} for i in range(len(pairs))]


def feature_rows(pairs: Sequence[Pair]) -> list[dict[str, float]]:
    """Every feature of each pair (both models' cosines where the multilingual one is installed)."""
    return [pair_features(p.old, p.new, owner_of(p, n), c).values for n, (p, c) in enumerate(zip(pairs, cosines(pairs, MODEL)))]


def matrix(rows: Sequence[dict[str, float]], features: Sequence[str]) -> np.ndarray:
    return np.array([[f[name] for name in features] for f in rows], dtype=float)


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = 3000, rate: float = 0.3) -> np.ndarray:
    """Multinomial logistic regression by gradient descent on standardised features, classes weighted
    to equal shares; returns a (features + 1, labels) weight matrix on the raw features (the last row:
    intercepts)."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    xb = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    k = len(LABELS)
    onehot = np.eye(k)[y]
    counts = np.bincount(y, minlength=k).astype(float)
    weight = (len(y) / (k * np.maximum(counts, 1)))[y][:, None]
    w = np.zeros((xb.shape[1], k))
    for _ in range(steps):
        p = _softmax(xb @ w)
        grad = xb.T @ ((p - onehot) * weight) / len(y)
        grad[:-1] += l2 * w[:-1]
        w -= rate * grad
    raw = w[:-1] / scale[:, None]
    return np.vstack([raw, w[-1:] - mean @ raw])


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def probabilities(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return _softmax(np.hstack([x, np.ones((len(x), 1))]) @ w)


def fold_of(pair: Pair, folds: int) -> int:
    return int(hashlib.sha256(pair.ref.encode()).hexdigest(), 16) % folds


def figures(y: np.ndarray, pred: np.ndarray) -> str:
    change, distinct, dup = (LABELS.index(label) for label in LABELS)
    caught, linked, merged = (_share(pred[y == change] == change), _share(pred[y == distinct] != distinct),
                              _share(pred[y == dup] == dup))
    return f"changes caught {caught:>5}%  distinct linked {linked:>5}%  duplicates merged {merged:>5}%"


def _share(hits: np.ndarray) -> str:
    return f"{100 * hits.mean():.1f}" if len(hits) else "-"


def at_floors(prob: np.ndarray) -> np.ndarray:
    """What the write path reads (policy/pairs.reading, before its guards): a duplicate at
    DUPLICATE_FLOOR, else a change at CHANGE_FLOOR, else nothing (distinct)."""
    change, distinct, dup = (LABELS.index(label) for label in LABELS)
    return np.where(prob[:, dup] >= DUPLICATE_FLOOR, dup, np.where(prob[:, change] >= CHANGE_FLOOR, change, distinct))


def thresholds(y: np.ndarray, prob: np.ndarray) -> str:
    """What each probability floor would do: the share of each label read as a duplicate (merged) or
    as a change (linked), cross-validated."""
    lines = []
    for k, label in ((2, "duplicate"), (0, "change")):
        for floor in (0.5, 0.6, 0.7, 0.8):
            hit = prob[:, k] >= floor
            shares = "  ".join(f"{name} {100 * hit[y == n].mean():5.1f}%" for n, name in enumerate(LABELS))
            lines.append(f"  read as {label} at p >= {floor}: {shares}")
    return "\n".join(lines)


def _fit_lines(name: str, w: np.ndarray, features: Sequence[str]) -> list[str]:
    lines = [f"{name}: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {{"]
    for k, label in enumerate(LABELS):
        weights = tuple(round(float(v), 4) for v in w[:, k])
        lines.append(f"    {label!r}: ({tuple(features)!r}, {weights!r}),")
    return [*lines, "}"]


def write(fits: dict[str, tuple[np.ndarray, Sequence[str]]], pairs: int) -> None:
    lines = [f'"""The write decision\'s pair model (written by `python bench/decision_fit.py --write` from {pairs} '
             'dev pairs;\ndo not edit by hand). Per label: feature names, a weight each, then the intercept. '
             'FIT reads the write\nmodel\'s cosines, FIT_ML also the multilingual model\'s (when installed). See policy/pairs.py.\n"""', ""]
    for name, (w, features) in fits.items():
        lines += _fit_lines(name, w, features)
    lines += [f"MODEL = {MODEL!r}  # the embedding model whose cosines the fit reads",
              f"ML_MODEL = {ML_MODEL!r}  # the second model FIT_ML also reads", ""]
    OUT.write_text("\n".join(lines), encoding="utf-8")


def cross_validated(pairs: Sequence[Pair], x: np.ndarray, y: np.ndarray, folds: int, l2: float,
                    by_source: bool = False) -> np.ndarray:
    prob = np.zeros((len(y), len(LABELS)))
    sources = sorted({p.source for p in pairs})
    fold = np.array([sources.index(p.source) if by_source else fold_of(p, folds) for p in pairs])
    for k in sorted(set(fold.tolist())):
        prob[fold == k] = probabilities(fit(x[fold != k], y[fold != k], l2), x[fold == k])
    return prob


def groups(pairs: Sequence[Pair], by_source: bool) -> list[tuple[str, np.ndarray]]:
    """Per language, and per source and language when sources are left out."""
    out = [(lang, np.array([p.lang == lang for p in pairs])) for lang in ("en", "zh")]
    if by_source:
        keys = sorted({(p.source, p.lang) for p in pairs})
        out += [(f"{s}/{lang}", np.array([(p.source, p.lang) == (s, lang) for p in pairs])) for s, lang in keys]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fit the write decision's pair model on the dev split.")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--l2", type=float, default=0.01)
    parser.add_argument("--by", choices=("pair", "source"), default="pair",
                        help="folds by pair id, or leave one source (writer) out")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    pairs = gather("dev", LOCOMO, [])
    rows = feature_rows(pairs)
    y = np.array([LABELS.index(p.label) for p in pairs])
    fits = {}
    for name, features in (("FIT", FEATURES), ("FIT_ML", ML_FEATURES)):
        if any(f not in rows[0] for f in features):
            print(f"{name}: skipped (the multilingual model is not installed)")
            continue
        x = matrix(rows, features)
        prob = cross_validated(pairs, x, y, args.folds, args.l2, args.by == "source")
        how = "leave one source out" if args.by == "source" else f"{args.folds}-fold cross-validated"
        print(f"{name}: dev, {how} ({len(pairs)} pairs), the model alone at its floors "
              f"(duplicate p >= {DUPLICATE_FLOOR}, change p >= {CHANGE_FLOOR}): {figures(y, at_floors(prob))}")
        for group, mask in groups(pairs, args.by == "source"):
            print(f"  {group:12} {figures(y[mask], at_floors(prob[mask]))}")
        print(thresholds(y, prob))
        fits[name] = (fit(x, y, args.l2), features)
    if args.write:
        if len(fits) < 2:
            parser.error("--write needs both fits: install the multilingual extra")
        write(fits, len(pairs))
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
