"""Pure policies (no I/O): the write gate, secret detection, decisions, ranking, compaction."""
