"""The places a Chinese text names (pure): English writes a place with a capital ("my trip to
Kyoto"), which search/specificity.name_terms reads as a name; Chinese writes none, so the places are
read from a list: China's provinces and regions, their capitals and large cities, well-known
destinations, and the countries and foreign cities people most often travel to or live in.

Recall reads them like a name the store never mentions (services/signals.absent_names):
"帮我查一下明天北京的天气" of a store that never says 北京 is about nothing it holds. A place the
speaker is going to (去, 到, 来, 回, 飞 before it: 帮我订去札幌的机票) is not read: a trip somewhere new
is still about what the store holds for trips (a seat preference, a visa). China itself (中国,
国内) is left out: a Chinese speaker's store seldom names the country it lives in.
"""

from __future__ import annotations

# Longest first where one opens another (哈尔滨 before nothing shorter; 内蒙古 before 内蒙).
PLACES = tuple(sorted(set("""
北京 上海 天津 重庆 香港 澳门 台湾 台北
河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 贵州 云南 陕西 甘肃
青海 内蒙古 广西 西藏 宁夏 新疆
石家庄 太原 沈阳 长春 哈尔滨 南京 杭州 合肥 福州 南昌 济南 郑州 武汉 长沙 广州 海口 成都 贵阳 昆明 西安
兰州 西宁 呼和浩特 南宁 拉萨 银川 乌鲁木齐
深圳 苏州 宁波 无锡 青岛 大连 厦门 佛山 东莞 珠海 温州 泉州 烟台 威海 潍坊 徐州 常州 南通 扬州 绍兴 嘉兴 金华
台州 惠州 汕头 中山 洛阳 唐山 保定 秦皇岛 襄阳 宜昌 株洲 岳阳 衡阳 柳州 桂林 三亚 丽江 大理 西双版纳 九寨沟
张家界 黄山 敦煌 喀什 伊犁 延边 鞍山 吉林市 大庆 包头 鄂尔多斯 赣州 九江 芜湖 绵阳 遵义 北海 舟山
日本 韩国 朝鲜 美国 加拿大 墨西哥 巴西 英国 法国 德国 意大利 西班牙 葡萄牙 荷兰 比利时 瑞士 奥地利 瑞典 挪威
芬兰 丹麦 冰岛 爱尔兰 希腊 土耳其 俄罗斯 波兰 捷克 匈牙利 埃及 迪拜 印度 泰国 越南 新加坡 马来西亚 印尼
印度尼西亚 菲律宾 柬埔寨 老挝 缅甸 尼泊尔 斯里兰卡 马尔代夫 澳大利亚 新西兰 南非
东京 大阪 京都 札幌 冲绳 首尔 济州岛 曼谷 清迈 普吉岛 巴厘岛 吉隆坡 河内 胡志明市 纽约 洛杉矶 旧金山 西雅图
波士顿 芝加哥 多伦多 温哥华 蒙特利尔 伦敦 巴黎 柏林 慕尼黑 罗马 米兰 威尼斯 巴塞罗那 马德里 阿姆斯特丹
苏黎世 维也纳 布拉格 莫斯科 悉尼 墨尔本 奥克兰
""".split()), key=lambda place: (-len(place), place)))
_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _place in PLACES:
    _BY_FIRST[_place[0]] = (*_BY_FIRST.get(_place[0], ()), _place)
_TOWARDS = frozenset("去到来回飞")  # a verb of going before a place: the trip's destination
# A place that is also the head of a common word or name there: 中山路 is a street in any city.
_NOT_BEFORE = {"中山": "路公装大", "吉林": "大"}
# A place that modifies the noun after it names a kind of thing, not somewhere the text is about:
# 日本料理, 四川菜, 意大利面, 北京烤鸭, 法国签证, 瑞士军刀, 湖南话, 大理石, 长春花, 荷兰豆, 北京路.
_MODIFIED = ("料理", "菜", "面", "烤鸭", "豆", "签证", "军刀", "话", "口音", "石", "花", "式", "风味", "路")


def chinese_places(text: str) -> set[str]:
    """The places of `PLACES` the text says, leftmost and longest first, none inside another
    (上海南站 says 上海, not 海南), but no destination (`_TOWARDS`)."""
    out, i = set(), 0
    while i < len(text):
        place = next((p for p in _BY_FIRST.get(text[i], ()) if text.startswith(p, i)), None)
        after = text[i + len(place):i + len(place) + 1] if place else ""
        if place is None or (after and after in _NOT_BEFORE.get(place, "")) or text.startswith(_MODIFIED, i + len(place)):
            i += 1
            continue
        if not (i and text[i - 1] in _TOWARDS):
            out.add(place)
        i += len(place)
    return out
