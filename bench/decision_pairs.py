"""Labelled pairs for the write decision: distinct facts that look alike, and real changes.

Each pair is (stored text, new text, type, cosine, label): "change" means the new memory is another
value of the same thing (it must supersede the stored one, or be linked to it as a conflict when it
announces the change in other words), "distinct" means it is another thing (both are kept, with no
conflict link). Cosines are what a sentence embedding gives such pairs: high, which is why
similarity alone cannot decide.
"""

from __future__ import annotations

Pair = tuple[str, str, str, float, str]

DISTINCT: list[Pair] = [
    ("Dana's flight to Los Angeles is UA 1234 on March 2", "Dana's return flight is UA 5678 on March 9", "event", 0.88, "distinct"),
    ("Gina asked whether it will rain tomorrow", "Gina asked about rain on Monday", "fact", 0.87, "distinct"),
    ("Synthetic note about the rollout (item 6-0)", "Synthetic note about the rollout (item 6-999)", "fact", 0.97, "distinct"),
    ("Alice's car is a red Toyota Corolla", "Alice's car is a blue Honda Civic", "fact", 0.89, "distinct"),
    ("Bob's daughter Emma is 7 years old", "Bob's son Leo is 5 years old", "fact", 0.86, "distinct"),
    ("Order #4417 shipped on Monday", "Order #4418 shipped on Tuesday", "event", 0.93, "distinct"),
    ("Alice booked room 412 at the Hilton", "Alice booked room 508 at the Hilton", "event", 0.95, "distinct"),
    ("Ticket PAY-1234 is about duplicate charges", "Ticket PAY-1302 is about duplicate charges", "fact", 0.96, "distinct"),
    ("Alice took up chess while visiting Lisbon", "Alice took up kayaking while visiting Lisbon", "fact", 0.88, "distinct"),
    ("Carol had lunch with Dave on Tuesday", "Carol had lunch with Erin on Thursday", "event", 0.9, "distinct"),
    ("Alice has a meeting with Bob on Friday", "Alice has a meeting with Carol on Monday", "event", 0.9, "distinct"),
    ("Bob visited Paris in 2019", "Bob visited Rome in 2021", "event", 0.87, "distinct"),
    ("The loan quote from First Bank is 5.2% APR", "The loan contract with First Bank is 4.9% APR", "fact", 0.9, "distinct"),
    ("Bob ran 5 km on Saturday", "Bob ran 10 km on Sunday", "event", 0.9, "distinct"),
    ("Alice bought a blue lamp for the study", "Alice bought a green rug for the study", "event", 0.86, "distinct"),
    ("The hotel in Los Angeles is the Hilton on Figueroa Street", "The hotel in San Diego is the Hyatt on Harbor Drive", "fact", 0.87, "distinct"),
    ("Invoice INV-88412 was paid", "Invoice INV-88413 was paid", "fact", 0.97, "distinct"),
    ("Seat 14C is booked for the outbound flight", "Seat 22A is booked for the return flight", "fact", 0.9, "distinct"),
    ("Alice's first child, Maya, was born in 2019", "Alice's second child, Theo, was born in 2022", "fact", 0.88, "distinct"),
    ("Bob's laptop is a ThinkPad X1", "Bob's laptop is a MacBook Air", "fact", 0.86, "distinct"),
    ("Carol presented the Q3 roadmap at the all-hands", "Carol presented the Q4 roadmap at the all-hands", "event", 0.94, "distinct"),
    ("Dana's passport number is X1234567", "Dana's passport number is Y7654321", "fact", 0.92, "distinct"),
    ("张三订了3月2日去洛杉矶的航班UA1234", "张三订了3月9日回来的航班UA5678", "event", 0.88, "distinct"),
    ("李四问了明天会不会下雨", "李四问了周一会不会下雨", "fact", 0.9, "distinct"),
    ("王五买了一辆红色的丰田", "王五买了一辆蓝色的本田", "event", 0.88, "distinct"),
    ("订单4417已发货", "订单4418已发货", "event", 0.95, "distinct"),
    ("会议室A12已预订", "会议室B07已预订", "fact", 0.93, "distinct"),
    ("小明参加了周三的篮球赛", "小明参加了周五的足球赛", "event", 0.88, "distinct"),
    ("张三的女儿今年7岁", "张三的儿子今年5岁", "fact", 0.87, "distinct"),
    ("李四去了北京出差", "李四去了上海出差", "event", 0.9, "distinct"),
    ("工单PAY-1234是关于重复扣款的", "工单PAY-1302是关于重复扣款的", "fact", 0.96, "distinct"),
    ("王五在周一见了客户", "王五在周四见了客户", "event", 0.91, "distinct"),
    ("Loan quote from Acme Bank: 6.1% APR for 30 years, never accepted",
     "Mortgage loan contract with First Bank: 5.2% APR, 30 years, signed and active", "fact", 0.8, "distinct"),
    ("I drive a 2019 Toyota Camry, plate 7ABC123", "I also have a 2022 Tesla Model 3 that my partner drives",
     "fact", 0.7, "distinct"),
]

CHANGES: list[Pair] = [
    ("Bob likes jazz", "Bob dislikes jazz", "preference", 0.88, "change"),
    ("The team uses PostgreSQL 16", "The team uses PostgreSQL 15", "fact", 0.91, "change"),
    ("The offsite in Tokyo is on March 3", "The offsite in Tokyo is on March 5", "fact", 0.96, "change"),
    ("Alice lives in Lisbon", "Alice lives in Berlin", "fact", 0.87, "change"),
    ("Alice works at Google", "Alice works at Meta", "fact", 0.87, "change"),
    ("The budget is 1000 dollars", "The budget is 1500 dollars", "fact", 0.95, "change"),
    ("Alice's flight leaves at 09:30", "Alice's flight leaves at 10:30", "fact", 0.95, "change"),
    ("Python 3.11 is the default interpreter", "Python 3.12 is the default interpreter", "fact", 0.97, "change"),
    ("Dark mode is enabled", "Dark mode is disabled", "preference", 0.93, "change"),
    ("Bob uses Neovim as his editor", "Bob uses VS Code as his editor", "habit", 0.88, "change"),
    ("Alice prefers window seats", "Alice prefers aisle seats", "preference", 0.9, "change"),
    ("Carol is the engineering manager", "Carol was the engineering manager", "fact", 0.95, "change"),
    ("Bob is Alice's manager", "Alice is Bob's manager", "fact", 0.93, "change"),
    ("The standup is at 9:30", "The standup is at 10:00", "habit", 0.92, "change"),
    ("The rent is 1200 euros a month", "The rent is 1350 euros a month", "fact", 0.95, "change"),
    ("Alice doesn't drink coffee", "Alice drinks coffee", "habit", 0.9, "change"),
    ("Deploys are allowed on Fridays", "Deploys are denied on Fridays", "constraint", 0.9, "change"),
    ("The release is scheduled for May 4", "The release is scheduled for May 11", "fact", 0.95, "change"),
    ("Alice's role is product designer", "Alice's role is design lead", "fact", 0.86, "change"),
    ("Hank lives in Beijing", "Hank moved to Shanghai last month", "fact", 0.62, "change"),
    ("Bob works at Stripe", "Bob now works at Shopify", "fact", 0.7, "change"),
    ("Carol uses Jira for planning", "Carol switched to Linear for planning", "habit", 0.74, "change"),
    ("Alice住在北京", "Alice住在上海", "fact", 0.9, "change"),
    ("我喜欢咖啡", "我不喜欢咖啡", "preference", 0.9, "change"),
    ("我喜欢咖啡", "我讨厌咖啡", "preference", 0.9, "change"),
    ("项目使用Python 3.11", "项目使用Python 3.12", "fact", 0.96, "change"),
    ("会议在周三下午三点", "会议在周四下午三点", "fact", 0.94, "change"),
    ("张三在阿里巴巴工作", "张三在腾讯工作", "fact", 0.88, "change"),
    ("预算是一万元", "预算是两万元", "fact", 0.93, "change"),
    ("功能开关已开启", "功能开关已关闭", "fact", 0.92, "change"),
    ("王五使用Vim写代码", "王五使用Emacs写代码", "habit", 0.9, "change"),
    ("截止日期是5月1日", "截止日期是5月8日", "fact", 0.95, "change"),
    ("李四住在杭州", "李四搬到了深圳", "fact", 0.7, "change"),
]

PAIRS: list[Pair] = DISTINCT + CHANGES
