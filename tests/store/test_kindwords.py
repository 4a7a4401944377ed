"""The words that name each kind (memctl.store.kindwords): read from every declaration, cached,
refreshed when a declaration changes, and a cache that does not read is made again."""

from __future__ import annotations

import json
from pathlib import Path

from memctl.policy.topic import checked_lexicon, kinds_in, lexicon
from memctl.store.kindwords import CACHE_NAME, cached, declared_words


def test_the_shipped_kinds_name_themselves_and_a_folders_kinds_add_and_replace(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "boat.toml").write_text('[boat]\nfields = { name = "text" }\nwords = { en = ["boat"] }\n')
    words = declared_words(tmp_path, {"vehicle": {"fields": {"name": "text"}, "words": {"en": ["ride"]}}})
    assert "passport" in words["passport"]["en"] and "car" in declared_words(None, {})["vehicle"]["en"]
    assert words["boat"] == {"en": ["boat"]} and words["vehicle"] == {"en": ["ride"]}


def test_a_kind_whose_words_do_not_read_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "bad.toml").write_text('[boat]\nwords = { en = ["x\\ny"] }\n[[not toml')
    assert "boat" not in declared_words(tmp_path, {})
    assert "boat" not in declared_words(tmp_path, {"boat": {"words": {"english": ["boat"]}}})


def test_the_cache_is_used_refreshed_and_rebuilt_when_it_does_not_read(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    built: list[int] = []

    def build(words: dict) -> dict:
        built.append(1)
        return lexicon(words)

    first = cached(cache, tmp_path, {}, build, checked_lexicon)
    assert kinds_in(["service my car"], first) == {"vehicle"}
    assert cached(cache, tmp_path, {}, build, checked_lexicon) == first and len(built) == 1  # read back
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "boat.toml").write_text('[boat]\nfields = { name = "text" }\nwords = { en = ["boat"] }\n')
    assert "boat" in cached(cache, tmp_path, {}, build, checked_lexicon) and len(built) == 2  # a new declaration
    kept = json.loads((cache / CACHE_NAME).read_text())
    kept["value"] = {"vehicle": [[["x" * 500]], []]}  # not what lexicon makes
    (cache / CACHE_NAME).write_text(json.dumps(kept))
    assert "boat" in cached(cache, tmp_path, {}, build, checked_lexicon) and len(built) == 3
    (cache / CACHE_NAME).write_text("{ not json")
    assert "boat" in cached(cache, tmp_path, {}, build, checked_lexicon) and len(built) == 4


def test_a_schemas_folder_that_is_a_link_is_not_read(tmp_path: Path) -> None:
    # A shared folder's schemas/ may not lead outside it: its files are never read through a link.
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "kite.toml").write_text('[kite]\nfields = { name = "text" }\nwords = { en = ["kite"] }\n')
    root = tmp_path / "mem"
    root.mkdir()
    (root / "schemas").symlink_to(outside, target_is_directory=True)
    assert "kite" not in declared_words(root, {})
