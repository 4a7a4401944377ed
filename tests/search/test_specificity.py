"""Which query words name something specific (memctl.search.specificity): a table of queries."""

from __future__ import annotations

import pytest

from memctl.core.text import search_terms
from memctl.search.specificity import (
    COMMON_WORDS,
    SortedWords,
    acronyms,
    capitalised_runs,
    common_name_runs,
    common_stems,
    looks_like_a_name,
    part_names,
    specific_terms,
)


@pytest.mark.parametrize("query, specific", [
    ("schedule maintenance for my car", set()),  # a task's words: all common vocabulary
    ("Schedule maintenance for my car", set()),  # the capital opens the sentence
    ("book a hotel in Kyoto", {"kyoto"}),  # a capital inside the sentence: a name
    ("kyoto hotel", {"kyoto"}),  # typed in lower case, still not a common word
    ("Kyoto hotel", {"kyoto"}),
    ("when did Caroline and Melanie go camping", {"carolin", "melani"}),
    ("I'm renewing my passport", set()),  # "I'm" is always capitalised
    ("reset my iOS settings", {"io", "os"}),  # a capital after the first letter
    ("the createOrder call fails with ERR_42", {"createord", "creat", "order", "err_42", "err", "42"}),
    ("flight 2019 to 東京", {"2019", "東京"}),  # digits and CJK: never common English
    ("the zygomorphic flower", {"zygomorph"}),  # a rare word is not on the list
    ("", set()),
])
def test_specific_terms(query: str, specific: set[str]) -> None:
    assert specific_terms(query) == specific


def test_specific_terms_are_query_terms_as_the_index_stems_them() -> None:
    query = "Book the Hilton near Kyoto station"
    assert specific_terms(query) <= set(search_terms(query, "query"))


def test_a_word_off_the_list_is_specific() -> None:
    assert specific_terms("repair the car", frozenset({"repair"})) == {"car"}
    assert specific_terms("repair the car", frozenset({"repair", "car"})) == set()


@pytest.mark.parametrize("text, word, name", [
    ("my trip to Kyoto", "Kyoto", True), ("Kyoto trip", "Kyoto", False), ("Done. Kyoto next", "Kyoto", False),
    ("use McDonald", "McDonald", True), ("I think", "I", False), ("so I'd go", "I'd", False),
    ("the car", "car", False),
])
def test_looks_like_a_name(text: str, word: str, name: bool) -> None:
    start = text.index(word)
    assert looks_like_a_name(text, start, start + len(word)) is name


def test_the_shipped_list_holds_common_words_and_leaves_out_names() -> None:
    stems = common_stems()
    assert len(stems) > 10_000
    assert all(word in stems for word in ("aa", "car", "schedul", "mainten", "passport", "hotel", "zone"))
    assert not any(word in stems for word in ("kyoto", "toyota", "london", "pari", "", "zzzz", "#"))


def test_the_shipped_list_is_sorted_for_bisection() -> None:
    words = COMMON_WORDS.read_text(encoding="utf-8").split("\n")
    body = [w for w in words if w and not w.startswith("#")]
    assert body == sorted(set(body)) and len(body) == len(common_stems())


def test_sorted_words() -> None:
    words = SortedWords(["apple", "car", "zone"])
    assert "car" in words and "apple" in words and "zone" in words
    assert "ca" not in words and "cart" not in words and "zzz" not in words and 3 not in words


def test_a_possessive_name_is_a_name() -> None:
    from memctl.search.specificity import name_terms

    assert "kevin" in name_terms("what is Kevin's dog called")
    assert "kevin" in name_terms("what is Kevin\u2019s dog called")


def test_months_and_weekdays_are_no_names() -> None:
    from memctl.search.specificity import name_terms

    assert name_terms("When did Caroline attend a pride parade in August?", speakers=False) == {"carolin"}
    assert name_terms("What did Maria do on Monday, May 3?", speakers=False) == {"maria"}
    assert "kevin" in name_terms("What TV shows did Kevin watch in June?")


@pytest.mark.parametrize("a, b, same", [
    ("melani", "melani", True), ("mel", "melani", True), ("melani", "mel", True), ("rob", "robert", True),
    ("kevin", "kate", False), ("ed", "edward", False),  # two letters are too few to tell
    ("jon", "john", False), ("pari", "tokyo", False),
])
def test_a_shortened_name_is_the_same_name(a: str, b: str, same: bool) -> None:
    from memctl.search.specificity import same_name

    assert same_name(a, b) is same


def test_a_text_says_a_name_wherever_it_stands_and_by_its_shortening() -> None:
    from memctl.search.specificity import name_terms, other_names, says_name

    said = name_terms("What did John's colleague, Rob, invite him to?", speakers=False)
    assert says_name("John's colleague invited him to a yoga class.", said)  # opens the sentence; 'john' is common
    assert says_name("Melanie and her kids painted a sunset.", name_terms("What did Melanie paint?"))
    assert says_name("The kids painted a sunset with Melanie.", name_terms("What did Mel paint?"))
    assert not says_name("Kate watched Breaking Bad twice", name_terms("What TV shows did Kevin watch?"))
    assert not says_name("the rob of the bank", said)  # a lower-case word is no name
    assert other_names("Melanie met Caroline at the park.", {"mel"}) == {"carolin"}


def test_a_weekday_in_the_plural_is_no_name() -> None:
    from memctl.search.specificity import name_terms

    assert name_terms("Mark plays the drums in a jazz band on Fridays") == set()


@pytest.mark.parametrize("text", ["What did Ana give her nephew for Christmas?", "Where did Ana spend Easter?",
                                  "Is Ana coming for Thanksgiving this year?"])
def test_a_holiday_is_a_time_not_a_name(text: str) -> None:
    # a memory about Ana's present, dated in December, need not say "Christmas"
    from memctl.search.specificity import name_terms

    assert name_terms(text) == {"ana"}


@pytest.mark.parametrize("text, query", [
    ("Dangerous roads near the school worry the parents", "What did Dan say about the school?"),
    ("Time is short, the report is due on Friday", "What did Tim say about the report?"),
    ("Car insurance renewal is due in May", "Where does Caroline work?"),
    ("Robots will clean the office at night", "What did Rob clean?"),
])
def test_a_common_word_opening_a_sentence_is_no_shortened_name(text: str, query: str) -> None:
    from memctl.search.specificity import name_terms, says_name

    assert not says_name(text, name_terms(query, speakers=False))


@pytest.mark.parametrize("text, start, opens", [
    ("Kyoto", 0, True), ("  Kyoto", 2, True), ("book Kyoto", 5, False), ("Done. Kyoto", 6, True),
    ("Done.\n\n Kyoto", 8, True), ("A: Kyoto", 3, True), ("好的。 Kyoto", 4, True), ("x; Kyoto", 3, True),
    ("one, Kyoto", 5, False),
])
def test_a_word_opens_a_sentence_after_an_end_mark_and_blanks(text: str, start: int, opens: bool) -> None:
    from memctl.search.specificity import opens_a_sentence

    assert opens_a_sentence(text, start) is opens


def test_reading_names_in_a_long_dialogue_costs_the_same_per_word() -> None:
    """The review's 115 KB dialogue took minutes: each word's sentence check re-read every character
    before it. Now the check reads back only over blanks: a long text gives the same names."""
    from memctl.search.specificity import name_terms

    line = "A: we met Kevin near the Forth Bridge. then we left\nB: ok"
    assert name_terms("\n".join([line] * 2000)) == name_terms(line)


def test_acronyms_are_the_words_written_in_capitals() -> None:
    assert acronyms("How much did I owe HMRC in January?") == {"hmrc"}
    assert acronyms("did we get back from the IRS? Email HR") == {"ir", "hr"}  # stems, as name_terms gives them
    assert acronyms("What TV shows did Kevin watch?") == {"tv"} and acronyms("I met Kevin") == set()


def test_a_brand_written_as_a_name_is_a_name_in_chinese_and_english() -> None:
    from memctl.search.specificity import name_terms

    assert "ipad" in name_terms("帮我查下那台iPad还在不在保修期。", speakers=False)
    assert "iphon" in name_terms("What year did the first iPhone come out?", speakers=False)
    assert name_terms("my ebay account is locked", speakers=False) == set()  # no capital: no name
    assert name_terms("How many kWh did we use? Is the pool's pH ok, the fan 40 dB, my mRNA booster due?",
                      speakers=False) == set()  # units and a molecule: no brand


def test_a_name_of_several_common_words_is_one_run() -> None:
    assert common_name_runs("When was the Royal Mile paved?") == [frozenset({"royal", "mile"})]
    assert common_name_runs("Did Marcus Fenwick call?") == []  # an uncommon word names it alone
    assert capitalised_runs("Nina's Book Club") == [frozenset({"nina"}), frozenset({"book", "club"})]  # a possessive ends one
    assert capitalised_runs("Darts at the Royal Oak, then Wendy") == [frozenset({"dart"}), frozenset({"royal", "oak"}),
                                                                         frozenset({"wendi"})]


def test_a_word_said_only_in_another_name_is_part_of_that_name() -> None:
    runs = common_name_runs("When was the Royal Mile paved?")
    assert part_names("Darts at the Royal Oak with Wendy", runs) == {"royal"}
    assert part_names("We walked up the Royal Mile", runs) == set()
    assert part_names("Royal wedding on TV tonight", runs) == set()  # the word alone
    assert part_names("Nothing royal here", runs) == set()
