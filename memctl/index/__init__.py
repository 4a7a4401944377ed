"""Caches derived from the memory files: keyword index, vectors, change detection.

Everything here can be deleted and rebuilt from the Markdown files.
"""
