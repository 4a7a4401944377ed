"""The per-user cache folder: outside the memory folder, keyed by its real path, private or refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memctl.errors import StoreError
from memctl.store.cachedir import CACHE_ENV, cache_base, folder_cache, private_folder
from memctl.store.filerepo import FileRepository


def test_the_base_follows_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "mine"))
    assert cache_base() == tmp_path / "mine"
    monkeypatch.delenv(CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_base() == tmp_path / "xdg" / "memctl"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_base() == tmp_path / "home" / ".cache" / "memctl"


def test_one_folder_one_cache_whatever_the_path_names_it(tmp_path: Path) -> None:
    (tmp_path / "memories").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "memories")
    (tmp_path / "other" / "memories").mkdir(parents=True)
    cache = folder_cache(tmp_path / "memories")
    assert folder_cache(tmp_path / "link") == cache == folder_cache(tmp_path / "other" / ".." / "memories")
    assert folder_cache(tmp_path / "other" / "memories") != cache  # same name, another folder
    assert cache.name.startswith("memories-") and not cache.is_relative_to(tmp_path / "memories")


def test_a_repository_keeps_its_caches_outside_the_folder(memdir: Path) -> None:
    repo = FileRepository(memdir)
    assert repo.cache == folder_cache(memdir) and not repo.cache.is_relative_to(memdir)
    assert stat.S_IMODE(repo.cache.stat().st_mode) == 0o700
    assert repo.state == memdir / ".memctl"  # the lock and the journal stay shared


def test_a_cache_folder_others_can_write_or_a_link_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with pytest.raises(StoreError, match="other users can write"):
        private_folder(shared)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(StoreError, match="symbolic link"):
        private_folder(tmp_path / "link")
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="not a folder"):
        private_folder(tmp_path / "file")
    assert private_folder(tmp_path / "new" / "cache") == tmp_path / "new" / "cache"
