"""bench/big_live.py's Django side, run in a process of its own (``python
bench/big_live_setup.py setup DIR PAIRS | existing DIR TOURNAMENT EVENT ROUND | check DIR``)
so the process that calls run_live() never loads Django or opens the bench's database: the
event it builds or takes, the referees' logins, and the exactly-once check after the run.
They read their settings from the environment big_live.py gives them and talk to it
through JSON files in DIR."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live_setup import ROOT, Referee, Setup, migrate_and_collect  # noqa: E402

T, E = "bench-big", "pairs"


def _django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def mean_deals(samples: int = 2000) -> float:
    """How many deals a table plays on average when each deal's 上游 and partner's place
    are chosen at random, as the bench's referees choose them (the level engine decides
    when the table is over)."""
    import random
    import statistics

    from scoring.engines.guandan.play import get_ruleset
    from scoring.engines.simulate import random_table

    rules, rng = get_ruleset("nantong2014"), random.Random(2026)
    return statistics.mean(len(random_table(rules, rng, strength=0.5)[0]) for _ in range(samples))


def bracket_render_seconds(event) -> float:
    """What one version of the bracket costs to render (its reads and its template, as
    tournaments/live/views.py renders it), the faster of two after a first, cold one."""
    from django.template.loader import render_to_string
    from django.test import RequestFactory

    from scoring.selectors import show_points
    from tournaments.draw.read import load_bracket
    from tournaments.draw.sheet import draw_sheet
    from tournaments.live.http import POLL_SECONDS

    request = RequestFactory().get("/")
    took = []
    for _ in range(3):
        start = time.perf_counter()
        bracket = load_bracket(event)
        show_points(event, [m for s in bracket.stages for r in s.rounds for m in r.matches])
        context = {"tournament": event.tournament, "event": event, "bracket": bracket}
        context |= {"sheet": draw_sheet(bracket), "poll_seconds": POLL_SECONDS}
        render_to_string("tournaments/bracket.html#bracket_body", context, request)
        took.append(time.perf_counter() - start)
    return min(took[1:])


def setup(directory: Path, pairs: int, existing: tuple[str, str, int] | None = None) -> None:
    """Migrate and collect the static files; then either make a pairs event of ``pairs``
    drawn as a Swiss (its first round: pairs / 2 matches of one table each, nothing played)
    or take ``existing`` (tournament, event, round number: bench/big.py's event, that round
    left to be played); and one referee's login for each of the round's tables. Writes
    what the run needs to DIR/setup.json."""
    _django()

    from scoring.models import TableEvent
    from tournaments.draw import make as draw_make
    from tournaments.models import Event, Tournament
    from tournaments.ops import synthetic

    timings = migrate_and_collect()
    start = time.perf_counter()
    if existing is None:
        slugs, number = (T, E), 1
        event = synthetic.create_event(tournament_slug=T, event_slug=E, entries=pairs, kind="pairs")
        draw_make.draw_event(event=event, plan=synthetic.plan_for("swiss", pairs), seed=2026)
        timings[f"generate {pairs} pairs, draw a Swiss"] = time.perf_counter() - start
    else:
        *slugs, number = existing
        event = Event.objects.select_related("tournament").get(
            tournament__slug=slugs[0], slug=slugs[1]
        )
    # Public: the phones are anonymous spectators.
    Tournament.objects.filter(slug=slugs[0]).update(status=Tournament.Status.RUNNING)
    event = Event.objects.select_related("tournament").get(pk=event.pk)
    render = bracket_render_seconds(event)
    start = time.perf_counter()
    matches, referees = _referees(event, number)
    timings[f"{len(referees)} referees' logins, one a table"] = time.perf_counter() - start
    (directory / "setup.json").write_text(
        json.dumps(
            {
                "event_id": event.pk,
                "tournament": slugs[0],
                "event": slugs[1],
                "round": number,
                "pairs": event.entries.count(),
                "matches": matches,
                "referees": referees,
                "timings": timings,
                "mean_deals": mean_deals(),
                "bracket_render_seconds": render,
                "prior_events": TableEvent.objects.filter(
                    table_id__in=[t for r in referees for t in r["tables"]]
                ).count(),
            }
        )
    )


def _referees(event, number: int) -> tuple[list[int], list[dict]]:
    """A referee (an account, an official, a session) for each match of round ``number``
    not over yet, the match's tables theirs: (the matches, the logins)."""
    import uuid

    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.utils.crypto import get_random_string

    from scoring.models import TableMatch
    from tournaments.models import Match, Official

    matches = list(
        Match.objects.filter(
            round__stage__event=event,
            round__stage__draw__undone_at__isnull=True,
            round__number=number,
            status__in=[Match.Status.PENDING, Match.Status.IN_PROGRESS],
        )
        .exclude(home=None)
        .exclude(away=None)
        .order_by("index")
    )
    if not matches:
        raise SystemExit(f"{event}: round {number} has no match left to play")
    tables: dict[int, list[int]] = {}
    for match_id, pk in TableMatch.objects.filter(match__in=matches).values_list("match_id", "pk"):
        tables.setdefault(match_id, []).append(pk)
    User = get_user_model()
    run, unusable = uuid.uuid4().hex[:6], make_password(None)
    users = User.objects.bulk_create(
        User(username=f"live-{run}-{i:04d}", password=unusable) for i in range(len(matches))
    )
    officials = Official.objects.bulk_create(
        Official(
            tournament=event.tournament,
            name=f"裁判{i:04d}·{run}",
            role=Official.Role.REFEREE,
            user=u,
        )
        for i, u in enumerate(users)
    )
    for match, official in zip(matches, officials, strict=True):
        match.referee = official
    Match.objects.bulk_update(matches, ["referee"], batch_size=500)
    referees = []
    for match, user in zip(matches, users, strict=True):
        store = SessionStore()
        store["_auth_user_id"] = str(user.pk)
        store["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        store["_auth_user_hash"] = user.get_session_auth_hash()
        store.create()
        referees.append(
            {
                "session": store.session_key,
                "csrf": get_random_string(32),
                "tables": sorted(tables.get(match.pk, [])),
            }
        )
    return [m.pk for m in matches], referees


def check(directory: Path) -> None:
    """Every deal the run acknowledged (DIR/acknowledged.json) is in the database once:
    bench/live_load.py's exactly_once, on this event's tables; writes DIR/check.json."""
    _django()
    from live_load import DealLog, exactly_once

    made = json.loads((directory / "setup.json").read_text())
    run = json.loads((directory / "acknowledged.json").read_text())
    referees = [Referee(r["session"], r["csrf"], r["tables"]) for r in made["referees"]]
    log = DealLog(acknowledged={(t, k): True for t, k in run["acknowledged"]})
    log.resends = run["resends"]
    ok, detail = exactly_once(Setup(made["event_id"], referees, None), log)
    if made["prior_events"]:
        detail += f"; {made['prior_events']:,} of those stored were there before the run"
    (directory / "check.json").write_text(json.dumps({"ok": ok, "detail": detail}))


if __name__ == "__main__":
    what, where = sys.argv[1], Path(sys.argv[2])
    if what == "setup":
        setup(where, int(sys.argv[3]))
    elif what == "existing":
        setup(where, 0, (sys.argv[3], sys.argv[4], int(sys.argv[5])))
    elif what == "check":
        check(where)
    else:
        raise SystemExit(f"unknown step {what!r}: setup or check")
