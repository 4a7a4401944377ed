"""The shipped everyday-topic lexicon (memctl/data/topics.toml): it reads, it stays within the limits
topic.py sets for a lexicon, no word names more than two topics, sentences about nothing match no
topic, and everyday sentences match the topic they are about (under topic.py's own matching)."""

from __future__ import annotations

import json
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

import pytest

import memctl
from memctl.core.text import search_terms
from memctl.policy.topic import MAX_KINDS, checked_lexicon, kinds_in, lexicon
from memctl.store.topicwords import MAX_TOPIC_WORDS

TOPICS = Path(memctl.__file__).resolve().parent / "data" / "topics.toml"
LANGUAGES = ("en", "zh")


def _tables() -> dict:
    return tomllib.loads(TOPICS.read_text(encoding="utf-8"))


def _words() -> dict[str, dict[str, list[str]]]:
    return {name: table["words"] for name, table in _tables().items()}


LEXICON = lexicon(_words())

GENERIC = [
    "I think so", "ok, sounds good", "let me check and get back to you", "thanks a lot, that helps",
    "can you do that for me?", "what do you mean by that?", "I'm not sure about this", "yes, that's right",
    "no, that's not what I meant", "could you say that again", "that makes sense", "let's do it tomorrow",
    "I'll take a look later", "sorry, I forgot", "see you soon", "what do you think?",
    "it depends on the situation", "that doesn't work for me", "please remind me next week",
    "how are you doing?", "I agree with you", "maybe later", "apart from that, everything is fine",
    "we can talk about it another time", "I'll try my best", "we'd rather wait", "it's up to you",
    "好的，我知道了", "谢谢你", "没问题", "我觉得可以", "稍等一下", "你说什么？", "我不太确定", "再说一遍好吗",
    "明天再说吧", "我会尽快回复你", "这个怎么样？", "对，就是这样", "我不是这个意思", "等我看一下", "随便你",
    "早上好", "辛苦了", "那就这样吧", "我想想", "有空再聊", "知道了，谢谢", "你决定吧", "没关系", "下次再说",
    "你会后悔的", "这样做有很大风险",
]

EVERYDAY = [
    ("我的狗该打疫苗了", "pets"), ("带宠物去看兽医", "pets"), ("my car needs a service", "cars"),
    ("the brakes squeal when I stop", "cars"), ("schedule maintenance for my car", "cars"),
    ("I've had a headache and a fever since Monday", "health"), ("我最近老是头疼，想去医院看看", "health"),
    ("remind me to take my pills at 8", "medication"), ("医生给我开了抗生素，一天三次", "medication"),
    ("recommend a Thai restaurant", "restaurants"), ("今晚想出去吃火锅", "food"),
    ("I have a severe peanut allergy", "allergies"), ("我对海鲜过敏", "allergies"),
    ("I went jogging before work", "fitness"), ("我每周去三次健身房", "fitness"),
    ("周末回老家看爸妈", "family"), ("my boyfriend and I broke up", "partner"), ("宝宝开始长牙了", "children"),
    ("孩子的作业太多了", "school"), ("我在准备考研", "university"), ("I have a job interview on Friday", "job"),
    ("今天又加班到十点", "office"), ("move the standup to 10am", "meetings"), ("明天上午开会讨论预算", "meetings"),
    ("the project deadline is next Friday", "projects"), ("the pull request needs a code review", "software"),
    ("服务器昨天晚上宕机了", "servers"), ("线上报错了，赶紧排查", "bugs"), ("what's the status of my loan", "loans"),
    ("房贷每个月还八千", "loans"), ("车险下个月到期", "insurance"), ("I need to file my tax return", "taxes"),
    ("最近股票跌了很多", "investments"), ("双十一买了好多东西", "shopping"), ("房东要涨房租了", "home"),
    ("下个月搬家到上海", "moving"), ("the washing machine is leaking", "repairs"), ("这个月电费好贵", "utilities"),
    ("I dropped my phone and cracked the screen", "phones"), ("电脑开不了机了", "computers"),
    ("每天坐地铁上班", "transport"), ("my flight to Tokyo is delayed", "flights"), ("国庆去云南旅游", "trips"),
    ("my passport expires in March", "documents"), ("it's going to rain all weekend", "weather"),
    ("周末去看演唱会", "music"), ("最近在看一本小说", "reading"), ("we watched a movie last night", "films"),
    ("晚上和朋友打游戏", "games"), ("周末去拍照", "photography"), ("阳台上的多肉又开花了", "gardening"),
    ("I've taken up pottery", "arts"), ("我每天写日记", "writing"), ("her birthday party is on Saturday", "events"),
    ("春节回家过年", "holidays"), ("I caught up with an old friend", "social"), ("I'm learning Spanish", "language"),
    ("cancel my streaming subscription", "subscriptions"), ("合同里有霸王条款", "legal"),
    ("we go to church on Sundays", "religion"), ("周末去做义工", "volunteering"),
    ("I forgot my password again", "passwords"), ("这个大客户要求降价", "customers"),
    ("who are you voting for in the election", "politics"), ("最近压力很大，心情不好", "mental_health"),
    ("昨晚又失眠了", "sleep"), ("I'm trying to cut carbs and lose weight", "diet"), ("今晚自己在家做饭", "cooking"),
    ("we went hiking in the mountains", "outdoors"), ("晚上看球赛", "sports"), ("I need a haircut", "personal_care"),
    ("I need to do the laundry", "housework"), ("I bought a new winter coat", "clothes"),
]


def test_every_topic_has_a_description_and_words_in_each_language() -> None:
    tables = _tables()
    assert len(tables) >= 40
    for name, table in tables.items():
        assert isinstance(table.get("description"), str) and table["description"].strip(), name
        assert set(table["words"]) == set(LANGUAGES), name
        for language in LANGUAGES:
            words = table["words"][language]
            assert 30 <= len(words) <= 200, (name, language, len(words))
            assert all(isinstance(w, str) and w.strip() == w and 0 < len(w) <= 40 for w in words), name


def test_topic_py_accepts_it_within_its_limits() -> None:
    """The limits the shipped lexicon is read back with (services/signals.py topic_lexicon), not a kind's."""
    assert set(LEXICON) == set(_tables()) and len(LEXICON) <= MAX_KINDS
    assert checked_lexicon(json.loads(json.dumps(LEXICON)), MAX_TOPIC_WORDS) == {
        name: (tuple(stems), tuple(cjk)) for name, (stems, cjk) in LEXICON.items()}
    assert all(len(stems) + len(cjk) <= MAX_TOPIC_WORDS for stems, cjk in LEXICON.values())
    biggest = max(LEXICON, key=lambda name: sum(map(len, LEXICON[name])))
    with pytest.raises(ValueError):  # the limit is the one that holds: one topic's words fewer fail it
        checked_lexicon(json.loads(json.dumps(LEXICON)), sum(map(len, LEXICON[biggest])) - 1)


@pytest.mark.parametrize("text, topic", [
    ("He painted the fence", "sports"),  # "fencing" stems to "fenc", as "fence" does
    ("I ate a bowl of soup", "sports"),  # "bowling": "bowl"
    ("we sat in the front row", "sports"),  # "rowing": "row"
])
def test_a_word_that_only_shares_a_topic_words_stem_is_not_that_topic(text: str, topic: str) -> None:
    assert topic not in kinds_in([text], LEXICON)


@pytest.mark.parametrize("text", ["the fencing club meets on Tuesdays", "we went bowling on Friday",
                                  "she joined the rowing team"])
def test_those_sports_are_still_read_in_their_phrases(text: str) -> None:
    assert "sports" in kinds_in([text], LEXICON)


def test_english_words_are_lowercase_and_each_says_something() -> None:
    for name, by_language in _words().items():
        for word in by_language["en"]:
            assert word == word.lower() and search_terms(word, "query"), (name, word)


def test_no_word_twice_in_a_topic() -> None:
    for name, by_language in _words().items():
        words = [w.casefold() for language in LANGUAGES for w in by_language[language]]
        assert not [w for w, n in Counter(words).items() if n > 1], name


def test_no_word_names_more_than_two_topics() -> None:
    """Counted as topic.py matches them: an English word by its stems, a Chinese word by its text."""
    topics_of: dict[object, set[str]] = defaultdict(set)
    for name, (stems, cjk) in LEXICON.items():
        for form in (*stems, *cjk):
            topics_of[form].add(name)
    assert not {form: names for form, names in topics_of.items() if len(names) > 2}


@pytest.mark.parametrize("sentence", GENERIC)
def test_a_sentence_about_nothing_names_no_topic(sentence: str) -> None:
    assert kinds_in([sentence], LEXICON) == frozenset()


@pytest.mark.parametrize(("sentence", "topic"), EVERYDAY)
def test_an_everyday_sentence_names_its_topic(sentence: str, topic: str) -> None:
    assert topic in kinds_in([sentence], LEXICON)
