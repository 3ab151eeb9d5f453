"""Words as the engines give them: kept as JSON and read back the same, clauses joined in the
reader's punctuation, and every sentence an engine writes (descriptions, summaries, boards,
score sheets) made only of messages and names, so that a translation words all of it. Pure:
a stand-in translation marks every message it is asked for."""

from __future__ import annotations

import json
import random
import re

import pytest

from scoring.engines import rally, xiangqi
from scoring.engines.board import NOTHING, THEN, RecordItem, Words, clauses, words
from scoring.engines.guandan.play import ANHUI_2021, NANTONG_2014
from scoring.engines.scorer import scorer_for
from scoring.engines.simulate import random_rally, random_table, random_xiangqi
from scoring.engines.tests import test_guandan, test_rally, test_xiangqi

CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
NAMES = {"A": "Zhang Wei & Li Na", "B": "Wang Fang & Zhao Jun"}
SIDES = {"home": "Zhang Wei", "away": "Li Na"}


def marked(text: str) -> str:
    """A stand-in translation: every message becomes a mark, its arguments kept, so what is
    left of the Chinese after wording came from outside any message."""
    keys = re.findall(r"%\((\w+)\)s", text)
    return "<T>" + " ".join(f"%({k})s" for k in keys)


def untranslated(value) -> str:
    """What of ``value`` a translation would not reach: Chinese left outside its messages."""
    text = value.worded(marked) if isinstance(value, Words) else str(value)
    return "".join(CJK.findall(text))


def test_words_keep_as_json_and_read_back_the_same():
    line = words(
        "%(what)s（%(reason)s）",
        strong=("reason",),
        what=words("第%(n)s局%(score)s，%(name)s胜", n=2, score="12–10", name="严旭慧"),
        reason="出错牌",
    )
    kept = json.loads(json.dumps(line.to_json(), ensure_ascii=False))
    assert kept == {
        "text": "%(what)s（%(reason)s）",
        "args": {
            "what": {
                "text": "第%(n)s局%(score)s，%(name)s胜",
                "args": {"n": 2, "score": "12–10", "name": "严旭慧"},
            },
            "reason": "出错牌",
        },
        "strong": ["reason"],
    }
    assert Words.from_json(kept) == line
    assert str(Words.from_json(kept)) == "第2局12–10，严旭慧胜（出错牌）"
    assert Words.from_json(words("比赛结束").to_json()) == words("比赛结束")


def test_clauses_follow_one_another_in_the_readers_punctuation():
    line = clauses([words("甲"), None, words("乙"), "", words("丙")])
    assert str(line) == "甲；乙；丙"
    english = {"甲": "one", "乙": "two", "丙": "three", THEN: "%(a)s; %(b)s"}
    assert line.worded(lambda text: english.get(text, text)) == "one; two; three"
    assert clauses([]) == NOTHING and str(clauses([words("甲")])) == "甲"


def test_an_empty_message_is_worded_as_nothing():
    assert NOTHING.worded(lambda text: "the catalogue's header") == ""


def _descriptions():
    """Every description the engines' own tests pin, with names that are not Chinese."""
    for _id, ruleset, tokens, _text in test_guandan.DESCRIBE_CASES:
        yield test_guandan.description(ruleset, tokens, NAMES)
        yield test_guandan.description(ruleset, tokens)  # 主方/客方, A队
    for _id, rules, tokens, _text in test_rally.DESCRIBE_CASES:
        yield test_rally.description(rules, tokens, SIDES)
        yield test_rally.description(rules, tokens)
    for _id, tokens, _text in test_xiangqi.DESCRIBE_CASES:
        yield test_xiangqi.description(xiangqi.ANHUI_2021_XIANGQI, tokens, SIDES)
        yield test_xiangqi.description(xiangqi.ANHUI_2021_XIANGQI, tokens)


@pytest.mark.parametrize("line", list(_descriptions()), ids=str)
def test_every_description_is_messages_and_names(line):
    assert isinstance(line, Words) and CJK.search(str(line))
    assert untranslated(line) == ""


def _rule_sets():
    yield from test_guandan.RULESETS.values()
    yield from rally.PRESETS.values()
    yield from (test_rally.NO_DEUCE,)
    yield from xiangqi.PRESETS.values()
    yield from (
        test_xiangqi.REPLAY_DRAWN_THIRD,
        test_xiangqi.DRAWS_SCORE_NOTHING,
        test_xiangqi.FIVE_GAMES,
        test_xiangqi.ONE_GAME,
    )


@pytest.mark.parametrize("rules", list(_rule_sets()), ids=lambda r: r.id)
def test_every_summary_is_messages_and_numbers(rules):
    assert str(rules.summary()) == rules.summary_zh()
    assert untranslated(rules.summary()) == ""


@pytest.mark.parametrize("rules", [NANTONG_2014, ANHUI_2021, *rally.PRESETS.values()])
def test_a_presets_name_is_a_message(rules):
    assert CJK.search(rules.name)  # worded by the page, as the makemessages finds it


SIMULATED = {
    "guandan_team": lambda engine, rng: random_table(engine.rules, rng)[0],
    "guandan_pairs": lambda engine, rng: random_table(engine.rules, rng)[0],
    "xiangqi": lambda engine, rng: random_xiangqi(engine.rules, rng)[0],
    "badminton": lambda engine, rng: random_rally(engine.rules, rng, by_point=True)[0],
    "table_tennis": lambda engine, rng: random_rally(engine.rules, rng)[0],
}


@pytest.mark.parametrize("discipline", sorted(SIMULATED))
@pytest.mark.parametrize("names", [NAMES, {}], ids=["named", "unnamed"])
def test_whole_matches_read_as_messages_and_names(discipline, names):
    """A played match event by event: each description, the board after it, the sheet."""
    ruleset = "anhui2021" if discipline.startswith("guandan") else ""
    engine = scorer_for(discipline, ruleset)
    for seed in range(8):
        payloads = SIMULATED[discipline](engine, random.Random(seed))
        if discipline.startswith("guandan"):
            payloads = [{"penalty": {"team": "A", "levels": 2}}, *payloads]
        for before, payload, after in engine.replay_steps(payloads):
            assert untranslated(engine.describe(before, payload, after, names)) == ""
            board = engine.board(after, names)
            for line in (board.status, board.brief, board.heading, board.note, board.line):
                assert untranslated(line or NOTHING) == ""
            for line in (*board.games, board.running, board.how, board.after_whistle):
                assert untranslated(line or NOTHING) == ""
            for side in board.sides:
                assert untranslated(side.name) == untranslated(side.caption) == ""
        items = [RecordItem(p, reason="bad card") for p in payloads]
        items.append(RecordItem(engine.forfeit("B", "late_over_10_min")))
        sheet = engine.sheet(items[:-1] if engine.match_over(after) else items, names)
        cells = [*sheet.columns, *sum(sheet.rows, ()), sheet.notes_title, *sheet.notes]
        cells += [note for _n, note in sheet.blanks]
        assert all(untranslated(cell) == "" for cell in cells), cells
