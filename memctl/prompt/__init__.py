"""The prompt side: profiles, the generated MEMORY.md index and the context block (pure functions, no I/O)."""
