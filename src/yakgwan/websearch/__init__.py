"""Search providers beyond the index, for corrective RAG's fallback: the protocol and its
records (``provider``), one file per provider (``tavily``, ``offline``), and the registry that
names them (``registry.make_search``)."""
