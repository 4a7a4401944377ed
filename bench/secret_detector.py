"""Secret detector figures: detection and false-positive rates on a labelled corpus, and scan speed.

Usage: python bench/secret_detector.py [--json] [--show]

The corpus (bench/secret_corpus.py) holds synthetic secrets in sentences, in every provider format
the detector knows plus passwords in prose, PINs and personal identifiers, and look-alikes (commit
hashes, UUIDs, versions, phone numbers, IMEIs, public keys, addresses). Speed: one megabyte of each of
several adversarial shapes (prose, digit runs, repeated keywords, PEM headers, URLs, random base62).
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import time
from pathlib import Path
from typing import Any, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from secret_corpus import look_alikes, secrets

from memctl.policy.secrets import find_secrets

MB = 1_000_000


def detection() -> dict[str, Any]:
    """Share of secrets covered by a finding, and of look-alikes with any finding."""
    missed = []
    for sentence, secret in secrets():
        start = sentence.index(secret)
        if not any(f.start < start + len(secret) and start < f.end for f in find_secrets(sentence)):
            missed.append(sentence)
    flagged = [text for text in look_alikes() if find_secrets(text)]
    total_s, total_l = len(secrets()), len(look_alikes())
    return {"secrets": total_s, "detected": round(100 * (total_s - len(missed)) / total_s, 1), "missed": missed,
            "look_alikes": total_l, "false_positives": round(100 * len(flagged) / total_l, 1), "flagged": flagged}


def shapes() -> dict[str, str]:
    rng = random.Random(3)
    base62 = string.ascii_letters + string.digits
    return {
        "prose": ("Alice likes tea and walks her dog every morning near the river. " * 16000)[:MB],
        "digit runs": ("1234 5678 " * 100_000)[:MB],
        "keywords": ("password: hunter2x token=abc " * 40_000)[:MB],
        "pem headers": ("-----BEGIN PRIVATE KEY-----\n" * 40_000)[:MB],
        "urls": (" ".join(f"https://example.com/item/{i}?ref=Tok9a{i}" for i in range(40_000)))[:MB],
        "random base62": "".join(rng.choice(base62 + "  ") for _ in range(MB)),
        "one long token": "a" * MB,
    }


def speed() -> dict[str, float]:
    """Seconds to scan one megabyte of each shape (best of three)."""
    out = {}
    for name, text in shapes().items():
        times = []
        for _ in range(3):
            start = time.perf_counter()
            find_secrets(text)
            times.append(time.perf_counter() - start)
        out[name] = round(min(times), 3)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="memctl secret detector: detection, false positives, speed.")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="list the missed secrets and flagged look-alikes")
    args = parser.parse_args(argv)
    result = {**detection(), "seconds_per_mb": speed()}
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    sys.stdout.write(f"detected {result['detected']}% of {result['secrets']} secrets; "
                     f"false positives on {result['false_positives']}% of {result['look_alikes']} look-alikes\n")
    for name, seconds in result["seconds_per_mb"].items():
        sys.stdout.write(f"  1 MB of {name}: {seconds:.3f} s\n")
    if args.show:
        for line in result["missed"]:
            sys.stdout.write(f"missed: {line!r}\n")
        for line in result["flagged"]:
            sys.stdout.write(f"flagged: {line!r} -> {[f.kind for f in find_secrets(line)]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
