"""Adapters to the memory interfaces of agent frameworks, each a thin class over memctl.api.MemoryStore.

One module per framework, each imported only by whoever uses it (the framework is an optional
extra: `memctl[langgraph]`, `memctl[langchain]`, `memctl[llamaindex]`, `memctl[openai-agents]`):
- langgraph: MemctlStore, a LangGraph BaseStore;
- langchain: MemctlRetriever, a LangChain BaseRetriever;
- llamaindex: MemctlRetriever, a LlamaIndex BaseRetriever;
- openai_agents: memory tools for an OpenAI Agents SDK agent.
Nothing here decides what is stored or found: the gate, the write decision and recall do.
"""
