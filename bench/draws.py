"""Time the draw of a 4,096-entry event and the pairing of a 1,000-team Swiss round.

    .venv/bin/python bench/draws.py            # SQLite in a temporary folder
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/guandan_bench .venv/bin/python bench/draws.py

Prints one line per measurement (best of several runs). Measurements, not tests: nothing
here fails on a slow machine.
"""

import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")
os.environ.setdefault("DEBUG", "1")
if not os.environ.get("DATABASE_URL"):
    os.environ["VAR_DIR"] = tempfile.mkdtemp(prefix="guandan-bench-")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from tournaments.draw import make as draw_make
from tournaments.draw.rules import knockout  # noqa: E402
from tournaments.draw.rules.swiss import SwissPlayer, swiss_round  # noqa: E402
from tournaments.ops import synthetic  # noqa: E402


def best(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    if connection.vendor == "postgresql":
        # A throwaway database, so a real one is never touched.
        from django.test.utils import setup_databases

        setup_databases(verbosity=0, interactive=False)
    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor}")

    entries = list(range(4096))
    rng = random.Random(1)
    units = {e: e % 300 for e in entries}
    t = best(lambda: knockout.draw_knockout(entries, units=units, rng=rng))
    print(f"draw_knockout, 4,096 entries, 300 units (pure): {t * 1000:.0f} ms")
    slots = knockout.draw_knockout(entries, rng=rng)
    t = best(lambda: knockout.plan_knockout(slots))
    print(f"plan_knockout, 4,096 entries (pure): {t * 1000:.0f} ms")

    event = synthetic.create_event(tournament_slug="bench", event_slug="draw4096", entries=4096)
    timings = []
    for seed in range(3):
        start = time.perf_counter()
        draw_make.draw_event(event=event, seed=seed)
        timings.append(time.perf_counter() - start)
        draw_make.undo_draw(event=event)
    print(f"draw_event, 4,096 teams, rows written to the database: {min(timings) * 1000:.0f} ms")

    # A Swiss field of 1,000 after five rounds of random results.
    rng = random.Random(2)
    ids = list(range(1000))
    score = dict.fromkeys(ids, 0)
    met = {i: set() for i in ids}
    byes = set()
    for _round in range(5):
        r = swiss_round(
            [SwissPlayer(i, score[i], frozenset(met[i]), i in byes) for i in ids], rng=rng
        )
        for a, b in r.pairs:
            met[a].add(b)
            met[b].add(a)
            score[rng.choice((a, b))] += 2
        if r.bye is not None:
            byes.add(r.bye)
    players = [SwissPlayer(i, score[i], frozenset(met[i]), i in byes) for i in ids]
    t = best(lambda: swiss_round(players))
    print(f"swiss_round, 1,000 teams after 5 rounds (pure): {t * 1000:.0f} ms")


if __name__ == "__main__":
    main()
