"""Random but legal Guandan table matches, for demo data, generated events and benchmarks.

Pure (no Django). Each deal is a random finishing order; a match that has not ended after
``max_deals`` deals is ended by time (``time_up``), as a real table would be.
"""

from __future__ import annotations

import random

from scoring.engine import RuleSet, apply_event, initial_state, parse_event

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
