"""What a user gets by default, with the real models: requests phrased as a person would, over
memories written as a person would (the seed's assistant scenarios and a bilingual store). Each
case once held the right memory back (issue 23)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memctl.api import MemoryStore
from memctl.config import parse_config

pytestmark = pytest.mark.model

EVERYDAY = [
    "My passport number is X1234567 and it expires in 2027",
    "I'm allergic to peanuts, badly",
    "I prefer window seats on long flights",
    "My dentist is Dr. Lee on Main Street",
    "The gym membership at FitLife renews every January",
    "I work as a data engineer at Initech",
]


def defaults(store: MemoryStore, query: str, user: str = "dana") -> list[str]:
    """The texts `recall` returns by default (nothing passed but the query and the user)."""
    return [h.content for h in store.recall(query, users=[user], record_usage=False).hits]


def fill(store: MemoryStore, texts: list[str], user: str = "dana") -> None:
    for text in texts:
        store.add_raw(text, type="fact", user=user, source="user")


def test_schedule_maintenance_for_my_car_brings_both_cars(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    store.add("2019 Toyota Camry, bought 2019", user="dana", kind="vehicle", fields={"name": "Toyota Camry"})
    store.add("Tesla Model 3, leased", user="dana", kind="vehicle", fields={"name": "Tesla Model 3"})
    got = defaults(store, "Schedule maintenance for my car")
    assert "2019 Toyota Camry, bought 2019" in got and "Tesla Model 3, leased" in got


ERRANDS = ["My library card renews automatically every January.", "I have a standing desk at the office.",
           "Our cat Miso hides from the vacuum cleaner.", "Rescheduled the boiler service to the 14th.",
           "I ordered new running shoes from Decathlon last week.", "I take the 8:10 train to work most days.",
           "My sister Priya lives in Leeds with her two boys.", "I'm allergic to penicillin.",
           "We're saving for a loft conversion, about £40k.", "I play five-a-side football on Tuesday nights.",
           "My dentist is Dr Okafor on Mill Road.", "The car is a 2018 Skoda Octavia estate.",
           "I usually work from home on Fridays.", "Our wedding anniversary is 12 June."]


def test_a_task_is_about_its_object_not_the_verb_it_opens_with(store: MemoryStore) -> None:
    """'Reschedule' is what to do: a memory saying 'rescheduled' of something else is no answer."""
    fill(store, ERRANDS)
    assert not store.context("Reschedule my violin lesson.")["items"]
    assert "Rescheduled the boiler service to the 14th." in defaults(store, "Reschedule the boiler service.")
    assert "My library card renews automatically every January." in defaults(store, "Renew my library card.")


def test_a_motorcycle_the_store_never_mentions_does_not_bring_the_family_car(store: MemoryStore) -> None:
    # a vehicle by its words, but another one: the store says nothing of a motorcycle
    fill(store, [*EVERYDAY, "We're down to one car since Sam started cycling to work"])
    assert defaults(store, "Book an oil change for my motorcycle.") == []
    assert "We're down to one car since Sam started cycling to work" in defaults(store, "Schedule maintenance for my car")


def test_the_status_of_my_loan_brings_the_contract_in_force_not_only_the_old_quote(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    store.add_raw("Loan quote from Acme Bank: 6.1% over 15 years", type="fact", user="dana", state="inactive")
    store.add_raw("Mortgage contract with First Bank: 3.5% fixed for 30 years, signed in 2021", type="fact",
                  user="dana")
    result = store.recall("what's the status of my loan", users=["dana"], record_usage=False)
    in_force = [h.content for h in result.hits if h.in_force]
    assert in_force and in_force[0].startswith("Mortgage contract with First Bank")


def test_a_broken_phone_screen_brings_every_protection(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    fill(store, ["My iPhone 15 is covered by AppleCare+ until March 2026",
                 "My Visa card extends the manufacturer's warranty by a year on anything I buy with it",
                 "The phone has carrier insurance through T-Mobile, $29 deductible for accidental damage"])
    got = defaults(store, "What are my options, my phone screen broke")
    assert any(t.startswith("My iPhone 15") for t in got)
    assert any(t.startswith("My Visa card extends") for t in got)
    assert any(t.startswith("The phone has carrier insurance") for t in got)


ZH_MEMORIES = {
    "wife": "我太太在一家医院做护士，经常上夜班。",
    "car": "去年换了一辆比亚迪汉，纯电的。",
    "allergy": "我对青霉素过敏，打针前一定要提醒医生。",
    "school": "儿子今年九月上小学一年级，学校离家走路十分钟。",
    "salary": "我每个月工资一万八，十号发。",
    "home": "我们家住在杭州西湖区，小区叫翠苑。",
}
ZH_QUESTIONS = {  # each shares no word with its memory: only the meaning finds it
    "wife": "我老婆是做什么工作的？",
    "allergy": "看病的时候有什么药不能用？",
    "school": "孩子念几年级了？",
    "salary": "我一个月挣多少钱？",
    "home": "我住在哪个城市？",
}


def zh_dir(root: Path) -> MemoryStore:
    text = (root / "memctl.toml").read_text().replace('language = "en"', 'language = "zh"')
    (root / "memctl.toml").write_text(text)
    return MemoryStore(root, config=parse_config(text))


def zh_store(root: Path) -> MemoryStore:
    store = zh_dir(root)
    for body in ZH_MEMORIES.values():
        store.add_raw(body, type="fact", user="wang", source="user")
    return store


# Known weakness (issue 28): a Chinese paraphrase that shares no word with its memory, with a top
# cosine the calibration data's absent-entity negatives reach too and no clear margin, stays held back.
WEAK = pytest.mark.xfail(reason="no shared word and no clear margin: held back (bench/README.md, Chinese)",
                         strict=False)


@pytest.mark.parametrize("topic", [t if t != "wife" else pytest.param(t, marks=WEAK)
                                   for t in sorted(ZH_QUESTIONS)])
def test_a_chinese_paraphrase_question_gets_its_memory_by_default(memdir: Path, topic: str) -> None:
    store = zh_store(memdir)
    got = defaults(store, ZH_QUESTIONS[topic], user="wang")
    assert ZH_MEMORIES[topic] in got


def test_where_does_hank_live_ranks_where_he_lives_first_in_a_bilingual_store(store: MemoryStore) -> None:
    for text in ("Hank has a dog named Rex", "Hank lives in Beijing", "Hank works at a bank as an analyst",
                 "Hank likes jazz and plays the saxophone", "Hank 的生日是五月三号"):
        store.add(text, type="fact", user="hank")
    store.add("Hank 搬到了上海", type="fact", user="hank")
    hits = store.recall("where does Hank live", users=["hank"], record_usage=False).hits
    top = [h.content for h in hits[:2]]
    assert "Hank lives in Beijing" in [h.content for h in hits]
    assert set(top) <= {"Hank lives in Beijing", "Hank 搬到了上海"}, top


def test_by_keyword_alone_the_move_to_shanghai_is_not_lifted_over_where_hank_lives(store: MemoryStore) -> None:
    for text in ("Hank has a dog named Rex", "Hank lives in Beijing", "Hank works at a bank as an analyst"):
        store.add(text, type="fact", user="hank")
    store.add("Hank 搬到了上海", type="fact", user="hank")
    hits = store.recall("where does Hank live", users=["hank"], mode="keyword", record_usage=False).hits
    assert hits[0].content == "Hank lives in Beijing"
    assert all(h.score < hits[0].score for h in hits[1:])


def test_continue_with_that_error_in_a_session_brings_the_sessions_memory(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    store.add_raw("bug456: parse_date raises TypeError when the timestamp has a timezone offset", type="context",
                  user="dana", session="bug456")
    block = store.context("continue with that error", user="dana", session="bug456")
    assert "parse_date raises TypeError" in block["text"]


BUDGET_TALKS = [("We discussed the budget for the kitchen renovation: a 20k cap", "2026-09-12"),
                ("Budget review: we agreed to move 5k from travel to the kitchen", "2026-10-20")]


def test_when_did_we_last_discuss_the_budget_answers_with_the_later_talk_and_its_date(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    for text, day in BUDGET_TALKS:
        store.add_raw(text, type="event", user="dana", occurred=day)
    hits = store.recall("When did we last discuss the budget?", users=["dana"], record_usage=False).hits
    assert hits[0].content.startswith("Budget review") and hits[0].date == "2026-10-20"
    block = store.context("When did we last discuss the budget?", user="dana")
    assert "2026-10-20] Budget review" in block["text"]
    first = store.recall("我们第一次讨论预算是什么时候？", users=["dana"], record_usage=False).hits
    assert first[0].content.startswith("We discussed the budget") and first[0].date == "2026-09-12"


def test_a_thai_restaurant_brings_the_peanut_allergy(store: MemoryStore) -> None:
    fill(store, [t for t in EVERYDAY if "peanut" not in t])
    store.add_raw("severe peanut allergy", type="fact", user="dana", source="user")
    got = store.recall("Recommend a Thai restaurant", users=["dana"], record_usage=False).hits
    assert [h.content for h in got if h.constraint] == ["severe peanut allergy"]
    assert "severe peanut allergy" in store.context("推荐一家泰国餐厅", user="dana")["text"]


def test_a_trip_brings_the_visa_and_the_wheelchair(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    fill(store, ["I need a visa for any trip to China", "Dana uses a wheelchair, so places need step-free access"])
    got = defaults(store, "Plan my trip to Shanghai in May")
    assert "I need a visa for any trip to China" in got
    assert "Dana uses a wheelchair, so places need step-free access" in got


def test_a_name_for_a_puppy_gets_no_profile_and_never_the_passport_number(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    block = store.context("Suggest a name for my puppy", user="dana")
    assert block["items"] == [] and block["profile_lines"] == 0
    assert "X1234567" not in block["text"]


@pytest.mark.parametrize("request_", ["Write a haiku about autumn leaves", "Explain how a rainbow forms"])
def test_a_request_unrelated_to_any_memory_gets_no_memory_and_no_profile(store: MemoryStore, request_: str) -> None:
    fill(store, EVERYDAY)
    block = store.context(request_, user="dana")
    assert block["items"] == [] and block["profile_lines"] == 0
    assert "X1234567" not in block["text"]


def test_at_a_small_budget_the_return_flight_asked_about_is_kept(store: MemoryStore) -> None:
    fill(store, EVERYDAY)
    store.add_raw("Return flight from Lisbon: TP1234 on 2026-12-20 at 18:05", type="event", user="dana", source="user")
    block = store.context("When is my return flight?", user="dana", budget=60)
    assert "TP1234" in block["text"]
    assert "X1234567" not in store.context("I'm flying back from Lisbon, what do I need?", user="dana")["text"]


SHOWS_AND_TRIPS = ["Kate: What tv shows have you been watching recently?", "Kate watched Breaking Bad twice last year",
                   "I visited Paris in 2024 with Tom", "Hank has a dog named Rex"]


@pytest.mark.parametrize("query", ["What TV shows did Kevin watch?", "When did I visit Tokyo?",
                                   "what is Kevin's dog called"])
def test_a_question_about_someone_the_store_never_mentions_is_not_answered_about_someone_else(
        store: MemoryStore, query: str) -> None:
    fill(store, SHOWS_AND_TRIPS)
    assert defaults(store, query) == []


TAXES = ["Sent in my self-assessment on 20 January: £2,310 to pay, through the Government Gateway",
         "Got a $1,450 federal tax refund in March, filed with TurboTax"]


@pytest.mark.parametrize("query, answer", [("How much did I owe HMRC in January?", TAXES[0]),
                                           ("How much did the IRS send back this year?", TAXES[1])])
def test_an_organisation_the_store_never_names_is_still_answered_by_the_clear_best_memory(
        store: MemoryStore, query: str, answer: str) -> None:
    # the tax office is not named by the memories about dealing with it; another office is no one else
    fill(store, EVERYDAY + TAXES)
    assert defaults(store, query) == [answer]


def test_a_question_about_someone_the_store_knows_is_still_answered(store: MemoryStore) -> None:
    fill(store, SHOWS_AND_TRIPS)
    assert "Kate watched Breaking Bad twice last year" in defaults(store, "What TV shows did Kate watch?")
    assert "I visited Paris in 2024 with Tom" in defaults(store, "When did I visit Paris?")


def test_a_month_no_memory_says_does_not_hide_what_a_known_person_did(store: MemoryStore) -> None:
    # LoCoMo-style: the memories are dated, their text never says the month the question names
    fill(store, ["Caroline went to a pride parade with her friends from the support group",
                 "Melanie took her kids camping by the lake", "Caroline is researching adoption agencies"])
    assert "Caroline went to a pride parade with her friends from the support group" in defaults(
        store, "When did Caroline go to a pride parade in August?")


FAMILY = ["Alexandra and her kids planted tomatoes and basil in the garden this spring",
          "Alexandra works as a nurse at the city hospital", "Mark's neighbour invited him to a pottery class",
          "Mark plays the drums in a jazz band on Fridays", "Mark had a picnic with his wife and kids",
          "Mark went hiking with his workmates", "Hank has a dog named Rex"]


def test_a_question_naming_someone_by_a_shortened_name_is_answered_about_them(store: MemoryStore) -> None:
    fill(store, FAMILY)
    assert FAMILY[0] in defaults(store, "What did Alex and her kids plant in the garden?")


def test_a_memory_opening_with_a_name_that_is_also_a_word_holds_that_name(store: MemoryStore) -> None:
    # 'mark' is common English, and the memory opens with it; the neighbour's name is in no memory
    fill(store, FAMILY)
    assert FAMILY[2] in defaults(store, "What activity did Mark's neighbour, Omar, invite him to?")


TRAVELLER = ["I am severely allergic to peanuts", "I use a wheelchair", "I live in Lisbon",
             "My sister Ana plays the cello", "I work as a nurse at Santa Maria hospital"]
PEANUTS, WHEELCHAIR = TRAVELLER[0], TRAVELLER[1]


@pytest.mark.parametrize("query, wanted", [  # a question in a constraint's domain, with or without its mark
    ("Any good hotels in Porto for our trip?", [WHEELCHAIR]),
    ("Which hotel in Porto has a pool?", [WHEELCHAIR]),
    ("周五去哪家餐厅吃饭？", [WHEELCHAIR, PEANUTS]),
    ("周五去哪家餐厅吃饭", [WHEELCHAIR, PEANUTS]),
    ("这家餐厅好吃吗？", [WHEELCHAIR, PEANUTS]),
    ("Which restaurant should we book for Friday?", [PEANUTS]),
    ("What can I eat at the Thai place?", [PEANUTS]),
])
def test_a_planning_question_brings_its_domain_s_constraints_whatever_its_punctuation(
        store: MemoryStore, query: str, wanted: list[str]) -> None:
    fill(store, TRAVELLER, user="bob")
    text = store.context(query, user="bob")["text"]
    assert all(w in text for w in wanted), (query, text)


def test_a_dialogue_about_a_thai_dinner_brings_the_peanut_allergy(store: MemoryStore) -> None:
    fill(store, TRAVELLER, user="bob")
    dialogue = ("User: we are going out for Thai food tonight with the team\nAssistant: Sounds fun!\n"
                "User: which place did Ana say was the best?")
    assert PEANUTS in store.context(dialogue, user="bob")["text"]


def test_a_chinese_question_about_a_relative_finds_the_english_memory(store: MemoryStore) -> None:
    fill(store, ["My brother Luis works at Siemens in Munich", "My mother Maria's birthday is on 3 May",
                 "I live in Lisbon", "I drink oolong tea"], user="lin")
    assert "My brother Luis works at Siemens in Munich" in defaults(store, "我哥在哪里工作？", user="lin")
    assert "My mother Maria's birthday is on 3 May" in defaults(store, "我妈妈的生日是哪天？", user="lin")


def test_a_chinese_question_naming_a_relative_by_a_synonym_finds_the_memory(store: MemoryStore) -> None:
    fill(store, ["我丈夫张伟在招商银行工作", "我住在杭州西湖区", "我每天早上喝绿茶"], user="lin")
    assert "我丈夫张伟在招商银行工作" in defaults(store, "我老公在哪工作？", user="lin")


def test_a_chinese_relative_is_not_answered_by_another_relative_s_memory(store: MemoryStore) -> None:
    fill(store, ["我男朋友在谷歌工作", "我住在杭州西湖区", "我每天早上喝绿茶"], user="lin")
    assert "我男朋友在谷歌工作" not in defaults(store, "我哥在哪里工作？", user="lin")
    assert "我男朋友在谷歌工作" in defaults(store, "我男朋友在哪里工作？", user="lin")


def test_a_chinese_relative_the_store_never_mentions_is_not_answered_without_a_possessive(memdir: Path) -> None:
    store = zh_store(memdir)  # the wife and the child are known; a father-in-law is not
    assert not defaults(store, "岳父叫什么名字？", user="wang")


def test_a_pet_of_a_kind_the_store_never_mentions_is_not_answered_by_another_pet(store: MemoryStore) -> None:
    fill(store, ["我养了两只猫，一只叫年糕，一只叫汤圆。", "我住在成都高新区", "我每天早上喝绿茶"], user="lin")
    assert not defaults(store, "我家的狗叫什么名字？", user="lin")
    assert "我养了两只猫，一只叫年糕，一只叫汤圆。" in defaults(store, "我家的猫叫什么名字？", user="lin")


def test_a_chinese_name_after_a_role_and_de_is_someone_the_store_never_mentions(memdir: Path) -> None:
    store = zh_dir(memdir)  # 赵磊 is known, 赵磊手下的周婷 is not
    fill(store, ["部门总监赵磊，管供应链和采购，开会喜欢先听结论。", "每月最后一个周四下午给赵磊汇报库存周转。",
                 "我在一家物流公司做运营主管。"], user="chen")
    assert not store.context("赵磊手下的周婷管哪个仓库？")["items"]
    assert "部门总监赵磊，管供应链和采购，开会喜欢先听结论。" in defaults(store, "赵磊管哪块业务？", user="chen")


def test_a_chinese_request_about_a_place_the_store_never_mentions_injects_nothing(memdir: Path) -> None:
    store = zh_dir(memdir)  # 成都 is known, 上海 is not
    fill(store, ["膝盖半月板有点磨损，医生让每年拍一次核磁，下次是十月。", "岳母前年从湖南搬来帮忙带外孙，住在我们家。",
                 "公司在成都高新区，坐地铁过去大概四十分钟。", "准备明年把阳台封起来，顺便换一套新的晾衣架。",
                 "每周四下午是项目例会，谁都不能缺席。"], user="duan")
    assert not store.context("帮我看看上海的公司坐地铁要多久。")["items"]
    assert "公司在成都高新区，坐地铁过去大概四十分钟。" in defaults(store, "我公司在成都哪个区？", user="duan")


def test_a_known_chinese_name_s_relative_the_store_never_mentions_is_not_answered(memdir: Path) -> None:
    store = zh_dir(memdir)  # 老周 and the speaker's wife are known; 老周's wife is not
    fill(store, ["测试那边的负责人是老周（周志强），产品经理是孙悦。", "老婆王丽在南京鼓楼医院当麻醉师，经常值夜班。",
                 "我爸跟我们住，每天下午去公园下棋。", "跟王丽说好了：她带孩子留在南京，我一个人去合肥上班。"], user="huang")
    assert not store.context("老周他老婆在哪家医院上班？")["items"]
    fill(store, ["老周的老婆在中学教数学，女儿叫小雨。"], user="huang")
    assert "老周的老婆在中学教数学，女儿叫小雨。" in defaults(store, "老周他老婆在哪上班？", user="huang")


PARTNER = ["My boyfriend Sam works at Google in London", "I live in Leeds", "I drink green tea every morning"]


def test_an_english_relative_is_not_answered_by_another_relative_s_memory(store: MemoryStore) -> None:
    fill(store, PARTNER, user="lin")
    assert PARTNER[0] not in defaults(store, "Where does my brother work?", user="lin")
    assert PARTNER[0] in defaults(store, "Where does my boyfriend work?", user="lin")


@pytest.mark.parametrize("memory, query", [
    ("My partner Sam works at Google in London", "Where does my husband work?"),  # a word naming it among others
    ("My parents live in a cottage near Cork", "Where does my mum live?"),
])
def test_an_english_relative_said_otherwise_in_the_store_is_answered(store: MemoryStore, memory: str, query: str) -> None:
    fill(store, [memory, *PARTNER[1:]], user="lin")
    assert memory in defaults(store, query, user="lin")


IN_LAWS = ["Fiona and her husband Greg live in Toronto", "Greg works as a dentist in Toronto",
           "My sister Ana's birthday is on 2 March", "My brother Karim lives in Ottawa with his wife Lea"]


@pytest.mark.parametrize("query", ["When is Greg's mother's birthday?", "How old are Karim's kids now?"])
def test_a_known_person_s_relative_the_store_never_mentions_is_not_answered_about_others(
        store: MemoryStore, query: str) -> None:
    fill(store, IN_LAWS)
    assert defaults(store, query) == []


@pytest.mark.parametrize(("memory", "query"), [
    ("Greg's mother Ann turns 70 on 9 May", "When is Greg's mother's birthday?"),
    ("Karim's son Adam is 7 and his daughter Noor is 4", "How old are Karim's kids now?"),
])
def test_a_known_person_s_relative_the_store_holds_is_answered(store: MemoryStore, memory: str, query: str) -> None:
    fill(store, [*IN_LAWS, memory])
    assert memory in defaults(store, query)


HOUSEHOLD = [*EVERYDAY, "I see my physiotherapist for my lower back every Thursday at 4pm", "My bank is Monzo",
             "Our landlord is Mrs. Patel; the rent is $1,450, due on the 1st", "My nephew Theo turns 9 in October",
             "We drive a 2018 Honda CR-V", "My sister Ana lives in Porto", "I'm vegetarian but I eat fish now and then",
             "I play five-a-side football on Tuesday nights", "The car insurance is with Direct Line, renews in May",
             "My manager is Priya Shah", "I'm learning Spanish on Duolingo", "We got married on 14 June 2019",
             "I'm saving for a house deposit, about £300 a month", "We have a cat called Miso",
             "Mum's birthday is 2 February", "I broke my wrist skiing in 2021", "I use a standing desk at work",
             "I'm on the waitlist for an allotment", "Our boiler was serviced in March"]


def test_a_dialogue_is_answered_by_what_its_turn_asks_about(store: MemoryStore) -> None:
    # the whole conversation's cosine to the bank is diluted by the job and the form (issue 28)
    fill(store, HOUSEHOLD)
    dialogue = ("User: I'm filling in a form for the new job.\nAssistant: What do they need?\n"
                "User: my bank and who my doctor is")
    assert "My bank is Monzo" in defaults(store, dialogue)


@pytest.mark.parametrize("dialogue", [
    "User: Theo came round after school.\nAssistant: Nice! What did you two do?\nUser: homework. what's 7 times 8?",
    "User: Ana called this morning.\nAssistant: How is she?\nUser: fine. what's the capital of Portugal again?",
])
def test_a_dialogue_ending_in_a_question_of_general_knowledge_injects_nothing(store: MemoryStore, dialogue: str) -> None:
    fill(store, HOUSEHOLD)
    assert defaults(store, dialogue) == []


CLUBS = ["Tuesday evenings: darts at the Royal Oak with Wendy Hale", "Wendy's birthday is on 3 May",
         "I renewed my library card in March", "Our boiler was serviced by Hale & Sons"]


@pytest.mark.parametrize("query", ["When was the Royal Mile paved?",
                                   "User: It's pouring again.\nAssistant: Anything I can do?\nUser: Tell me how old the Royal Mile is."])
def test_a_word_of_a_name_of_common_words_said_in_another_name_does_not_name_it(store: MemoryStore, query: str) -> None:
    # "Royal" of the Royal Mile is the pub's in "the Royal Oak": the street is nowhere in the store
    fill(store, CLUBS)
    assert defaults(store, query) == []
    assert "Tuesday evenings: darts at the Royal Oak with Wendy Hale" in defaults(store, "When is darts at the Royal Oak?")
