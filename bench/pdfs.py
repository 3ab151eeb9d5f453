"""Time the printed documents: the draw sheet and the bracket of a 64-entry event, and 256
table score sheets.

    .venv/bin/python bench/pdfs.py [--bracket-only]

Each figure is the best of three renders in a warm process (fonts loaded once, as in a
running server). Measurements, not tests. Other work on the machine slows the wall-clock
figures; the CPU figure (this process and any workers it started) is steadier, so compare
runs by both. Long score-sheet runs are split over the cores the load average says are idle
(tournaments/pdf.py), so the figure depends on what else the machine is doing: the line
says how many pieces it used.
"""

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "guandan_cup.settings")
os.environ.setdefault("DEBUG", "1")
os.environ["VAR_DIR"] = tempfile.mkdtemp(prefix="guandan-bench-")
os.environ.pop("DATABASE_URL", None)

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import RequestFactory  # noqa: E402

from tournaments.documents import build as documents  # noqa: E402
from tournaments.documents.pdf import piece_count, render_pdf  # noqa: E402
from tournaments.draw import make as draw_make
from tournaments.ops import synthetic  # noqa: E402


def cpu_seconds() -> float:
    """CPU time used so far by this process and its finished child processes."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def best(fn, runs=3):
    """(wall seconds, CPU seconds, result) of the fastest of ``runs`` calls."""
    times = []
    for _ in range(runs):
        start, cpu = time.perf_counter(), cpu_seconds()
        result = fn()
        times.append((time.perf_counter() - start, cpu_seconds() - cpu))
    wall, cpu = min(times)
    return wall, cpu, result


def main():
    call_command("migrate", verbosity=0)
    request = RequestFactory().get("/", HTTP_HOST="127.0.0.1")
    event = synthetic.create_event(tournament_slug="bench", event_slug="e64", entries=64)
    draw_make.draw_event(event=event, seed=1)
    synthetic.play_event(event, seed=1, until=0.5)
    render_pdf("pdf/draw.html", documents.draw_context(event))  # warm up: fonts, CSS
    t, cpu, pdf = best(lambda: render_pdf("pdf/draw.html", documents.draw_context(event)))
    print(f"draw.pdf, 64 entries: {t:.2f} s, CPU {cpu:.2f} s ({len(pdf) // 1024} KB)")
    t, cpu, pdf = best(lambda: render_pdf("pdf/bracket.html", documents.bracket_context(event)))
    print(
        f"bracket.pdf, 64 entries (A3 landscape): {t:.2f} s, CPU {cpu:.2f} s ({len(pdf) // 1024} KB)"
    )
    if "--bracket-only" in sys.argv:
        return

    sheets = synthetic.create_event(
        tournament_slug="bench", event_slug="sheets", entries=512, pairs_per_team=1
    )
    draw_make.draw_event(event=sheets, seed=1)
    context = documents.scoresheet_context(sheets, request, round_number=1)
    count = len(context["sheets"])
    t, cpu, _ = best(lambda: documents.scoresheet_context(sheets, request, round_number=1))
    print(f"score sheets' context (queries), {count} sheets: {t:.2f} s, CPU {cpu:.2f} s")

    def first_32():  # with QR codes not made yet, as in a new context
        return [{**s, "qr": documents.QRCode(s["url"])} for s in context["sheets"][:32]]

    for split in ("", "sheets"):
        pieces = piece_count(32) if split else 1
        t, cpu, out = best(
            lambda split=split: render_pdf(
                "pdf/scoresheets.html", {**context, "sheets": first_32()}, split=split
            )
        )
        print(
            f"scoresheets.pdf, 32 sheets, {pieces} piece(s): {t:.2f} s = {1000 * t / 32:.0f} ms "
            f"a sheet, CPU {cpu:.2f} s ({len(out) // 1024} KB)"
        )
    # The headline figure: what the view does for a round of 256 tables, context included.
    # It renders in pieces on the cores that the load average says are idle.
    load, pieces = os.getloadavg()[0], piece_count(count)
    t, cpu, out = best(
        lambda: render_pdf(
            "pdf/scoresheets.html",
            documents.scoresheet_context(sheets, request, round_number=1),
            split="sheets",
        ),
        runs=2,
    )
    print(
        f"scoresheets.pdf, {count} sheets: {t:.2f} s = {1000 * t / count:.0f} ms a sheet, "
        f"CPU {cpu:.2f} s ({len(out) // 1024} KB; {pieces} piece(s), load average {load:.1f} "
        f"on {os.cpu_count()} cores)"
    )


if __name__ == "__main__":
    main()
