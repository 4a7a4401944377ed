"""Extractive summaries for consolidated clusters: no model, no network, deterministic.

The most central sentence (the one sharing the most words with the other
memories) comes first; then, most central first, every other sentence unless one already
chosen says all it says (the same words, or a subsequence of them). Nothing is cut: a cluster
whose statements do not fit in `MAX_CHARS` is not merged. Identical sentences (ignoring case
and punctuation) appear once.
"""

from __future__ import annotations

import re
from typing import Sequence

from memctl.core.models import Memory
from memctl.policy.decide import compare_texts

MAX_CHARS = 2000  # the gate's default max_length: a summary is a memory like any other
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by for from has have he her his i in is it its of on or she "
    "that the their they this to was were will with who which about also be been would could "
    "should what when if do does did we you your my me our them him".split()
)


def split_sentences(text: str) -> list[str]:
    """Sentences of a memory body: split at . ! ? (and their CJK forms) and at line breaks."""
    parts = (p.strip(" \t-*#>") for p in _SENTENCE_END.split(text))
    return [p for p in parts if _WORD.search(p)]


def content_words(sentence: str) -> frozenset[str]:
    """Lower-cased words minus stop words; CJK characters count one by one."""
    return frozenset(w for w in (m.lower() for m in _WORD.findall(sentence)) if w not in _STOP)


def _normal(sentence: str) -> str:
    return " ".join(m.lower() for m in _WORD.findall(sentence))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def _candidates(memories: Sequence[Memory]) -> list[tuple[str, str, int]]:
    """(sentence, memory id, position) with duplicates removed, in a stable order."""
    seen: set[str] = set()
    out = []
    for memory in sorted(memories, key=lambda m: m.id):
        for pos, sentence in enumerate(split_sentences(memory.body)):
            key = _normal(sentence)
            if key and key not in seen:
                seen.add(key)
                out.append((sentence, memory.id, pos))
    return out


def _ranked(candidates: list[tuple[str, str, int]]) -> list[str]:
    """Sentences by centrality: summed word overlap with sentences of the other memories."""
    words = [content_words(s) for s, _, _ in candidates]
    scored = []
    for i, (sentence, owner, pos) in enumerate(candidates):
        centrality = sum(_jaccard(words[i], words[j]) for j, (_, other, _) in enumerate(candidates)
                         if other != owner)
        scored.append((-round(centrality, 9), pos, owner, sentence))
    return [s for *_, s in sorted(scored)]


def _finish(sentence: str) -> str:
    return sentence if sentence[-1] in ".!?。！？" else sentence + "."


def _says_nothing_new(sentence: str, chosen: list[str]) -> bool:
    """True when a chosen sentence already says all this one says (the same words, or fewer of them)."""
    return any(compare_texts(kept, sentence) in ("same", "less") for kept in chosen)


def extractive_summary(memories: Sequence[Memory], max_chars: int = MAX_CHARS) -> str | None:
    """One text for a cluster that keeps every distinct statement of its members: the central sentence
    first, then every other sentence that says something the chosen ones do not. None when that text
    would be longer than `max_chars` (the cluster is then left alone: a merge never drops a fact)."""
    ranked = _ranked(_candidates(memories))
    chosen: list[str] = []
    for sentence in ranked:
        if not _says_nothing_new(sentence, chosen):
            chosen.append(sentence)
    text = " ".join(_finish(sentence) for sentence in chosen)
    return text if text and len(text) <= max_chars else None
