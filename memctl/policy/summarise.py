"""Extractive summaries for consolidated clusters: no model, no network, deterministic.

The most central sentence (the one sharing the most words with the other
memories) comes first; then, most central first, each sentence at least a third of
whose words are not yet covered (a distinct detail, not a paraphrase), until the summary would exceed `MAX_CHARS`. Identical sentences
(ignoring case and punctuation) appear once.
"""

from __future__ import annotations

import re
from typing import Sequence

from memctl.core.models import Memory

MAX_CHARS = 600
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]|[^\W_]+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by for from has have he her his i in is it its of on or she "
    "that the their they this to was were will with who which about also be been would could "
    "should what when if do does did we you your my me our them him".split()
)
MIN_NOVELTY = 1 / 3  # share of a sentence's words that must be new for it to add a detail


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


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0] or text[: limit - 1]
    return cut.rstrip(" ,;:") + "…"


def extractive_summary(memories: Sequence[Memory], max_chars: int = MAX_CHARS) -> str:
    """One text for a cluster: the central sentence, then the distinct details of the others."""
    ranked = _ranked(_candidates(memories))
    if not ranked:
        return ""
    chosen = [_finish(ranked[0])]
    covered = set(content_words(ranked[0]))
    length = len(chosen[0])
    for sentence in ranked[1:]:
        words = content_words(sentence)
        new = words - covered
        text = _finish(sentence)
        if len(new) < MIN_NOVELTY * len(words) or not new or length + 1 + len(text) > max_chars:
            continue
        chosen.append(text)
        covered |= new
        length += 1 + len(text)
    return _truncate(" ".join(chosen), max_chars)
