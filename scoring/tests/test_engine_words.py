"""The engines' words and the audit's, worded by Django's catalogue: every message the app
keeps as words has its English, and the sentences a referee reads come out as English
sentences (names stay as typed). No database."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext

from scoring.engines import rally, xiangqi
from scoring.engines.board import Words
from scoring.engines.guandan.play import ANHUI_2021, NANTONG_2014
from scoring.engines.tests.test_guandan import description as guandan_description
from scoring.engines.tests.test_rally import description as rally_description
from scoring.engines.tests.test_xiangqi import description as xiangqi_description

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
MARKERS = {"words", "gettext_noop"}


def english(value: Words) -> str:
    with translation.override("en"):
        return value.worded(gettext)


def _kept_messages() -> list[tuple[str, str]]:
    """(where, message) of every ``words("…")`` and ``gettext_noop("…")`` in the app: the
    messages kept as words and worded when read."""
    found = []
    for path in sorted((ROOT / "scoring").rglob("*.py")):
        if "tests" in path.parts or "migrations" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) in MARKERS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", node.args[0].value))
    return found


KEPT = _kept_messages()


def test_the_scan_finds_the_engines_and_the_audits_messages():
    messages = {m for _where, m in KEPT}
    assert {"%(loser)s弃权，%(winner)s获胜", "本场结果：%(score)s", "A必打"} <= messages
    assert len(messages) > 150


@pytest.mark.parametrize(("where", "message"), KEPT, ids=[w for w, _m in KEPT])
def test_every_kept_message_has_its_english(where, message):
    with translation.override("en"):
        said = gettext(message)
    assert not CJK.search(said), f"{where}: {message!r} has no English ({said!r})"
    with translation.override("zh-hans"):
        assert gettext(message) == message  # Chinese reads the message itself


def test_the_referees_sentences_read_as_english():
    table_tennis = rally_description(
        rally.TABLE_TENNIS_11, "serve:a a*11 h*10 a*10 h h", {"home": "严旭慧", "away": "向国"}
    )
    assert str(table_tennis) == "严旭慧得分，第2局12–10，严旭慧胜，局分1:1；第3局向国先发球"
    assert english(table_tennis) == (
        "Point to 严旭慧: game 2 12–10 to 严旭慧, games 1:1; 向国 serves first in game 3"
    )
    chess = xiangqi_description(
        xiangqi.ANHUI_2021_XIANGQI, "Hh Aa Da", {"home": "李强", "away": "赵军"}
    )
    assert str(chess) == "第3盘和棋（赵军先手），后手李强获胜"
    assert english(chess) == "Game 3 drawn (赵军 moves first), 李强 wins the match as second mover"
    deal = guandan_description("nantong2014", "ABAB ABAB", {"A": "张伟、李娜", "B": "王芳、赵军"})
    assert english(deal) == "张伟、李娜 first out, partner 3rd, up 2: 4→6"
    forfeit = guandan_description("anhui2021", "B:forfeit")
    assert english(forfeit) == "Team B forfeits, Team A wins"


def test_the_rule_sets_read_as_english():
    assert english(ANHUI_2021.summary()) == (
        "Promotion 5/3/1; A must be played, 3 failed A attempts in all: back to 2; "
        "best of three; 150-minute limit (counted from the scheduled start); then sudden death"
    )
    assert english(NANTONG_2014.summary()) == (
        "Promotion 3/2/1; A must be played; a single game; 60-minute limit (counted from the "
        "referee's start); then the higher "
        "level wins, on equal levels the last deal's first out"
    )
    assert english(rally.BADMINTON_21.summary()) == (
        "Badminton, best of three, rally scoring, 21 points a game, 2 clear from 20-all, "
        "at 29-all the first to 30 wins; the rally winner serves"
    )
    assert english(xiangqi.ANHUI_2021_XIANGQI.summary()) == (
        "Best of three: in the first two games each player moves first once, win 1, draw "
        "0.5, loss 0; the player ahead after the first two games wins; on equal points game 3 "
        "is played with the first move by lot, a drawn game 3 goes to the second mover"
    )
    with translation.override("en"):
        assert (
            gettext(ANHUI_2021.name) == "Anhui Agricultural University staff guandan rules (2021)"
        )
