"""Time planning a whole day: six events of 64 entries each over four halls (target: under 2 s).

    .venv/bin/python bench/day.py            # SQLite in a temporary folder
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/guandan_bench .venv/bin/python bench/day.py

Two measurements, best of several runs: the pure planner alone (``plan_day`` on the day's
shapes), and the whole proposal the 全天赛程 page shows (reading the day from the database,
planning it and checking it). Measurements, not tests: nothing here fails on a slow machine.
"""

import os
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

from tournaments.day import planner, services  # noqa: E402
from tournaments.day.read import read_day  # noqa: E402
from tournaments.draw import make as draw_make  # noqa: E402
from tournaments.models import EventHall, Official, Tournament, Venue  # noqa: E402
from tournaments.ops import synthetic  # noqa: E402

SLUG = "bench-day"
EVENTS, ENTRIES, HALLS, PLACES = 6, 64, 4, 24


def best(fn, runs=5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def build() -> Tournament:
    call_command("migrate", verbosity=0)
    Tournament.objects.filter(slug=SLUG).delete()
    events = []
    for i in range(EVENTS):
        event = synthetic.create_event(
            tournament_slug=SLUG, event_slug=f"e{i}", entries=ENTRIES, seed=i, pairs_per_team=1
        )
        draw_make.draw_event(event=event, plan=synthetic.plan_for("knockout", ENTRIES), seed=i)
        events.append(event)
    tournament = events[0].tournament
    halls = [
        Venue.objects.create(tournament=tournament, name=f"{n}号馆", tables=PLACES, order=n)
        for n in range(1, HALLS + 1)
    ]
    # Each event may use one hall, and half of a second one.
    for i, event in enumerate(events):
        EventHall.objects.create(event=event, venue=halls[i % HALLS])
        EventHall.objects.create(event=event, venue=halls[(i + 1) % HALLS], places="1-12")
    for n in range(4):
        Official.objects.create(tournament=tournament, name=f"裁判{n}", role=Official.Role.REFEREE)
    return tournament


def main() -> None:
    tournament = build()
    read = read_day(tournament)
    print(f"{len(read.matches)} matches of {EVENTS} events over {HALLS} halls")
    pure = best(
        lambda: planner.plan_day(read.day, read.halls, read.events, read.matches, read.officials)
    )
    print(f"plan_day (pure): {pure:.3f} s")
    whole = best(lambda: services.propose(tournament), runs=3)
    print(f"propose (read, plan, check): {whole:.3f} s")
    proposal = services.propose(tournament)
    plan = proposal.plan
    print(
        f"placed {len(plan.bookings)}, late {len(plan.late)}, unplaced {len(plan.unplaced)}, "
        f"unrefereed {len(plan.unrefereed)}; last match ends {read.at(plan.ends):%H:%M}"
    )


if __name__ == "__main__":
    main()
