"""The words that name everyday topics (memctl.store.topicwords): read from one file, checked as a
kind's words are, cached, refreshed when the file changes, and a cache that does not read is made again."""

from __future__ import annotations

import json
from pathlib import Path

from memctl.policy.topic import checked_lexicon, kinds_in, lexicon
from memctl.services.signals import topic_lexicon
from memctl.store.topicwords import CACHE_NAME, MAX_TOPIC_WORDS, MAX_WORDS, cached, topic_words

TOPICS = '''
[pets]
description = "Animals a person keeps"
words = { en = ["dog", "puppy", "vet"], zh = ["狗", "兽医", "宠物"] }
[food]
description = "Eating"
words = { en = ["breakfast", "noodles"], zh = ["早餐"] }
'''


def check(value: object) -> object:
    return checked_lexicon(value, MAX_TOPIC_WORDS)


def test_a_topic_file_reads_as_words_per_language_and_a_topic_that_does_not_is_left_out(tmp_path: Path) -> None:
    path = tmp_path / "topics.toml"
    too_many = ", ".join(f'"w{i}"' for i in range(MAX_WORDS + 1))
    path.write_text(TOPICS + f'[huge]\nwords = {{ en = [{too_many}] }}\n[bad]\nwords = {{ en = ["x\\ny"] }}\nstray = 1\n',
                    encoding="utf-8")
    words = topic_words(path)
    assert sorted(words) == ["food", "pets"] and words["pets"]["zh"] == ["狗", "兽医", "宠物"]
    assert topic_words(tmp_path / "missing.toml") == {}
    path.write_text("[[not toml", encoding="utf-8")
    assert topic_words(path) == {}


def test_the_words_match_as_a_kinds_do(tmp_path: Path) -> None:
    path = tmp_path / "topics.toml"
    path.write_text(TOPICS, encoding="utf-8")
    found = lexicon(topic_words(path))
    assert kinds_in(["Our puppy sees the vet on Monday"], found) == {"pets"}
    assert kinds_in(["带宠物去看兽医"], found) == {"pets"} and kinds_in(["每天早餐吃面"], found) == {"food"}
    assert kinds_in(["I think so", "好的，我知道了"], found) == frozenset()


def test_the_cache_is_used_refreshed_and_rebuilt_when_it_does_not_read(tmp_path: Path) -> None:
    path, cache = tmp_path / "topics.toml", tmp_path / "cache"
    path.write_text(TOPICS, encoding="utf-8")
    built: list[int] = []

    def build(words: dict) -> dict:
        built.append(1)
        return lexicon(words)

    first = cached(cache, build, check, path)
    assert cached(cache, build, check, path) == first and len(built) == 1  # read back
    path.write_text(TOPICS.replace('"vet"', '"vet", "kitten"'), encoding="utf-8")
    assert kinds_in(["a kitten"], cached(cache, build, check, path)) == {"pets"} and len(built) == 2
    kept = json.loads((cache / CACHE_NAME).read_text(encoding="utf-8"))
    (cache / CACHE_NAME).write_text(json.dumps({**kept, "value": {"pets": [[["x"] * 9], []]}}), encoding="utf-8")
    assert kinds_in(["a kitten"], cached(cache, build, check, path)) == {"pets"} and len(built) == 3  # refused, made again


def test_the_shipped_lexicon_reads_and_checks(tmp_path: Path) -> None:
    built = topic_lexicon(tmp_path)
    assert (tmp_path / CACHE_NAME).is_file()  # built and kept
    shipped = lexicon(topic_words())
    assert len(shipped) >= 40 and built == check(json.loads(json.dumps(shipped)))
    assert topic_lexicon(tmp_path) == built == topic_lexicon(None)  # read back; and with no cache folder
    assert kinds_in(["my car needs a service"], built) == {"cars"}
