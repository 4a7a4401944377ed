"""memctl as a LangChain retriever: `MemctlRetriever`, a `langchain_core.retrievers.BaseRetriever`.

Each document is one recalled memory: its text as `page_content`, and as metadata its id, type,
user or project, calibrated relevance and dates. What is found and in what order is memctl's recall
(`MemoryStore.recall`), with its `min_relevance` holding back weak hits.

    from memctl.api import MemoryStore
    from memctl.integrations.langchain import MemctlRetriever
    retriever = MemctlRetriever(memory=MemoryStore.open("~/mem"), user="alice", k=5)
    docs = retriever.invoke("where does Alice like to sit?")
"""

from __future__ import annotations

from typing import Any, Optional

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from memctl.integrations.recall import hit_metadata, recall_hits


class MemctlRetriever(BaseRetriever):
    """Recall over one MemoryStore, for a user and/or project (neither: every memory the store may see)."""

    memory: Any  # a memctl.api.MemoryStore
    user: Optional[str] = None
    project: Optional[str] = None
    k: Optional[int] = None  # None: the store's `[recall] k`

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=hit.content, metadata=hit_metadata(hit), id=hit.id)
                for hit in recall_hits(self.memory, query, self.user, self.project, self.k)]
