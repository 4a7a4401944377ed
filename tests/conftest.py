"""Shared fixtures: every test gets a fake embedder, an unpinned clock and no MEMCTL_* leakage."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterator

import pytest

from memctl import clock

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_memories"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    """No MEMCTL_* leakage, an unpinned clock, and (unless marked `model`) the hashing embedder
    registered in place of the shipped and the multilingual model, so most tests need no model."""
    from memctl.search import embedders

    for name in ("MEMCTL_DIR", "MEMCTL_NOW", "MEMCTL_SERVER", "MEMCTL_TOKEN", "MEMORY_MIN_CONFIDENCE", "MEMORY_DUPLICATE_THRESHOLD",
                 "MEMORY_MAX_EXTRACTIONS", "MEMORY_MIN_LENGTH", "MEMORY_MAX_LENGTH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    previous: dict = {}
    fake = request.node.get_closest_marker("model") is None
    if fake:  # the shipped model and the multilingual one ("auto" finds it when installed)
        for name in (embedders.DEFAULT_MODEL, embedders.MULTILINGUAL_MODEL):
            previous[name] = embedders.register_embedder(name, lambda *_: embedders.HashingEmbedder())
    clock.set_now(None)
    yield
    clock.set_now(None)
    for name, factory in previous.items():
        embedders.unregister_embedder(name, factory)


@pytest.fixture
def memdir(tmp_path: Path) -> Path:
    """A fresh, initialised memory directory."""
    from memctl.store.directory import init_directory

    root = tmp_path / "mem"
    init_directory(root)
    return root


@pytest.fixture
def store(memdir: Path):
    from memctl.api import MemoryStore

    return MemoryStore(memdir)


@pytest.fixture
def samples(tmp_path: Path) -> Path:
    """A private copy of sample_memories/ (with config), safe to change."""
    from memctl.store.directory import init_directory

    target = tmp_path / "samples"
    shutil.copytree(SAMPLES, target, ignore=shutil.ignore_patterns(".memctl"))
    init_directory(target)
    return target
