"""Each engine describes its table for people (board) and its record on paper (sheet), in one
shape: pure, no database."""

from __future__ import annotations

from scoring.engines.board import RecordItem, Words, words
from scoring.engines.scorer import scorer_for

NAMES = {"A": "张伟、李娜", "B": "王芳、赵军"}


def test_words_keep_the_message_and_its_arguments_and_word_them_when_asked():
    line = words("第%(n)s局 · %(name)s发球", n=2, name="张伟")
    assert str(line) == "第2局 · 张伟发球"
    assert line.worded(lambda text: text.replace("第%(n)s局", "Game %(n)s")) == "Game 2 · 张伟发球"
    nested = words("%(a)s：%(b)s", a=words("局"), b=3)
    assert nested.worded(lambda text: {"局": "Games"}.get(text, text)) == "Games：3"
    bold = words("打 %(level)s", strong=("level",), level="A")
    assert bold.worded(str, lambda name, text: f"<{name}>{text}" if name else text) == "打 <level>A"


def test_a_guandan_board_shows_levels_whose_level_is_played_and_a_attempts():
    engine = scorer_for("guandan_team", "anhui2021")
    state = engine.replay([{"order": ["A", "A", "B", "B"]}])
    board = engine.board(state, NAMES)
    assert [s.score for s in board.sides] == list(engine.score(state))
    assert board.home.marked and not board.away.marked  # A's level is played next
    assert str(board.status) == f"打 {engine.score(state)[0]}（{NAMES['A']}的级）"
    assert "打A未过 0/3" in str(board.home.caption)
    assert board.started and not board.over and board.entry["deals"]
    assert str(board.heading) == "级数"


def test_a_finished_guandan_table_says_who_won():
    engine = scorer_for("guandan_pairs", "anhui2021")
    state = engine.replay([{"forfeit": {"team": "B", "reason": "withdrawn"}}])
    board = engine.board(state)
    assert board.over and board.winner == "A"
    assert str(board.note) == "主方胜" and str(board.status) == "比赛结束"


def test_a_rally_board_shows_games_won_the_running_score_and_the_server():
    engine = scorer_for("table_tennis", "")
    state = engine.replay(
        [{"first_server": "away"}] + [{"point": "home"}] * 11 + [{"point": "home"}]
    )
    board = engine.board(state, NAMES)
    assert (board.home.score, board.away.score) == ("1", "0")
    assert str(board.running) == "第2局 1 – 0"
    assert [str(g) for g in board.games] == [f"第1局 11 – 0 · {NAMES['A']}胜"]
    assert board.home.marked != board.away.marked  # one of them serves
    assert board.entry["game_in_progress"] and board.entry["next_game"] == 2


def test_a_chess_board_shows_points_and_who_must_move_first():
    engine = scorer_for("xiangqi", "")
    state = engine.replay([{"first_move": "home", "result": "draw"}])
    board = engine.board(state, NAMES)
    assert (board.home.score, board.away.score) == ("½", "½")
    assert str(board.status) == f"第2盘：{NAMES['B']}先手"
    assert board.entry["first_move"] == "away"


def test_the_guandan_sheet_numbers_deals_and_notes_penalties_and_forfeits():
    engine = scorer_for("guandan_team", "nantong2014")
    items = [
        RecordItem({"order": ["A", "A", "B", "B"]}),
        RecordItem({"penalty": {"team": "A", "kind": "back_to_2"}}, reason="出错牌"),
        RecordItem({"order": ["B", "A", "B", "A"]}),
        RecordItem({"forfeit": {"team": "A", "reason": "late_over_10_min"}}),
    ]
    sheet = engine.sheet(items, NAMES)
    assert [row[0] for row in sheet.rows] == ["1", "", "2"]
    assert str(sheet.rows[1][4]) == f"{NAMES['A']}：回到2"
    assert tuple(map(str, sheet.notes)) == (
        f"{NAMES['A']}：回到2（出错牌）",
        f"{NAMES['A']}：判负（迟到十分钟以上）",
    )
    assert sheet.ended and sheet.blank_from == 3 and not sheet.numbered_blanks


def test_a_chess_sheet_has_a_row_per_game_the_match_can_take():
    engine = scorer_for("xiangqi", "")
    sheet = engine.sheet([RecordItem({"first_move": "home", "result": "home"})], NAMES)
    assert [tuple(map(str, row)) for row in sheet.rows] == [
        ("1", NAMES["A"], f"{NAMES['A']}胜", "")
    ]
    assert [(n, str(note)) for n, note in sheet.blanks] == [(2, ""), (3, "猜先；和棋则后手胜")]


def test_every_engine_names_its_tables():
    assert str(scorer_for("guandan_team", "anhui2021").table_title(2, 5)) == "第2台 · 5号桌"
    assert str(scorer_for("badminton", "").table_title(1, None)) == "比赛记录"
    assert isinstance(scorer_for("xiangqi", "").heading, Words)
