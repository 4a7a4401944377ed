"""The relatives a query names by the relation alone, in Chinese or English (memctl.search.relations)."""

from __future__ import annotations

import pytest

from memctl.search.relations import owned_relations, relation_terms, says_relation, unasked

BROTHER = ("哥哥", "哥 ", "兄 ", "brother", "brothers")
BROTHERS = ("哥哥", "哥 ", "兄 ", "brother", "brothers", "弟弟", "弟 ")  # English "brother": older or younger
MOTHER = ("妈妈", "母亲", "妈 ", "mother", "mom", "mum", "parents")
SON = ("儿子", "son", "sons", "kids", "kid", "children", "child")
DAUGHTER = ("女儿", "daughter", "daughters", "kids", "kid", "children", "child")
FATHER_IN_LAW = ("岳父", "老丈人", "公公", "father-in-law", "in-laws")
MOTHER_IN_LAW = ("岳母", "丈母娘", "婆婆", "mother-in-law", "in-laws")
COUSIN = ("表哥", "表姐", "表弟", "表妹", "堂哥", "堂姐", "堂弟", "堂妹", "cousin", "cousins")
DOG = ("狗狗", "小狗", "狗 ", "犬 ", "金毛", "拉布拉多", "泰迪", "柯基", "哈士奇", "柴犬", "比熊", "边牧",
       "dog", "dogs", "puppy", "corgi", "labrador", "poodle", "husky", "beagle", "retriever", "terrier")
CAT = ("猫咪", "小猫", "猫 ", "英短", "布偶", "橘猫", "狸花猫", "cat", "cats", "kitten", "tabby")
GRANDMOTHER = ("奶奶", "祖母", "grandmother", "grandma", "grandparents", "外婆", "外祖母")


@pytest.mark.parametrize("text, terms", [
    ("我哥在哪里工作？", {BROTHER}),  # one character: looked up alone, and in its other words
    ("我的哥哥现在在哪个城市？", {BROTHER}),
    ("她女儿的学校在哪？", {DAUGHTER}),
    ("帮我妈约下周的针灸。", {MOTHER}),
    ("我老公在哪工作？", {("老公", "丈夫", "先生", "husband", "spouse", "partner")}),  # a synonym of 丈夫
    ("我同事在哪工作？", set()),  # a relation whose every word is not known is no sign
    ("兄弟们周末去爬山。", set()),  # no possessive; one character opening the text is no sign
    ("岳父叫什么名字？", {FATHER_IN_LAW}),  # a relation opening the text: the owner unsaid, the speaker's
    ("女儿在哪里上学？", {DAUGHTER}),
    ("周末做什么？\n妈妈在哪？", {MOTHER}),  # or opening one of its lines
    ("我婆婆血压高，做饭要少放盐。", {MOTHER_IN_LAW}),  # 婆婆 is no 老婆
    ("我表哥在哪上班？", {COUSIN}),  # 表哥 is a cousin, not a brother
    ("When does my father-in-law arrive?", {FATHER_IN_LAW}),
    ("我家的狗叫什么名字？", {DOG}),  # a pet, by its kind
    ("猫咪什么时候打疫苗？", {CAT}),
    ("Where is my dog's leash?", {DOG}),
    ("我家住在杭州", set()),
    ("What's my brother's phone number?", {BROTHERS}),
    ("Remind me to call my brother on Sunday.", {BROTHERS}),
    ("Where is my grandmother's walking stick?", {GRANDMOTHER}),
    ("What did Greg's Mother cook?", {MOTHER}),  # a name's relative; any case
    ("My mum and our son are coming", {MOTHER, SON}),
    ("When was my sister's son born?", set()),  # a relative describing another person (the nephew)
    ("Are my brother's kids coming?", set()),
    ("Where does my grandmother's sister live?", set()),
    ("What's mother's day this year?", set()),  # "What's" owns nothing
    ("He fought with brothers in arms.", set()),  # no possessive
    ("Who is my colleague?", set()),  # a relation whose every word is not known is no sign
])
def test_relation_terms(text: str, terms: set[tuple[str, ...]]) -> None:
    assert relation_terms(text) == terms


@pytest.mark.parametrize(("query", "other"), [
    ("Where does my brother Luis work?", False),  # English names the relation 我哥 says
    ("哥哥Luis在哪工作？", False),  # no possessive before 哥哥
    ("Luis是我哥哥，他在哪上班？", False),
    ("我男朋友在哪工作？", True),  # another relation: someone else
    ("Where does my boyfriend work?", True),
    ("我在哪工作？", True),
])
def test_a_memory_s_relative_is_someone_else_only_when_the_query_says_none_of_its_words(query: str, other: bool) -> None:
    assert bool(unasked(relation_terms("我哥在西门子工作"), query)) is other


@pytest.mark.parametrize(("text", "owned"), [
    ("When is Greg's mother's birthday?", {("greg", MOTHER)}),
    ("User: Lena's daughter starts school / which one?", {("lena", DAUGHTER)}),
    ("When is my mother's birthday?", set()),  # the user's: any memory saying the relation holds her
    ("What's mother's day this year?", set()),
    ("用户：老周他老婆住院了。\n用户：她在哪个单位来着？", {("老周", ("老婆", "妻子", "太太", "wife", "spouse", "partner"))}),
    ("表妹陈露的妈妈住哪？", {("陈露", MOTHER)}),
    ("赵磊手下的周婷管哪个仓库？", set()),  # no relative after the name
])
def test_a_relation_owned_by_a_name_is_read_with_its_owner(text: str, owned: set[tuple[str, tuple[str, ...]]]) -> None:
    from memctl.search.specificity import name_terms

    assert owned_relations(text) == owned
    assert owned_relations(text, name_terms(text, speakers=False)) == owned  # the names read once, by the caller


def test_a_text_says_a_relation_in_any_of_its_words_and_languages() -> None:
    assert says_relation("Greg's Mum turns 70", MOTHER) and says_relation("格雷格的妈妈", MOTHER)
    assert not says_relation("Greg works in Toronto", MOTHER)
