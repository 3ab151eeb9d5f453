"""Random but legal matches of every sport (Guandan tables, 象棋, badminton and table
tennis), for demo data, generated events and benchmarks.

Pure (no Django). A Guandan deal is a random finishing order; a table that has not ended
after ``max_deals`` deals is ended by time (``time_up``), as a real table would be.
"""

from __future__ import annotations

import random

from scoring.engines import rally, xiangqi
from scoring.engines.guandan.play import RuleSet, apply_event, initial_state, parse_event

ORDERS = [
    ("A", "A", "B", "B"),
    ("A", "B", "A", "B"),
    ("A", "B", "B", "A"),
    ("B", "B", "A", "A"),
    ("B", "A", "B", "A"),
    ("B", "A", "A", "B"),
]


def random_table(
    ruleset: RuleSet, rng: random.Random, *, strength: float = 0.5, max_deals: int = 40
):
    """(events as JSON dicts, final state). ``strength`` is team A's chance of 上游."""
    state = initial_state(ruleset)
    events: list[dict] = []
    while not state.match_over:
        if len(events) >= max_deals and not state.time_up:
            event = {"time_up": True}
        else:
            a_top = rng.random() < strength
            order = rng.choice(ORDERS[:3] if a_top else ORDERS[3:])
            event = {"order": list(order)}
        state = apply_event(state, parse_event(event), ruleset)
        events.append(event)
    return events, state


def random_rally(rules, rng: random.Random, *, strength: float = 0.5, by_point: bool = False):
    """(events, final state) of a random but legal badminton or table-tennis match.
    ``strength`` is the home player's chance of winning a rally; ``by_point`` records
    every rally (after a drawn first server) instead of whole game scores."""
    rules = rally.as_rules(rules)
    state = rally.initial_state(rules)
    events: list[dict] = []
    if by_point:
        events.append({"first_server": rng.choice(("home", "away"))})
        state = rally.apply_event(state, events[-1], rules)
        while not state.match_over:
            events.append({"point": "home" if rng.random() < strength else "away"})
            state = rally.apply_event(state, events[-1], rules)
        return events, state
    while not state.match_over:
        home = away = 0
        while not rally.is_game_over(home, away, rules):
            if rng.random() < strength:
                home += 1
            else:
                away += 1
        events.append({"home": home, "away": away})
        state = rally.apply_event(state, events[-1], rules)
    return events, state


def random_xiangqi(rules, rng: random.Random, *, strength: float = 0.5, draws: float = 0.2):
    """(events, final state) of a random but legal chess match: who moves first follows
    the rules (lot where they leave it free); ``strength`` is the home player's share of
    the decisive games, ``draws`` the chance of a draw."""
    rules = xiangqi.as_rules(rules)
    state = xiangqi.initial_state(rules)
    events: list[dict] = []
    while not state.match_over:
        first = state.next_first_move or rng.choice(("home", "away"))
        decisive = rng.random() >= draws
        winner = "home" if rng.random() < strength else "away"
        result = winner if decisive else "draw"
        events.append({"result": result, "first_move": first})
        state = xiangqi.apply_event(state, events[-1], rules)
    return events, state
