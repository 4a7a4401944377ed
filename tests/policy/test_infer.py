"""Plain statements to typed facts with the shipped recognisers: a table of statements (written for
this test, not the benchmark's), what is typed, what is not, and hostile or broken rule data."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from memctl.config import Config
from memctl.core.recognisers import Lexicon, parse_recogniser, word_pattern
from memctl.policy.infer import infer_kind
from memctl.store.kinds import KindFiles
from tests.policy.linear import finishes

TODAY = date(2026, 1, 10)


@pytest.fixture(scope="module")
def shipped() -> KindFiles:
    kinds = KindFiles(None, Config())
    assert kinds.typing.recognisers and not kinds.drain_problems()
    return kinds


def infer(kinds: KindFiles, text: str, today: date = TODAY) -> tuple[str | None, dict[str, Any]]:
    rules = kinds.typing
    found = infer_kind(text, today, rules.recognisers, kinds.schemas, rules.lexicon, rules.common)
    return (found.kind, found.fields) if found else (None, {})


@pytest.mark.parametrize("text, kind, fields", [
    ("My US passport expires on 2 April 2026", "passport", {"country": "US", "expires": "2026-04-02"}),
    ("我的美国护照2026年4月2日到期", "passport", {"country": "US", "expires": "2026-04-02"}),
    ("I'm flying to Tokyo on 10 March 2026 for an international trip", "trip",
     {"destination": "Tokyo", "departs": "2026-03-10", "international": True}),
    ("我3月10日飞东京，国际行程", "trip", {"destination": "东京", "departs": "2026-03-10", "international": True}),
    ("Road trip to Denver from Chicago, 4-9 August", "trip",
     {"destination": "Denver", "departs": "2026-08-04", "returns": "2026-08-09"}),
    ("Flight UA 881 to Tokyo departs 2026-02-20", "flight", {"departs": "2026-02-20", "number": "UA 881"}),
    ("I take 40 mg of simvastatin at night", "medication", {"name": "simvastatin", "dose": "40 mg"}),
    ("每天早上吃氨氯地平5毫克", "medication", {"name": "氨氯地平", "dose": "5 mg"}),
    ("I'm allergic to penicillin", "allergy", {"substance": "penicillin"}),
    ("我对花生过敏", "allergy", {"substance": "花生"}),
    ("The Corolla's MOT is due on 3 May", "vehicle", {"name": "Corolla", "inspection_due": "2026-05-03"}),
    ("The gym contract ends on 2026-09-30", "contract", {"name": "gym contract", "ends": "2026-09-30"}),
    ("The fridge warranty runs out on 2027-06-01", "warranty", {"item": "fridge", "expires": "2027-06-01"}),
    ("Mia's birthday is 14 February", "birthday", {"person": "Mia", "date": "2026-02-14"}),
    ("妈妈的生日是6月8号", "birthday", {"person": "妈妈", "date": "2026-06-08"}),
    ("File the tax return by 2026-04-15", "task", {"due": "2026-04-15"}),
    ("Spent €85 on concert tickets on 3 January", "expense", {"amount": "85 EUR", "spent": "2026-01-03"}),
])
def test_statements_become_typed_facts(shipped: KindFiles, text: str, kind: str, fields: dict[str, Any]) -> None:
    got_kind, got_fields = infer(shipped, text)
    assert got_kind == kind
    assert {k: got_fields.get(k) for k in fields} == fields


@pytest.mark.parametrize("text", [
    "Where did I put my passport?",
    "Maybe we will travel to Peru someday",
    "My passport photo looks terrible",
    "I love road trips",
    "我们取消了去日本的旅行",
    "护照放在书房的抽屉里",
    "Is ibuprofen safe with coffee?",
    "The 2018 Civic is a good car",
    "Alice prefers window seats on flights",
    "我喜欢吃辣",
])
def test_statements_that_are_no_kind(shipped: KindFiles, text: str) -> None:
    assert infer(shipped, text) == (None, {})


def test_a_configured_kind_is_recognised_by_its_own_words() -> None:
    config = Config.model_validate({
        "schemas": {"gym": {"fields": {"gym": {"type": "text", "required": True}, "renews": "date"}}},
        "recognisers": {"gym": {"cues": ["gym", "健身房"], "fields": {"gym": {"with_cue": True},
                                                               "renews": {"after": ["renews"], "before": ["续费"]}}}}})
    kinds = KindFiles(None, config)
    assert infer(kinds, "The climbing gym renews on 2026-03-01") == ("gym", {"gym": "climbing gym", "renews": "2026-03-01"})
    assert not kinds.drain_problems()


@pytest.mark.parametrize("raw, error", [
    ({"cues": "passport"}, "cues"),
    ({"cues": ["x" * 200]}, "cues"),
    ({"cues": ["ok"], "fields": {"expires": {"regex": "(a+)+$"}}}, "fields.expires.regex"),
    ({"cues": ["ok"], "priority": 10_000}, "priority"),
    ({"cues": ["ok"] * 500}, "cues"),
])
def test_recogniser_data_is_bounded_and_never_code(raw: dict[str, Any], error: str) -> None:
    with pytest.raises(ValueError, match=error.split(".")[0]):
        parse_recogniser("passport", raw)


def test_words_are_matched_as_literals() -> None:
    pattern = word_pattern(["(a+)+$", "expir*", "*statin", "US"])
    assert pattern is not None
    assert pattern.search("it expires soon") and pattern.search("atorvastatin daily")
    assert not pattern.search("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!") and not pattern.search("tell us")
    assert pattern.search("literal (a+)+$ text")


def test_a_long_list_split_by_first_letters_matches_what_one_alternation_does(shipped: KindFiles,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import random

    from memctl.core import recognisers

    lexicon = shipped.typing.lexicon
    names = [n for table in (lexicon.places, lexicon.countries) for names in table.values() for n in names]
    names += ["İzmir", "ſtrange", "\u212aelvin town", "iZMIR", "US", "us town"]
    grouped = recognisers._word_pattern.__wrapped__(tuple(names))
    monkeypatch.setattr(recognisers, "GROUPED", 10**9)
    plain = recognisers._word_pattern.__wrapped__(tuple(names))
    assert grouped is not None and plain is not None and grouped.pattern != plain.pattern
    rng = random.Random(7)
    texts = [f"{v} then {rng.choice(names)}x, {rng.choice(names)}{v[:-1]}" for n in names
             for v in (n, n.lower(), n.upper())]
    texts += ["".join(rng.choice("ab kst İıſ\u212aUS北京东京上海") for _ in range(60)) for _ in range(500)]
    for text in texts:
        assert [m.span() for m in grouped.finditer(text)] == [m.span() for m in plain.finditer(text)], text


def _one_alternation(words: list[str]) -> re.Pattern[str]:
    """The reference: every word its own piece, each with its own word-start test, in length order."""
    pieces = []
    for word in sorted(set(words), key=len, reverse=True):
        stem = word.strip("*") or word
        head = "" if not word.startswith("*") or len(word) < 2 else (
            r"(?-i:[\u4e00-\u9fff]{1,4})" if re.match(r"[\u4e00-\u9fff]", stem[0]) else r"\w{2,40}")
        tail = r"\w*" if word.endswith("*") and len(word) > 1 else ""
        cjk = (re.match(r"[\u4e00-\u9fff]", stem[0]), re.match(r"[\u4e00-\u9fff]", stem[-1]))
        left = r"(?<!\w)" if re.match(r"\w", stem[0]) and not cjk[0] else ""
        right = r"(?!\w)" if (not tail and re.match(r"\w", stem[-1]) and not cjk[1]) or (head and not cjk[1]) else ""
        piece = left + head + re.escape(stem) + tail + right
        pieces.append(f"(?-i:{piece})" if stem.isupper() and len(stem) <= 5 else piece)
    return re.compile("|".join(pieces), re.IGNORECASE)


def test_find_words_matches_what_one_alternation_of_the_words_does(shipped: KindFiles) -> None:
    """The shared word-start test and the skip when a text holds none of the words change no match
    (the dotted and dotless I, the Kelvin sign and the long s, which `re` matches to ASCII letters)."""
    import random

    from memctl.core.recognisers import expand, find_words

    rules = shipped.typing
    lists = [expand(words, rules.lexicon) for rec in rules.recognisers for words in (rec.cues, rec.unless) if words]
    lists += [[n for names in rules.lexicon.countries.values() for n in names]]
    extra = ["expir*", "*statin", "*药", "US", "ana", "+1", "kiss", "İzmir", "sto*", "北京", "Kelvin", "Côte d'Ivoire"]
    lists += [extra, extra[:4], ["iss", "KISS"]]
    rng = random.Random(11)
    pool = [w.strip("*") for words in lists for w in words]
    texts = [f"{rng.choice(pool)} and {rng.choice(pool).upper()}{rng.choice(pool).lower()} {rng.choice(pool)}s"
             for _ in range(300)]
    texts += ["".join(rng.choice("aiks tUSn İıſ\u212a北京药+1é") for _ in range(50)) for _ in range(300)]
    for words in lists:
        reference = _one_alternation(words)
        for text in texts:
            assert [m.span() for m in find_words(words, text)] == [m.span() for m in reference.finditer(text)], (words[:3], text)


def test_a_word_ending_in_a_stem_is_read_at_most_forty_letters_back() -> None:
    """`*statin` reads a bounded run before the stem, so a hostile run of 2,000 letters is not tried
    from each place to its end (0.9 s a statement before): the match then starts 40 letters back."""
    from memctl.core.recognisers import find_words

    assert [m.group(0) for m in find_words(["*statin"], "I take atorvastatin")] == ["atorvastatin"]
    long = find_words(["*statin"], "x" * 100 + "statin")
    assert [(m.start(), m.end()) for m in long] == [(60, 106)]


def test_a_hostile_folder_is_reported_and_skipped(tmp_path) -> None:
    (tmp_path / "recognisers").mkdir()
    (tmp_path / "recognisers" / "bad.toml").write_text("[passport]\ncues = [1, 2]\n[lexicon.countries]\nxx = ['Nowhere']\n")
    (tmp_path / "recognisers" / "huge.toml").write_text("# " + "x" * 300_000)
    kinds = KindFiles(tmp_path, Config())
    assert infer(kinds, "My US passport expires on 2 April 2026")[0] == "passport"  # the shipped one still types
    problems = "\n".join(kinds.drain_problems())
    assert "recognisers/bad.toml" in problems and "recognisers/huge.toml" in problems and "'xx'" in problems


def test_lexicon_merges() -> None:
    from memctl.core.recognisers import merge_lexicon

    lexicon = Lexicon()
    assert merge_lexicon(lexicon, {"places": {"FR": ["Lyon"]}, "home": {"han": "cn"}}) == []
    assert lexicon.places == {"FR": ["Lyon"]} and lexicon.home == {"han": "CN"}
    assert merge_lexicon(lexicon, {"nonsense": 3})


def _written_for_tests() -> list[tuple[str, str]]:
    from tests.helpers import TESTS

    lines = (TESTS / "fixtures" / "typing_statements.txt").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split(" | ", 1)) for line in lines if line.strip() and not line.startswith("#")]  # type: ignore[misc]


@pytest.mark.parametrize("kind, text", _written_for_tests())
def test_the_kind_of_statements_written_for_the_tests(shipped: KindFiles, kind: str, text: str) -> None:
    assert (infer(shipped, text)[0] or "none") == kind


def test_a_folder_cannot_grow_the_rules_without_bound(tmp_path) -> None:
    (tmp_path / "recognisers").mkdir()
    many = "".join(f"[kind{i}]\nkind = 'trip'\ncues = ['zzz{i}']\n" for i in range(260))
    (tmp_path / "recognisers" / "many.toml").write_text(many)
    codes = ["FR", "DE", "IT", "ES", "PT", "NL", "BE", "AT", "CH", "SE"]
    for n in range(6):
        table = "".join(f"{code} = [{', '.join(repr(f'P{n} {code} {i}') for i in range(400))}]\n" for code in codes)
        (tmp_path / "recognisers" / f"places{n}.toml").write_text("[lexicon.places]\n" + table)
    kinds = KindFiles(tmp_path, Config())
    rules = kinds.typing
    assert len(rules.recognisers) <= 200
    assert sum(len(v) for v in rules.lexicon.places.values()) <= 20_000
    problems = "\n".join(kinds.drain_problems())
    assert "skipped: more than 200" in problems and "more than 20000 names" in problems


def test_a_long_digit_run_is_read_in_linear_time() -> None:
    """Money and quantities read an amount from every digit of a long run, each start reading the rest
    of it before finding no currency or unit: 2,000 digits took 7 s, 4,000 over 27 s."""
    assert finishes(
        "from memctl.policy import spots\n"
        "for text in ('1' * 100000, '1' * 100000 + ' USD', '12,345' * 20000, '9' * 50000 + '万'):\n"
        "    spots._money(text), spots._quantities(text)\n"
        "assert [s.value for s in spots._money('paid USD 1,200 then 30 dollars and 12,3456 RMB')] == \\\n"
        "    ['1200 USD', '30 USD', '3456 CNY']\n")
