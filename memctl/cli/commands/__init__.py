"""Command groups."""
