"""Guandan (掼蛋) level-scoring engine: pure Python, standard library only.

Implements the rules of ``docs/rules.md`` (both seed rule sets and custom ones). A match is
replayed from its recorded events (deals, penalties, time-up, forfeits); every
function here takes plain data and returns new immutable data.

Terms used in names and messages:

* 上游 (头游) - the first player of a deal to empty their hand; that player's team
  "takes 上游" and is promoted. 二游 / 三游 / 末游 (下游) are the 2nd, 3rd and 4th to
  finish. The promotion depends on where 上游's partner finished.
* 双上 / 双下 - one team takes 上游 and 二游 (双上); the other team is 双下.
* 级 (level) - each team's own rank 2..10, J, Q, K, A, stored as 2..14 (14 = A).
* declarer (打家) - the team whose level is the trump rank of the next deal: the team
  that took 上游 in the previous deal of the same game (none on a game's first deal).
* 打A - a deal played by the declarer at its own level A: an A attempt. Passing A
  (过A, 上游 with the partner 二游/三游) wins the game (局).
* 局 / 场 - a game runs from 2 until a team passes A; a match (场) is one game
  (nantong2014) or best of three games (anhui2021).
* 突然死亡法 (sudden death) - anhui2021 after the time limit: the unfinished game is
  discarded and each further deal is a whole game at level A won by its 上游.

Two kinds of error: :class:`scoring.engines.common.EngineError` is the only exception for
input a referee can fix; anything else (``ValueError`` for a bad rule-set config,
``TypeError``...) is a bug in the caller.

Layout: rule sets live in :mod:`scoring.engines.guandan.rules`, events and their JSON form
in :mod:`scoring.engines.guandan.events` (both re-exported here), play in this module, the
referee screen's sentences in :mod:`scoring.engines.guandan.describe` (built on this one),
and :mod:`scoring.engines.guandan.engine` puts them behind the scorer's protocol.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from scoring.engines import common
from scoring.engines.common import EngineError
from scoring.engines.guandan.events import (
    Deal,
    Event,
    Forfeit,
    Penalty,
    TimeUp,
    coerce_event,
    event_to_dict,
    parse_event,
)
from scoring.engines.guandan.rules import (
    ACE,
    ANHUI_2021,
    LOWEST,
    NANTONG_2014,
    PRESETS,
    TEAMS,
    RuleSet,
    as_ruleset,
    get_ruleset,
    level_label,
    other,
)

# ---------------------------------------------------------------------------- state


@dataclass(frozen=True, eq=False)
class TeamValues(Mapping):
    """An immutable {'A': int, 'B': int} (levels, counters, games won)."""

    A: int
    B: int

    def __getitem__(self, team: str) -> int:
        if team == "A":
            return self.A
        if team == "B":
            return self.B
        raise KeyError(team)

    def __iter__(self):
        return iter(TEAMS)

    def __len__(self) -> int:
        return 2

    def __hash__(self) -> int:
        return hash((self.A, self.B))

    def with_value(self, team: str, value: int) -> TeamValues:
        return replace(self, **{team: value})


@dataclass(frozen=True)
class GameResult:
    winner: str
    how: str  # 'passed_A' | 'sudden_death'


@dataclass(frozen=True)
class MatchState:
    """The state of one table match (场) after some events."""

    levels: TeamValues = field(default_factory=lambda: TeamValues(LOWEST, LOWEST))
    declarer: str | None = None
    a_failures: TeamValues = field(default_factory=lambda: TeamValues(0, 0))
    games_won: TeamValues = field(default_factory=lambda: TeamValues(0, 0))
    completed_games: tuple[GameResult, ...] = ()
    sudden_death: bool = False
    time_up: bool = False
    last_top: str | None = None
    deals_in_game: int = 0
    deals_total: int = 0
    match_over: bool = False
    winner: str | None = None
    decided_by: str | None = None

    def level(self, team: str) -> int:
        return self.levels[team]

    def playing_level(self) -> int:
        """Level of the next deal (打几): the declarer's level; 2 when a game starts; A in
        sudden death. Meaningless once the match is over (returns 2 then)."""
        if self.sudden_death:
            return ACE
        return LOWEST if self.declarer is None else self.levels[self.declarer]


def initial_state(ruleset: RuleSet | str) -> MatchState:
    as_ruleset(ruleset)
    return MatchState()


def _end_match(state: MatchState, winner: str | None, decided_by: str, **changes) -> MatchState:
    # docs/rules.md, "After the end": every way a match ends clears the declarer; levels
    # and counters keep the values of the moment it ended.
    return replace(
        state, match_over=True, winner=winner, decided_by=decided_by, declarer=None, **changes
    )


def _finish_game(state: MatchState, winner: str, how: str, rs: RuleSet) -> MatchState:
    games = state.games_won.with_value(winner, state.games_won[winner] + 1)
    state = replace(
        state,
        games_won=games,
        completed_games=state.completed_games + (GameResult(winner, how),),
    )
    if games[winner] >= rs.games_to_win:
        # docs/rules.md, "After the end": a one-game match won at A is 'passed_A';
        # otherwise the match is won on games (also when the deciding game was a
        # sudden-death game).
        decided = "passed_A" if rs.games_to_win == 1 and how == "passed_A" else "games"
        return _end_match(state, winner, decided)
    # A new game: both at 2, no declarer, counters cleared (docs/rules.md, "A game won").
    # In sudden death every game is played at A ("Time up", sudden_death).
    start = ACE if state.sudden_death else LOWEST
    return replace(
        state,
        levels=TeamValues(start, start),
        declarer=None,
        a_failures=TeamValues(0, 0),
        deals_in_game=0,
    )


@dataclass(frozen=True)
class DealOutcome:
    """What one deal did; used by :func:`describe` and tests."""

    top: str
    partner_place: int
    gain: int
    played_level: int
    declarer: str | None  # declarer of this deal (before it)
    game_won: str | None  # 'passed_A' | 'sudden_death' | None
    top_before: int
    top_after: int
    # (team, failure number counted in this deal, whether it sent the team back)
    failures: tuple[tuple[str, int, bool], ...] = ()


def _play_deal(state: MatchState, deal: Deal, rs: RuleSet) -> tuple[MatchState, DealOutcome]:
    top, place = deal.top, deal.partner_place
    gain = rs.promotion[place - 2]
    levels, declarer = state.levels, state.declarer
    outcome = DealOutcome(
        top, place, gain, state.playing_level(), declarer, None, levels[top], levels[top]
    )
    state = replace(
        state,
        last_top=top,
        deals_in_game=state.deals_in_game + 1,
        deals_total=state.deals_total + 1,
    )

    if state.sudden_death:
        # docs/rules.md, "Time up" (sudden_death): one deal = one game, won by 上游 whatever
        # the partner's place.
        outcome = replace(outcome, game_won="sudden_death")
        return _finish_game(state, top, "sudden_death", rs), outcome

    own_attempt = declarer is not None and levels[declarer] == ACE  # 打A at its own level
    # docs/rules.md, "Passing A": at A, 上游, partner in an allowed place, and - strict
    # rule - playing the team's own A as declarer.
    if (
        levels[top] == ACE
        and place in rs.a_win_partner_places
        and (top == declarer or not rs.a_win_requires_declarer)
    ):
        outcome = replace(outcome, game_won="passed_A")
        return _finish_game(state, top, "passed_A", rs), outcome

    failures = dict(state.a_failures)
    failed: list[str] = []
    if rs.a_fail_limit is not None:
        if rs.a_fail_counting == "any_lost_deal_at_a":
            # every deal lost while at A, plus own-A deals won badly (1-4): docs/rules.md,
            # the custom rule set's a_fail_counting.
            failed = [t for t in TEAMS if levels[t] == ACE and t != top]
            if own_attempt and declarer == top:
                failed.append(top)
        elif own_attempt:
            # Any own-A deal that did not pass A is a failed attempt (docs/rules.md, "A
            # failed attempt").
            failed = [declarer]
        if rs.a_fail_counting == "own_a_consecutive" and not (own_attempt and declarer == top):
            # Taking 上游 outside an own-A attempt breaks the team's failure streak.
            failures[top] = 0

    new_levels = dict(levels)
    counted = []
    for team in failed:
        failures[team] += 1
        reset = failures[team] >= rs.a_fail_limit
        counted.append((team, failures[team], reset))
        if reset:  # 直退到2 (or the K/J variants)
            new_levels[team] = rs.a_fail_reset_to
            failures[team] = 0
    if top not in failed:
        # Promotion is capped at A: A must be played, never skipped. A team that just
        # failed at its own A gets no promotion, not even after a reset (docs/rules.md,
        # "A deal" and "A failed attempt").
        new_levels[top] = min(ACE, levels[top] + gain)

    outcome = replace(outcome, top_after=new_levels[top], failures=tuple(counted))
    state = replace(
        state,
        levels=TeamValues(new_levels["A"], new_levels["B"]),
        a_failures=TeamValues(failures["A"], failures["B"]),
        declarer=top,  # 上游's team declares the next deal (docs/rules.md, "A deal")
    )
    return state, outcome


def _apply_penalty(state: MatchState, p: Penalty, rs: RuleSet) -> MatchState:
    if p.kind == "disqualify":
        return _end_match(state, other(p.team), "disqualification")
    if state.sudden_death:
        # The level card is fixed at A in sudden death; a deduction changes nothing
        # (docs/rules.md, "Penalties").
        return state
    old = state.levels[p.team]
    new = LOWEST if p.kind == "back_to_2" else max(LOWEST, old - p.levels)
    failures = state.a_failures
    if new < ACE:
        # A team that drops below A starts a fresh count when it is back at A.
        failures = failures.with_value(p.team, 0)
    # docs/rules.md, "Penalties": a deduction never changes the declarer, even when it is
    # the penalised team.
    return replace(state, levels=state.levels.with_value(p.team, new), a_failures=failures)


def _apply_time_up(state: MatchState, rs: RuleSet) -> MatchState:
    if state.time_up:
        raise EngineError("time_already_up")
    if rs.time_rule == "sudden_death":
        # docs/rules.md, "Time up" (sudden_death): the whistle discards the unfinished game
        # (levels, declarer and counters); completed games stay; every further deal is a
        # game at A.
        return replace(
            state,
            time_up=True,
            sudden_death=True,
            levels=TeamValues(ACE, ACE),
            declarer=None,
            a_failures=TeamValues(0, 0),
            deals_in_game=0,
        )
    a, b = state.levels["A"], state.levels["B"]
    if rs.time_rule == "levels_then_last_top" and state.deals_in_game == 0:
        # docs/rules.md, "Time up": the tie-break needs the final deal's 上游. A
        # draw-allowed rule needs no tie-break, so there a time-up before any deal is a
        # 2-2 draw.
        raise EngineError("no_deal_to_decide")
    state = replace(state, time_up=True)
    if a != b:
        return _end_match(state, "A" if a > b else "B", "time_levels")
    if rs.time_rule == "levels_then_last_top":
        # Equal levels -> the final deal's 上游, even if it was penalised afterwards
        # (docs/rules.md, "Choices the code makes": Nantong time up).
        return _end_match(state, state.last_top, "time_last_deal_top")
    return _end_match(state, None, "time_draw")


def apply_event(state: MatchState, event: Event | dict, ruleset: RuleSet | str) -> MatchState:
    """Apply one event; pure. Raises :class:`EngineError` with ``event_index=None``."""
    rs = as_ruleset(ruleset)
    if state.match_over:
        # docs/rules.md, "After the end": checked before any other validation - even a malformed event
        # after the end is answered 'match_over' (nothing can be added to a finished
        # record, whatever it is).
        raise EngineError("match_over")
    event = coerce_event(event)
    if isinstance(event, Deal):
        return _play_deal(state, event, rs)[0]
    if isinstance(event, Penalty):
        return _apply_penalty(state, event, rs)
    if isinstance(event, TimeUp):
        return _apply_time_up(state, rs)
    return _end_match(state, other(event.team), "forfeit")


def replay(ruleset: RuleSet | str, events: Iterable[Event | dict]) -> MatchState:
    """Replay a whole record. Errors carry the index of the offending event."""
    rs = as_ruleset(ruleset)
    return common.replay(
        initial_state(rs), lambda state, event: apply_event(state, event, rs), events
    )


# -------------------------------------------------------------------------- output


def _team_dict(values: TeamValues) -> dict:
    return {t: values[t] for t in TEAMS}


def state_to_dict(state: MatchState, ruleset: RuleSet | str) -> dict:
    """The state exactly in the public examples' ``expected`` format
    (``scoring/engines/tests/data/guandan-vectors.json``)."""
    rs = as_ruleset(ruleset)
    d = {
        "levels": {t: level_label(state.levels[t]) for t in TEAMS},
        "declarer": state.declarer,
        "games_won": _team_dict(state.games_won),
        "completed_games": [{"winner": g.winner, "how": g.how} for g in state.completed_games],
        "match_over": state.match_over,
        "winner": state.winner,
        "decided_by": state.decided_by,
    }
    if rs.shows_a_failures:
        d["a_failures"] = _team_dict(state.a_failures)
        d["sudden_death"] = state.sudden_death
    return d


def state_to_full_dict(state: MatchState, ruleset: RuleSet | str) -> dict:
    """:func:`state_to_dict` plus the fields a UI needs (always with a_failures)."""
    d = state_to_dict(state, ruleset)
    d.setdefault("a_failures", _team_dict(state.a_failures))
    d.setdefault("sudden_death", state.sudden_death)
    d.update(
        playing_level=None if state.match_over else level_label(state.playing_level()),
        last_top=state.last_top,
        time_up=state.time_up,
        deals_in_game=state.deals_in_game,
        deals_total=state.deals_total,
    )
    return d


def deal_outcome(state: MatchState, deal: Deal, ruleset: RuleSet | str) -> DealOutcome:
    """What ``deal`` does when played from ``state`` (the match must not be over)."""
    if state.match_over:
        raise EngineError("match_over")
    return _play_deal(state, deal, as_ruleset(ruleset))[1]


# -------------------------------------------------------------------------- team tie


@dataclass(frozen=True)
class TieResult:
    winner: str | None
    wins: dict
    decided: bool
    tables_done: int


def decide_tie(table_winners: Sequence[str | None], tables: int = 3) -> TieResult:
    """Team tie (团体, docs/rules.md, the seed rule sets: Nantong): pairs play ``tables``
    table matches at once; the
    team with a majority of table wins takes the tie, as soon as it has it. A forfeited
    table is simply a table won by the other side. Unfinished tables are ``None``."""
    if isinstance(tables, bool) or not isinstance(tables, int) or tables < 1 or tables % 2 == 0:
        raise ValueError(f"tables must be an odd whole number >= 1, got {tables!r}")
    if isinstance(table_winners, (str, bytes)) or not isinstance(table_winners, Sequence):
        raise ValueError("table_winners must be a list of 'A', 'B' or None")
    if len(table_winners) > tables:
        raise ValueError(f"{len(table_winners)} table results for a {tables}-table tie")
    if any(w not in (None, "A", "B") for w in table_winners):
        raise ValueError(f"table winners must be 'A', 'B' or None, got {list(table_winners)!r}")
    wins = {t: sum(1 for w in table_winners if w == t) for t in TEAMS}
    majority = tables // 2 + 1
    winner = next((t for t in TEAMS if wins[t] >= majority), None)
    done = sum(1 for w in table_winners if w is not None)
    return TieResult(winner=winner, wins=wins, decided=winner is not None, tables_done=done)


__all__ = [
    "ACE",
    "ANHUI_2021",
    "NANTONG_2014",
    "PRESETS",
    "LOWEST",
    "TEAMS",
    "Deal",
    "DealOutcome",
    "EngineError",
    "Event",
    "Forfeit",
    "GameResult",
    "MatchState",
    "Penalty",
    "RuleSet",
    "TeamValues",
    "TieResult",
    "TimeUp",
    "apply_event",
    "as_ruleset",
    "coerce_event",
    "deal_outcome",
    "decide_tie",
    "event_to_dict",
    "get_ruleset",
    "initial_state",
    "level_label",
    "other",
    "parse_event",
    "replay",
    "state_to_dict",
    "state_to_full_dict",
]
