"""`make bench-big`: the big day (万人掼蛋-sized: a city's union cup) on PostgreSQL — 2,048
pairs, 1,024 tables a round, seven Swiss rounds.

    make bench-big                  # or: .venv/bin/python bench/big.py

Builds the event with ``generate_event --kind pairs --format swiss --rounds 7`` in the
database BENCH_BIG_DATABASE_URL (postgres://postgres@127.0.0.1:5432/gc_bench_big, dropped
and created afresh), then plays it through the result services round by round and times:

- each round's pairing and table assignment: round 1 is the draw; each later round is
  paired by the last result of the round before, timed as that whole service call (the
  result, the pairing, 1,024 ties with their tables and table numbers) — target under 2 s;
- the 1,024 score sheets of round 7 (left to be played), from the click on their page to the
  file: the build started as the page starts it (``manage.py build_scoresheets`` in a
  process of its own, on every core), its progress read from the database as the page
  reads it — target under 60 s;
- the live part, if bench/big_live.py is there: ``run_live(database_url=…, tournament=…,
  event=…, round_number=7)`` returns rows ``(what, figure, target, met)`` for the table.

Prints a markdown table of each figure, its target and whether it was met. Measurements, not
tests: a slow or shared machine misses targets (the load average is printed beside them).
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import time
import uuid
from pathlib import Path

import live_setup  # noqa: E402  (bench/: the fresh database, one way)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

DATABASE_URL = os.environ.get(
    "BENCH_BIG_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_bench_big"
)
PAIRS = int(os.environ.get("BENCH_BIG_PAIRS", "2048"))  # fewer for a quick try of the bench
ROUNDS = 7
T, E = "big-day", "pairs"
PAIRING_TARGET, SHEETS_TARGET = 2.0, 60.0

os.environ["DATABASE_URL"] = DATABASE_URL
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")
os.environ["DEBUG"] = "0"  # no query log: as in production
os.environ.setdefault("SECRET_KEY", "bench-big-" + uuid.uuid4().hex + uuid.uuid4().hex)
os.environ.setdefault("ALLOWED_HOSTS", "127.0.0.1,localhost")
os.environ.setdefault("LOG_LEVEL", "WARNING")

try:  # the live part: two app servers behind nginx, phones polling, tables entering
    from big_live import run_live
except ImportError:
    run_live = None


def say(text: str = "") -> None:
    print(text, flush=True)


def load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def fresh_database() -> None:
    live_setup.fresh_database(DATABASE_URL)


def seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


def verdict(value: float, target: float) -> str:
    return "met" if value < target else "NOT met"


@contextlib.contextmanager
def timing(module, name: str, timings: dict, key: int):
    """Time the calls of ``module.name`` made within the block into ``timings[key]``."""
    real = getattr(module, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            timings[key] = time.perf_counter() - start

    setattr(module, name, timed)
    try:
        yield
    finally:
        setattr(module, name, real)


def build_event(timings: dict) -> None:
    """generate_event --kind pairs, with the draw (round 1's pairing and tables) timed."""
    from django.core.management import call_command

    from tournaments.draw import make as draw_make

    with timing(draw_make, "draw_event", timings, 1):
        call_command(
            "generate_event", T, E, "--entries", str(PAIRS), "--kind", "pairs",
            "--format", "swiss", "--rounds", str(ROUNDS), "--seed", "2048",
        )  # fmt: skip


def play_rounds(event, timings: dict) -> None:
    """Rounds 1–6 played through the result services; the last result of each, which pairs
    the next round and seats it, timed (its own service call, not the table's simulated
    play before it)."""
    from tournaments.draw import results as draw_results
    from tournaments.models import Match
    from tournaments.ops import synthetic

    rng = random.Random(2048)
    for number in range(1, ROUNDS):
        ties = list(
            Match.objects.filter(round__stage__event=event, round__number=number)
            .exclude(status=Match.Status.BYE)
            .order_by("index")
        )
        start = time.perf_counter()
        *first, last = ties
        for match in first:
            synthetic.play_match(match, event, rng)
        played = time.perf_counter() - start
        with timing(draw_results, "record_result", timings, number + 1):
            synthetic.play_match(last, event, rng)
        seated = Match.objects.filter(
            round__stage__event=event, round__number=number + 1, first_table__isnull=False
        ).count()
        say(
            f"  round {number}: {len(ties)} results in {played:.0f} s; round {number + 1} "
            f"paired and seated ({seated} ties at tables) in {seconds(timings[number + 1])}"
        )


def build_sheets(event) -> dict:
    """Round 7's score sheets from the click to the file, as the page starts and reads them."""
    from django.test import RequestFactory

    from tournaments.documents import sheets
    from tournaments.models import SheetBuild

    started = []
    launch = sheets.launch
    sheets.launch = lambda build_id: started.append(launch(build_id))
    request = RequestFactory().get("/", HTTP_HOST="127.0.0.1")
    reader = sheets.reader_of(request, ROUNDS, False)
    event.refresh_from_db()
    begin = time.perf_counter()
    build = sheets.start(event, reader)
    sheets.launch = launch
    seen, first_sheet = [], None
    while True:
        row = SheetBuild.objects.defer("pdf").get(pk=build.pk)
        if row.done and first_sheet is None:
            first_sheet = time.perf_counter() - begin
        if not seen or seen[-1][1] != row.done:
            seen.append((time.perf_counter() - begin, row.done))
        if row.state != SheetBuild.State.BUILDING:
            break
        time.sleep(0.5)
    wall = time.perf_counter() - begin
    cpu = None
    if started and started[0] is not None:
        _pid, _status, usage = os.wait4(started[0].pid, 0)
        cpu = usage.ru_utime + usage.ru_stime
    row = SheetBuild.objects.get(pk=build.pk)
    pages = 0
    if row.state == SheetBuild.State.DONE:
        import io

        from pypdf import PdfReader

        pages = len(PdfReader(io.BytesIO(bytes(row.pdf))).pages)
    steps = ", ".join(f"{n} at {t:.0f} s" for t, n in seen[1::4])
    say(f"  progress as the page shows it: {steps or '—'}")
    return {
        "wall": wall,
        "cpu": cpu,
        "first": first_sheet,
        "state": row.state,
        "error": row.error,
        "pages": pages,
        "total": row.total,
        "size": len(bytes(row.pdf)),
    }


def main() -> None:
    say(f"bench-big: {PAIRS} pairs, {ROUNDS} Swiss rounds; PostgreSQL {DATABASE_URL}; {load()}")
    fresh_database()
    import django

    django.setup()
    from django.core.management import call_command

    from tournaments.models import Event

    call_command("migrate", verbosity=0)
    timings: dict[int, float] = {}
    start = time.perf_counter()
    build_event(timings)
    event = Event.objects.get(tournament__slug=T, slug=E)
    say(f"  event built and drawn in {time.perf_counter() - start:.0f} s; {load()}")
    play_rounds(event, timings)
    say(f"  round {ROUNDS} left to be played: its score sheets; {load()}")
    built = build_sheets(event)
    rows = []
    for number, value in sorted(timings.items()):
        how = "the draw" if number == 1 else f"the last result of round {number - 1}"
        rows.append(
            (
                f"round {number}: pairing + table assignment, {PAIRS // 2:,} ties ({how})",
                seconds(value),
                f"< {PAIRING_TARGET:.0f} s",
                verdict(value, PAIRING_TARGET),
            )
        )
    if built["state"] == "done":
        rows.append(
            (
                f"round {ROUNDS}: {built['total']:,} score sheets, click to file "
                f"({built['pages']:,} pages, {built['size'] // 1024:,} KB)",
                seconds(built["wall"]),
                f"< {SHEETS_TARGET:.0f} s",
                verdict(built["wall"], SHEETS_TARGET),
            )
        )
        if built["first"] is not None and built["cpu"] is not None:  # built in the background
            first = seconds(built["first"])
            rows.append(("… the first sheets counted on the page after", first, "—", "—"))
        if built["cpu"] is not None:
            per_core = built["cpu"] / (os.cpu_count() or 1)
            rows.append(
                (
                    f"… CPU of the build, all its processes (÷ {os.cpu_count()} cores: "
                    f"{seconds(per_core)} on idle cores)",
                    seconds(built["cpu"]),
                    f"< {SHEETS_TARGET * (os.cpu_count() or 1):.0f} s",
                    verdict(built["cpu"], SHEETS_TARGET * (os.cpu_count() or 1)),
                )
            )
    else:
        rows.append(("score sheets", f"{built['state']}: {built['error']}", "< 60 s", "NOT met"))
    if run_live is not None:
        say(f"  the live part (bench/big_live.py); {load()}")
        rows += run_live(database_url=DATABASE_URL, tournament=T, event=E, round_number=ROUNDS)
    else:
        rows.append(("live part (bench/big_live.py)", "not run: no bench/big_live.py", "—", "—"))
    say()
    say(f"After the run: {load()}")
    say()
    say("| measurement | figure | target | |")
    say("|---|---:|---|---|")
    for what, figure, target, met in rows:
        say(f"| {what} | {figure} | {target} | {met} |")


if __name__ == "__main__":
    main()
