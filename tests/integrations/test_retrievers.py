"""The LangChain and LlamaIndex retrievers against the real frameworks (offline: no LLM, no network)."""

from __future__ import annotations

import asyncio

import pytest

from memctl.api import MemoryStore


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    store.add_raw("Alice prefers window seats on flights", type="preference", user="alice")
    store.add_raw("Alice is allergic to peanuts", type="constraint", user="alice")
    store.add_raw("Bob prefers aisle seats on flights", type="preference", user="bob")
    store.add_raw("The shop's checkout is written in Go", type="context", project="shop")
    return store


def test_langchain_retriever_returns_recalled_memories_as_documents(filled: MemoryStore) -> None:
    pytest.importorskip("langchain_core.retrievers")
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever

    from memctl.integrations.langchain import MemctlRetriever

    retriever = MemctlRetriever(memory=filled, user="alice", k=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("which seat does Alice like on a flight")
    assert docs and all(isinstance(d, Document) for d in docs)
    assert docs[0].page_content == "Alice prefers window seats on flights"
    assert docs[0].metadata["type"] == "preference" and docs[0].metadata["user"] == "alice"
    assert docs[0].id == docs[0].metadata["id"] and 0 <= docs[0].metadata["relevance"] <= 1
    assert all("Bob" not in d.page_content for d in docs)  # alice's memories only
    again = asyncio.run(retriever.ainvoke("which seat does Alice like on a flight"))
    assert [d.page_content for d in again] == [d.page_content for d in docs]
    shop = MemctlRetriever(memory=filled, project="shop").invoke("what language is checkout written in")
    assert [d.page_content for d in shop] == ["The shop's checkout is written in Go"]


def test_llamaindex_retriever_returns_recalled_memories_as_scored_nodes(filled: MemoryStore) -> None:
    pytest.importorskip("llama_index.core.retrievers")
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle

    from memctl.integrations.llamaindex import MemctlRetriever

    retriever = MemctlRetriever(filled, user="alice", k=3)
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve("which seat does Alice like on a flight")
    assert nodes and all(isinstance(n, NodeWithScore) for n in nodes)
    assert nodes[0].node.get_content() == "Alice prefers window seats on flights"
    assert nodes[0].node.metadata["type"] == "preference" and nodes[0].score is not None
    assert nodes[0].node.node_id == nodes[0].node.metadata["id"]
    assert all("Bob" not in n.node.get_content() for n in nodes)
    again = asyncio.run(retriever.aretrieve(QueryBundle("which seat does Alice like on a flight")))
    assert [n.node.node_id for n in again] == [n.node.node_id for n in nodes]
