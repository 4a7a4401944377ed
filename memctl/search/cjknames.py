"""The person names a Chinese text says (pure): Chinese writes no capitals, so a name is read from
the shapes Chinese names people by.

- a surname and a title: 王医生, 李老师, 陈经理 (the name is the surname's pair with the title's
  first character, 王医, as the keyword index holds it);
- 小 or 老 and a surname: 小吴, 老马;
- a relation or a role, then (after 的 or not) a surname and a given name: 表妹陈露, 男朋友郑杰,
  直属领导孟凡, 孟凡手下的王涛 (the name is the surname and the first character of the given name,
  陈露, 郑杰, 孟凡, 王涛), unless the pair is a common word (周末, 马上: "同事周末加班" names nobody).

Each name is returned as the CJK character pair the keyword index holds, so a store that never
mentions 王涛 finds no memory for it, and a memory that says 陈露 shares it with the query.
Names written without any of these shapes ("王涛负责哪块") are not read.
"""

from __future__ import annotations

# The most common surnames, less those that open a common word after 小 or 老 (小龙虾, 老毛病, 小白).
SURNAMES = ("王李张刘陈杨赵黄周吴徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯于董萧程曹袁邓许傅沈曾彭吕苏卢蒋蔡贾"
            "丁魏薛叶阎余潘杜戴夏钟汪田任姜范方石姚谭廖邹熊金陆郝孔崔康邱秦江史顾侯邵孟段雷钱汤尹黎易"
            "武乔贺赖龚严覃")
_NOT_AFTER_XIAO_LAO = frozenset("龙毛白金方石田江史黄文万常易钱于")  # 小于: "less than"
TITLES = ("老师", "医生", "大夫", "经理", "阿姨", "叔叔", "师傅", "律师", "教授", "主任", "先生", "女士",
          "小姐", "同学", "总监", "老板", "院长", "校长", "博士", "护士", "教练", "处长", "科长", "部长")
RELATIONS = ("表妹", "表姐", "表哥", "表弟", "堂哥", "堂姐", "堂妹", "堂弟", "妹妹", "姐姐", "哥哥", "弟弟",
             "同事", "朋友", "同学", "室友", "邻居", "老板", "领导", "上司", "下属", "老公", "老婆", "丈夫",
             "妻子", "男朋友", "女朋友", "男友", "女友", "儿子", "女儿", "侄子", "侄女", "外甥", "闺蜜", "发小",
             "客户", "舅舅", "姑姑", "阿姨", "叔叔", "伯伯", "姨妈", "舅妈", "婆婆", "岳母", "岳父", "公公",
             "搭档", "师傅", "徒弟", "助理", "手下", "合伙人", "房东", "医生", "老师", "教练", "同桌", "前任", "对象")
# Pairs a surname opens that are common words, not names (after a relation: "同事周末加班").
COMMON_PAIRS = frozenset("""周末 马上 高兴 方便 许多 曾经 任何 于是 何时 常常 万一 白天 程序 金额 夏天 江边 陆续
    高铁 周五 周六 周日 周一 周二 周三 周四 周年 高中 高考 林业 田地 石头 金融 钱包 史上 易于 孙子 黄色 叶子 余额
    方面 方法 方式 方向 方案 任务 任何 严重 严格 康复 陈述 杨树 董事 沈阳 江苏 苏州 杭州 武汉 贺卡 雷雨 汤圆 钟头
    钟点 宋体 郑州 韩国 唐朝 冯氏 程度 曹操 邓氏 许可 傅氏 彭氏 吕氏 卢氏 蔡氏 贾氏 丁点 魏氏 薛氏 叶氏 阎氏 潘氏
    杜绝 戴着 夏季 汪汪 范围 姚氏 谭氏 廖氏 邹氏 熊猫 陆地 郝氏 孔子 崔氏 康氏 邱氏 秦朝 顾客 顾问 侯氏 邵氏 孟氏
    段落 尹氏 黎明 武器 乔迁 贺喜 赖床 龚氏 覃氏 周边 周围 周期 高级 高速 高度 朱红 胡子 郭氏 罗列 梁上 谢谢 于今
    马路 林间 何况 徐徐 张开 李子 刘海 陈列 杨柳 赵氏 吴氏 孙女 钱款 金子 石油 田径 任性 姜汤 江湖 史诗 顾及
    周报 周会 周刊 苏打 范畴 程式 顾虑 任意 高手 高管""".split())
# Common words that end in a surname before a title: 历史老师 is a history teacher, not a teacher 史.
ENDING_IN_SURNAME = frozenset("历史 主任 责任 信任 担任 外科 内科 儿科".split())
_RELATIONS_LONGEST_FIRST = tuple(sorted(RELATIONS, key=len, reverse=True))
_RELATION_FIRSTS = frozenset(relation[0] for relation in RELATIONS)
# No regular expression: a character class of CJK characters takes milliseconds to compile, and an
# English recall over a store holding Chinese memories would pay it (tests/services/test_recall.py).


def _is_han(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _titled(text: str) -> set[str]:
    """王医生 -> 王医: a surname, then a title (non-overlapping, left to right)."""
    out, i = set(), 0
    while i < len(text):
        title = next((t for t in TITLES if text.startswith(t, i + 1)), None) if _surname_at(text, i) else None
        if title is None:
            i += 1
            continue
        out.add(text[i:i + 2])
        i += 1 + len(title)
    return out


def _surname_at(text: str, i: int) -> bool:
    """A surname at i that does not end a common word (历史老师: 史 ends 历史)."""
    return text[i] in SURNAMES and text[max(i - 1, 0):i + 1] not in ENDING_IN_SURNAME


def _xiao_lao(text: str) -> set[str]:
    """小吴, 老马: 小 or 老, then a surname that opens no common word there (小程序, 老顾客: COMMON_PAIRS)."""
    return {text[i:i + 2] for i in range(len(text) - 1)
            if text[i] in "小老" and text[i + 1] in SURNAMES and text[i + 1] not in _NOT_AFTER_XIAO_LAO
            and text[i + 1:i + 3] not in COMMON_PAIRS}


# Roles whose 的 introduces a person (孟凡手下的王涛); after another relation 的 introduces a thing:
# 女儿的高烧, 老公的钱, 朋友的金毛 name no one.
_STAFF = frozenset({"手下", "下属", "助理"})


def _related_at(text: str, i: int) -> tuple[str, int] | None:
    """The name after a relation that starts at i (the longest relation that is so followed), and where it ends."""
    if text[i] not in _RELATION_FIRSTS:
        return None  # most characters open no relation: a pasted chat is read in one pass
    for relation in _RELATIONS_LONGEST_FIRST:
        if not text.startswith(relation, i):
            continue
        j = i + len(relation)
        j += relation in _STAFF and text.startswith("的", j)  # 孟凡手下的王涛: whose the person is, then the name
        if j + 1 < len(text) and text[j] in SURNAMES and _is_han(text[j + 1]):
            return text[j:j + 2], j + 2
    return None


def _related(text: str) -> set[str]:
    """表妹陈露 -> 陈露: a relation or role, then a surname and a given name."""
    out, i = set(), 0
    while i < len(text):
        found = _related_at(text, i)
        if found is None:
            i += 1
            continue
        out.add(found[0])
        i = found[1]
    return out


def chinese_names(text: str) -> set[str]:
    """The names the text says in the shapes above, each as its character pair (王医, 小吴, 陈露)."""
    return _titled(text) | _xiao_lao(text) | (_related(text) - COMMON_PAIRS)
