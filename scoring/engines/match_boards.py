"""Individual matches as people see them (:class:`scoring.engines.board.Board`) and their
record on the score sheet (:class:`scoring.engines.board.Sheet`): rally-point games
(羽毛球, 乒乓球: games won, the running score, who serves) and 象棋 (points, who moves first).
Pure Python, no Django; the engines :mod:`scoring.engines.rally` and
:mod:`scoring.engines.xiangqi` pass these on as their own ``board`` and ``sheet``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scoring.engines.board import (
    Board,
    BoardSide,
    RecordItem,
    Sheet,
    Words,
    side_label,
    words,
)
from scoring.engines.common import SIDE_OF_TEAM, TEAM_OF_SIDE, forfeit_words

_TEAMS = ("A", "B")

# What a match's margin counts, as the standings head its column (象棋's points).
POINT_DIFFERENCE = words("净胜分")


def _over_note(winner: str | None) -> Words:
    return {"A": words("主方胜"), "B": words("客方胜")}.get(winner, words("已结束"))


def _brief(over: bool, games: str) -> Words:
    """The short line of a match not in a game: 已结束, its games so far, or 未开始."""
    if over:
        return words("已结束")
    return words("%(games)s", games=games) if games else words("未开始")


def _forfeit_notes(items: Iterable[RecordItem], names: Mapping[str, str]) -> tuple[Words, ...]:
    notes = []
    for item in items:
        body = item.payload.get("forfeit")
        if isinstance(body, dict):
            team = TEAM_OF_SIDE.get(body.get("side", ""), "")
            reason = forfeit_words(body.get("reason", ""), unknown="")
            note = words("%(name)s：弃权", name=names.get(team, ""))
            notes.append(
                words("%(what)s（%(reason)s）", what=note, reason=reason) if reason else note
            )
    return tuple(notes)


# --------------------------------------------------------------------------- rally


def rally_board(stored: dict, rules, names: Mapping[str, str]) -> Board:
    won = stored.get("games_won") or {}
    over = bool(stored.get("match_over"))
    winner = TEAM_OF_SIDE.get(stored.get("winner") or "") if over else None
    serving = TEAM_OF_SIDE.get(stored.get("server") or "")
    in_progress = bool(stored.get("game_in_progress"))
    number = stored.get("next_game")
    current = stored.get("current_game") or {}
    sides = tuple(
        BoardSide(
            team,
            side_label(team, names),
            str(won.get(SIDE_OF_TEAM[team], 0)),
            words("胜局 · %(serving)s", strong=("serving",), serving=words("发球"))
            if serving == team and not over
            else words("胜局"),
            marked=serving == team and not over,
        )
        for team in _TEAMS
    )
    played = stored.get("games") or []
    games = tuple(
        words(
            "第%(n)s局 %(game_score)s · %(name)s胜",
            strong=("game_score",),
            n=n,
            game_score=f"{g['home']} – {g['away']}",
            name=side_label("A" if g["home"] > g["away"] else "B", names),
        )
        for n, g in enumerate(played, start=1)
    )
    running = None
    if in_progress:
        running = words(
            "第%(n)s局 %(game_score)s",
            strong=("game_score",),
            n=number,
            game_score=f"{current.get('home', 0)} – {current.get('away', 0)}",
        )
    if over:
        status = words("比赛结束")
    elif serving:
        status = words("第%(n)s局 · %(name)s发球", n=number, name=side_label(serving, names))
    else:
        status = words("第%(n)s局", n=number)
    started = bool(played) or in_progress or over
    short_games = " ".join(f"{g['home']}–{g['away']}" for g in played)
    if in_progress:
        brief = words(
            "第%(n)s局 %(score)s",
            n=number,
            score=f"{current.get('home', 0)}–{current.get('away', 0)}",
        )
    else:
        brief = _brief(over, short_games)
    return Board(
        sides=sides,
        status=status,
        brief=brief,
        heading=words("比分"),
        started=started,
        over=over,
        winner=winner,
        note=brief if in_progress else (_over_note(winner) if over else None),
        line=brief if (in_progress or over or not played) else None,
        running=running,
        games=games,
        entry={
            "games": True,
            "points": True,
            "next_game": number,
            "game_in_progress": in_progress,
            "first_server_open": not stored.get("first_server") and not played and not in_progress,
        },
    )


def rally_sheet(items: Iterable[RecordItem], rules, names: Mapping[str, str], stored) -> Sheet:
    rows = []
    for n, g in enumerate(stored.get("games") or [], start=1):
        won = "A" if g["home"] > g["away"] else "B"
        rows.append((str(n), str(g["home"]), str(g["away"]), names.get(won, "")))
    return Sheet(
        columns=(words("局"), names.get("A", ""), names.get("B", ""), words("本局胜方")),
        rows=tuple(rows),
        notes_title=words("弃权记录"),
        notes=_forfeit_notes(items, names),
        blank_rows=max(0, rules.best_of - len(rows)),
        blank_from=len(rows) + 1,
        ended=bool(stored.get("match_over")),
    )


# --------------------------------------------------------------------------- 象棋


def xiangqi_board(stored: dict, rules, names: Mapping[str, str], score) -> Board:
    over = bool(stored.get("match_over"))
    winner = TEAM_OF_SIDE.get(stored.get("winner") or "") if over else None
    home, away = score
    sides = (
        BoardSide("A", side_label("A", names), home, words("积分")),
        BoardSide("B", side_label("B", names), away, words("积分")),
    )
    played = stored.get("games") or []
    number = stored.get("next_game")
    first = TEAM_OF_SIDE.get(stored.get("next_first_move") or "")

    def result(g: dict) -> Words:
        if g["result"] == "draw":
            return words("和棋")
        return words("%(name)s胜", name=side_label(TEAM_OF_SIDE[g["result"]], names))

    games = tuple(
        words(
            "第%(n)s盘 · %(first)s先手 · %(game_result)s",
            strong=("game_result",),
            n=n,
            first=side_label(TEAM_OF_SIDE[g["first_move"]], names),
            game_result=result(g),
        )
        for n, g in enumerate(played, start=1)
    )
    how = None
    if stored.get("decided_by") == "third_game_draw_second_mover":
        how = words("第三盘和棋，后手方获胜")
    if over:
        status = words("比赛结束 · %(how)s", how=how) if how else words("比赛结束")
    elif first:
        status = words(
            "第%(n)s盘：%(who)s",
            strong=("who",),
            n=number,
            who=words("%(name)s先手", name=side_label(first, names)),
        )
    elif number == 1:
        status = words("第%(n)s盘：%(what)s", n=number, what=words("请选择先手方"))
    else:
        status = words(
            "第%(n)s盘：%(what)s%(then)s",
            strong=("what",),
            n=number,
            what=words("猜先"),
            then=words("（第三盘和棋则后手方获胜）"),
        )
    short = " ".join({"draw": "½–½", "home": "1–0"}.get(g["result"], "0–1") for g in played)
    brief = _brief(over, short)
    return Board(
        sides=sides,
        status=status,
        brief=brief,
        heading=words("比分"),
        started=bool(played) or over,
        over=over,
        winner=winner,
        how=how,
        note=_over_note(winner) if over else None,
        line=brief if (over or not played) else None,
        games=games,
        entry={
            "chess_games": True,
            "next_game": number,
            "first_move": stored.get("next_first_move"),
        },
    )


def xiangqi_sheet(items: Iterable[RecordItem], rules, names: Mapping[str, str], stored) -> Sheet:
    rows = []
    for n, g in enumerate(stored.get("games") or [], start=1):
        first = names.get(TEAM_OF_SIDE[g["first_move"]], "")
        won = TEAM_OF_SIDE.get(g["result"])
        result = words("和棋") if won is None else words("%(name)s胜", name=names.get(won, ""))
        rows.append((str(n), first, result, ""))
    return Sheet(
        columns=(words("盘"), words("先手（红方）"), words("结果"), words("备注")),
        rows=tuple(rows),
        notes_title=words("弃权记录"),
        notes=_forfeit_notes(items, names),
        blank_rows=max(0, rules.best_of - len(rows)),
        blank_from=len(rows) + 1,
        blank_notes={3: words("猜先；和棋则后手胜")},
        ended=bool(stored.get("match_over")),
    )


def table_title(number: int, table_number: int | None) -> Words:
    """An individual match's record (比赛记录), with the hall's table or court (5号台)."""
    title = words("比赛记录")
    if table_number:
        place = words("%(t)s号台", t=table_number)
        return words("%(title)s · %(place)s", title=title, place=place)
    return title


def table_place(number: int, table_number: int | None) -> Words | None:
    """Where an individual match is played, when the hall numbers it (5号台)."""
    return words("%(t)s号台", t=table_number) if table_number else None
