"""A dialogue's turns judged one by one (pure). A conversation given as the query is judged whole,
and its cosine to the memory that answers it is diluted by every line about something else, while
the share of its words any memory holds is small whatever the memory: "User: I'm filling in a form
for the new job. / Assistant: What do they need? / User: my bank and who my doctor is" is about
"My bank is Monzo", which the whole conversation's meaning barely reaches. Each turn, read alone
as a question or a task, says what it is about as a short query does: the hit a turn is about (the
best of its candidates by some model, `about`) gets the turn's relevance when that is higher than
the whole's (`best_of`). So does what the user says in it, their lines together (`own_lines`): a
request often leans on what they said before it ("My head is pounding again." / "What am I
supposed to take?"), which the last line alone does not say.

Only where the conversation is about the user's own things and the store knows what it names
(`by_turns`): its last turn speaks of them (I, my, we, our; 我, 咱) and the whole names nothing no
memory mentions (`QueryFacts.absent`). A conversation ending in a question of general knowledge
("homework. what's 7 times 8?") or asking about someone the store never heard of ("My cousin Marta
is visiting ... what does she do for work?") is judged whole: a turn of it about something stored
(the nephew who came round) is not what is asked.
"""

from __future__ import annotations

import re
from typing import Sequence

from memctl.core.models import Hit
from memctl.core.patterns import lazy_pattern
from memctl.policy.relevance import QueryFacts
from memctl.policy.topic import dialogue_lines

TURN = "turn"  # the component that says which turn (1 = the first read) a hit's relevance is from
_SPEAKER = re.compile(r"^\s*[\w .'-]{1,30}\s*[:：]\s*(?=\S)")  # "User: ..." / "用户：..." (policy/topic._SPEAKER)
# The speaker's own things: "me" is left out, it is the object of a request's frame ("tell me about ...")
# (compiled when first needed: a fresh English recall compiles no CJK pattern, tests/services/test_recall.py)
_OWN = lazy_pattern(r"(?i)\b(?:i|my|mine|we|us|our|ours)\b|[我咱]")


# The most text of a dialogue's turns read one by one, from the last: each is recalled as its own query,
# and the multilingual model costs about 1 ms CPU a character (8 lines of 1,700 characters made one
# recall 1.3 -> 4.9 s CPU); a turn is a short line (the dev dialogues' turns add up to 172 at most).
TURN_CHARS = 1000


def turns(query: str) -> list[str]:
    """The dialogue's turns (its last lines, policy/topic.dialogue_lines) without their speaker
    labels, each once: the last of them whose lengths add up to at most TURN_CHARS; then what the
    last speaker said in them, together (`own_lines`)."""
    out: list[str] = []
    for turn in reversed(list(dict.fromkeys(_said(query)))):
        if sum(map(len, out)) + len(turn) > TURN_CHARS:
            break
        out.insert(0, turn)
    joined = own_lines(query, out) if out else None
    return [*out, joined] if joined else out


def own_lines(query: str, kept: Sequence[str] = ()) -> str | None:
    """What the speaker of the last line says in the dialogue, their lines together, when they say
    two or more and someone else speaks too (of `kept`, when given): a request and what it is about
    come in different turns ("My knee is acting up again." / "What did the physio say to do?"), and
    the last alone does not say what it asks about. None otherwise."""
    labelled = [(m.group(0).strip().rstrip(":：").strip().casefold(), line[m.end():].strip())
                for line in dialogue_lines(query) if (m := _SPEAKER.match(line))]
    if not labelled:
        return None
    speaker = labelled[-1][0]
    own = list(dict.fromkeys(said for who, said in labelled if who == speaker and said and (not kept or said in kept)))
    if len(own) < 2 or all(who == speaker for who, _ in labelled):
        return None
    return " ".join(own)


def _said(query: str) -> list[str]:
    """The dialogue's last lines without their speaker labels, in order, empty ones left out."""
    return [t for t in (_SPEAKER.sub("", line, count=1).strip() for line in dialogue_lines(query)) if t]


def speaks_of_own(text: str) -> bool:
    """Whether the text speaks of the speaker's own things (a first-person word)."""
    return bool(_OWN().search(text))


def by_turns(query: str, facts: QueryFacts) -> bool:
    """Whether the dialogue's hits are judged by its turns too: it is a dialogue, names nothing the
    store never mentions, and its last turn speaks of the user's own things."""
    said = _said(query) if facts.shape == "dialogue" and not facts.absent else []
    return len(said) >= 2 and speaks_of_own(said[-1])


def best_of(whole: Sequence[Hit], by_turn: Sequence[Sequence[Hit]]) -> list[Hit]:
    """The whole's hits, each with the best relevance the whole or a turn gives it (the turns' hits
    are the same memories, judged with the turn as the query); `TURN` says which turn lifted it. A
    hit with no relevance (no calibrated signal) stays as it is: recall always shows it."""
    out = []
    for n, hit in enumerate(whole):
        best, which = hit.relevance, 0
        for t, hits in enumerate(by_turn, start=1):
            value = hits[n].relevance if n < len(hits) and hits[n].id == hit.id and about(hits[n]) else None
            if value is not None and best is not None and value > best:
                best, which = value, t
        out.append(hit if not which else hit.model_copy(update={"relevance": best, "components": {**hit.components, TURN: float(which)}}))
    return out


def about(hit: Hit) -> bool:
    """Whether the hit is what a turn is about: the best of the turn's candidates by some model that
    scored them (its gap not below 0: policy/relevance.margin without the margin). A turn's other
    hits are judged by the whole alone: a short line's calibration reads mostly how well the store
    answers it at all, and "My back is playing up again." would carry every memory along. With no
    model's cosine (keyword recall), no hit is."""
    gaps = [v for k, v in hit.components.items() if k.startswith("gap:")]
    return bool(gaps) and max(gaps) >= 0
