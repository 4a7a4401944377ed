"""What a keyword index holds for a memory and how it scores: the file index's definition, given to a
backend that searches itself (search/native.py builds it, store/postgres/terms.py computes with it),
kept here below both so neither imports the other."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from memctl.core.models import Memory


@dataclass(frozen=True)
class KeywordSpec:
    """What the keyword index holds for a memory and how it scores, given by the facade from the file
    index's own definition (search/engine.py keyword_doc, search/keyword.py boosts), so both agree.

    `version` names the analysis and the fields: when it changes, stored terms are rebuilt."""

    fields: Callable[[Memory], Mapping[str, str]]
    boosts: Mapping[str, float]
    version: str
    vector_text: Callable[[Memory], str] = lambda m: m.body
    # Coverage weighs a query term by its IDF times a share: 1 for a term `specific` names (a name, an
    # identifier, a rare word), else `present_common` if some memory holds it, `absent_common` if none
    # does (search/keyword.py's weights; by default every term is specific: plain IDF).
    specific: Callable[[str], Collection[str]] | None = None
    present_common: float = 1.0
    absent_common: float = 1.0
    k1: float = 1.2  # whoosh BM25F's defaults
    b: float = 0.75
    coord: float = 0.9
    codes: dict[str, str] = field(init=False)

    def __post_init__(self) -> None:
        codes: dict[str, str] = {}
        for name in self.boosts:  # a field's first letter, unless another field took it
            codes[name] = next(c for c in (name[0], *"0123456789", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
                               if c not in codes.values())
        object.__setattr__(self, "codes", codes)

    @property
    def names(self) -> list[str]:
        return list(self.boosts)
