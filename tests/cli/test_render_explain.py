"""recall --explain: the components of a hit, and the everyday topic that lifted it, by name."""

from __future__ import annotations

from memctl.cli.render import _hit_row


def test_explain_names_the_topic_that_lifted_a_hit() -> None:
    hit = {"id": "m1", "type": "fact", "scope": "user", "user": "wang", "content": "我养了一只柯基犬。", "score": 0.5,
           "relevance": 0.56, "explain": {"cos:multilingual-e5-small-q4": 0.875, "topic:pets": 1.0}}
    assert _hit_row(hit, explain=True)[-1] == "cos:multilingual-e5-small-q4=0.875, topic: pets"
