"""A fake LLM command for tests: reads the prompt on stdin, prints a canned answer on stdout.

    python tests/fake_llm.py [--calls FILE] extract   every "remember[:type][@key]: text" message
                                                      becomes a JSON Lines candidate
    python tests/fake_llm.py [--calls FILE] array     the same candidates as one JSON array
    python tests/fake_llm.py [--calls FILE] garbage   prose, not JSON
    python tests/fake_llm.py [--calls FILE] nocontent a candidate without content
    python tests/fake_llm.py [--calls FILE] structure  each numbered memory naming a passport and a
                                                      date YYYY-MM-DD is typed as a passport expiring
                                                      then (plus a line that is not JSON)
    python tests/fake_llm.py [--calls FILE] decide DEFAULT [SUBSTRING=ACTION ...]
        a write decision about the first existing memory: ACTION for the first SUBSTRING found in
        the new memory's text, else DEFAULT (ADD, UPDATE, DELETE, NOOP)

--calls FILE appends one line per call, so a test can count model calls; --prompt FILE (after
--calls) keeps the last prompt. "remember: text (replaces N)" answers with "replaces": N, and
"remember: text {passport expires=2026-04-02 country=US}" with that kind and those fields.
"""

from __future__ import annotations

import json
import re
import sys

_MESSAGE = re.compile(r"^\[(?P<id>[^\]]+)\](?: \S+Z)? (?P<role>[\w-]+): (?P<content>.*)$")
_REPLACES = re.compile(r"\s*\(replaces (\d+)\)\s*$")
_TYPED = re.compile(r"\s*\{(?P<kind>\w+)(?P<fields>(?: \w+=\S+)*)\}\s*$")
_REMEMBER = re.compile(r"^remember(?::(?P<type>[\w-]+))?(?:@(?P<key>[\w.-]+))?:\s*(?P<text>.+)$", re.I)


def candidates(prompt: str) -> list[dict]:
    out = []
    for line in prompt.splitlines():
        message = _MESSAGE.match(line)
        wanted = _REMEMBER.match(message.group("content")) if message else None
        if wanted:
            item = {"content": wanted.group("text"), "type": wanted.group("type") or "fact",
                    "confidence": 0.9, "source_message_ids": [message.group("id")], "extra_field": "ignored"}
            if wanted.group("key"):
                item["key"] = wanted.group("key")
            typed = _TYPED.search(item["content"])
            if typed:
                item["content"], item["kind"] = item["content"][:typed.start()], typed.group("kind")
                item["fields"] = dict(pair.split("=", 1) for pair in typed.group("fields").split())
            replaces = _REPLACES.search(item["content"])
            if replaces:
                item["content"], item["replaces"] = item["content"][:replaces.start()], int(replaces.group(1))
            out.append(item)
    return out


def structure(prompt: str) -> list[str]:
    out = ["Here you are:"]
    for line in prompt.split("MEMORIES:", 1)[-1].splitlines():
        numbered = re.match(r"^\[(\d+)\] \(written [^)]*\) (.*)$", line)
        day = re.search(r"\d{4}-\d{2}-\d{2}", numbered.group(2)) if numbered else None
        if numbered and day and "passport" in numbered.group(2).lower():
            out.append(json.dumps({"n": int(numbered.group(1)), "kind": "passport",
                                   "fields": {"expires": day.group(0), "colour": "ignored"}}))
    return out


def decide(prompt: str, default: str, rules: list[str]) -> dict:
    new_text = json.loads(prompt.split("NEW MEMORY", 1)[1].split("\n", 2)[1])
    target = re.search(r"^- id (\S+) ", prompt, re.M).group(1)
    action = default
    for rule in rules:
        needle, _, answer = rule.rpartition("=")
        if needle in new_text:
            action = answer
            break
    answer = {"action": action, "target": None if action == "ADD" else target, "reason": f"fake said {action}"}
    if action == "UPDATE":
        answer["text"] = new_text
    return answer


def main(argv: list[str]) -> int:
    prompt = sys.stdin.read()
    if argv[:1] == ["--calls"]:
        with open(argv[1], "a", encoding="utf-8") as handle:
            handle.write("call\n")
        argv = argv[2:]
    if argv[:1] == ["--prompt"]:  # keep the last prompt, so a test can read what the model saw
        with open(argv[1], "w", encoding="utf-8") as handle:
            handle.write(prompt)
        argv = argv[2:]
    mode = argv[0] if argv else "extract"
    if mode == "extract":
        print("\n".join(json.dumps(c) for c in candidates(prompt)))
    elif mode == "array":
        print("```json\n" + json.dumps(candidates(prompt)) + "\n```")
    elif mode == "garbage":
        print("Sure! Here are the memories I found: Alice likes tea.")
    elif mode == "nocontent":
        print(json.dumps({"type": "fact", "confidence": 0.9}))
    elif mode == "structure":
        print("\n".join(structure(prompt)))
    elif mode == "decide":
        print(json.dumps(decide(prompt, argv[1], argv[2:])))
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
