"""Promotion can fire (usage counts every session a memory is returned in) and is strict."""

from __future__ import annotations

from tests.helpers import cli_json


def add(root, text, *args):
    code, env = cli_json(root, "add", "-u", "kim", "-s", "s1", text, *args)
    assert code == 0, env
    return env["data"]["memory"]["id"]


def promotions(root):
    code, env = cli_json(root, "compact", "--dry-run")
    assert code == 0, env
    return {a["ids"][0]: a["reason"] for a in env["data"]["plan"]["actions"] if a["kind"] == "promote"}


def test_a_memory_returned_in_two_sessions_is_promoted_and_the_plan_says_why(memdir):
    sure = add(memdir, "Kim deploys with Kubernetes and Helm", "--confidence", "0.9")
    for session in ("s1", "s2"):
        code, env = cli_json(memdir, "recall", "-u", "kim", "-s", session, "Kubernetes deploys")
        assert sure in {h["id"] for h in env["data"]["hits"]}
    reason = promotions(memdir)[sure]
    assert "returned in 2 sessions" in reason and "confidence 0.9" in reason and "not hedged" in reason
    code, env = cli_json(memdir, "compact")
    assert code == 0
    code, env = cli_json(memdir, "show", sure)
    assert env["data"]["memory"]["scope"] == "user"


def test_hedged_or_unsure_memories_are_never_promoted(memdir):
    hedged = add(memdir, "Maybe Kim dislikes Kubernetes, not sure.", "--source", "auto", "--confidence", "0.9",
                 "--tag", "remember")
    unsure = add(memdir, "Kim prefers Terraform for infrastructure", "--confidence", "0.7", "--tag", "remember")
    sure = add(memdir, "Kim's team ships on Fridays", "--tag", "remember")
    for session in ("s1", "s2", "s3"):
        cli_json(memdir, "recall", "-u", "kim", "-s", session, "Kim Kubernetes Terraform")
    planned = promotions(memdir)
    assert hedged not in planned and unsure not in planned
    assert "marked remember" in planned[sure]


def test_one_session_is_not_enough(memdir):
    once = add(memdir, "Kim is debugging the payment webhook")
    cli_json(memdir, "recall", "-u", "kim", "-s", "s1", "payment webhook")
    cli_json(memdir, "recall", "-u", "kim", "-s", "s1", "webhook")
    assert once not in promotions(memdir)
