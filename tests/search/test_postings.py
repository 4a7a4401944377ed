"""The postings a warm process keeps (search/postings.py) score exactly as whoosh does.

Two indexes of one generated store: one searched through whoosh's matchers and scorer
(`keyword.score_query`), one from the kept postings with numpy; every query, whole store or a
user's memories, gives the same ids in the same order with the same float scores, also after adds,
edits and deletes (new segments, deleted documents) and a merge.
"""

import random
from pathlib import Path

import pytest

from memctl.search.keyword import KeywordDoc, KeywordIndex

NAMES = "Alice Bob Carla Deepak Elena Farid Grace Hiro Ines Jonas".split()
WORDS = ("espresso oolong matcha sushi ramen tacos Lisbon Osaka Nairobi docker terraform pytest billing "
         "search checkout invoices chess sailing pottery Monday Friday quiet weekly remote careful "
         "coffee team prefers moved works allergic peanuts backup production database").split()


def generated(n: int, seed: int) -> list[KeywordDoc]:
    """Memories of varied length and fields (tags, keys, names, entities, months)."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 40)))
        docs.append(KeywordDoc(
            id=f"m{i:04d}", body=f"{rng.choice(NAMES)} {body}.",
            tags=rng.sample(WORDS, rng.randint(0, 2)), key=rng.choice([None, "drink", "city.home"]),
            name=rng.choice([None, f"{rng.choice(WORDS)} note"]), description=rng.choice([None, rng.choice(WORDS)]),
            entities=rng.sample(NAMES, rng.randint(0, 2)), when=rng.choice(["March 2026", "June 2025", None])))
    return docs


def queries(seed: int) -> list[str]:
    rng = random.Random(seed)
    out = [" ".join(rng.sample(WORDS + NAMES, rng.randint(1, 5))) for _ in range(40)]
    return out + ["", "the", "zebra unknown", "Alice", "March", "drink", "espresso espresso Lisbon"]


def same(plain: KeywordIndex, kept: KeywordIndex, docs: list[KeywordDoc], seed: int) -> None:
    rng = random.Random(seed)
    ids = [d.id for d in docs]
    pools = [None, set(rng.sample(ids, len(ids) // 3)), set(rng.sample(ids, 5)), set(ids)]
    for query in queries(seed):
        for pool in pools:
            for limit in (3, 1000):
                expected = plain.search(query, limit=limit, allowed=pool)
                assert kept.search(query, limit=limit, allowed=pool) == expected, (query, limit)


@pytest.fixture()
def indexes(tmp_path: Path) -> tuple[KeywordIndex, KeywordIndex, list[KeywordDoc]]:
    docs = generated(600, seed=3)
    plain, kept = KeywordIndex(tmp_path / "plain"), KeywordIndex(tmp_path / "kept")
    for ix in (plain, kept):
        ix.rebuild(docs)
    kept.keep()
    return plain, kept, docs


def test_kept_postings_rank_and_score_as_whoosh(indexes: tuple[KeywordIndex, KeywordIndex, list[KeywordDoc]]) -> None:
    plain, kept, docs = indexes
    assert kept.search("espresso Lisbon", limit=50)  # the query finds something: the comparison is not vacuous
    same(plain, kept, docs, seed=5)


def test_kept_postings_follow_new_segments_and_deletions(
        indexes: tuple[KeywordIndex, KeywordIndex, list[KeywordDoc]]) -> None:
    plain, kept, docs = indexes
    same(plain, kept, docs, seed=7)  # postings read and kept before the changes
    rng = random.Random(11)
    for step in range(4):  # each update is a commit: a new segment, old versions deleted in the old one
        edited = [d.model_copy(update={"body": d.body + " espresso sailing"}) for d in rng.sample(docs, 20)]
        added = generated(15, seed=100 + step)
        added = [d.model_copy(update={"id": f"n{step}-{d.id}"}) for d in added]
        removed = [d.id for d in rng.sample(docs, 10)]
        for ix in (plain, kept):
            ix.update([*edited, *added], removed)
        by_id = {d.id: d for d in docs}
        by_id.update({d.id: d for d in [*edited, *added]})
        docs = [d for i, d in by_id.items() if i not in removed]
        same(plain, kept, docs, seed=20 + step)
    for ix in (plain, kept):  # a full rebuild: one segment again, everything read anew
        ix.rebuild(docs)
    same(plain, kept, docs, seed=40)
