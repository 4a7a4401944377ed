"""memctl as a LlamaIndex retriever: `MemctlRetriever`, a `llama_index.core.retrievers.BaseRetriever`.

Each node is one recalled memory (a TextNode whose id is the memory's id), scored by its calibrated
relevance; the metadata are the memory's type, user or project and dates. What is found and in
what order is memctl's recall (`MemoryStore.recall`).

    from memctl.api import MemoryStore
    from memctl.integrations.llamaindex import MemctlRetriever
    retriever = MemctlRetriever(MemoryStore.open("~/mem"), user="alice", k=5)
    nodes = retriever.retrieve("where does Alice like to sit?")
"""

from __future__ import annotations

from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from memctl.integrations.recall import hit_metadata, recall_hits


class MemctlRetriever(BaseRetriever):
    """Recall over one MemoryStore, for a user and/or project (neither: every memory the store may see)."""

    def __init__(self, memory: Any, *, user: str | None = None, project: str | None = None, k: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.memory, self.user, self.project, self.k = memory, user, project, k

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = recall_hits(self.memory, query_bundle.query_str, self.user, self.project, self.k)
        return [NodeWithScore(node=TextNode(id_=hit.id, text=hit.content, metadata=hit_metadata(hit)),
                              score=hit.relevance if hit.relevance is not None else hit.score)
                for hit in hits]
