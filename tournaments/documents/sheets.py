"""A round's score sheets built in the background (记分表): a 1,024-table round takes about a
minute of two cores, longer than a request may wait. The page that offers them starts the
build (:func:`start`); ``manage.py build_scoresheets`` builds it in a process of its own
on every core (:func:`run`); the progress and the finished PDF are kept in the database
(``SheetBuild``), so every app server shows them, with Redis up or down. Up to
``SYNC_SHEETS`` sheets are built within the request, by the same :func:`run`.

A build is one reader's copy — the round, the QR codes' kind (players' links for the
officials, public pages for everyone else), the language and address, the day — of the
event at one version; a later version is a new build, and the key's older builds go.
"""

from __future__ import annotations

import datetime as dt
import logging
import subprocess
import sys
from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone, translation

from tournaments.documents.build import scoresheet_context, scoresheet_tables
from tournaments.documents.pdf import cores, render_pdf
from tournaments.models import Event, SheetBuild

logger = logging.getLogger(__name__)

# Up to this many sheets (a few seconds) the request builds them itself.
SYNC_SHEETS = 64
# A build whose row has not moved for this long has died (its server restarted).
STALE = dt.timedelta(minutes=2)
# One build at a time per event: each takes every core for up to a minute.
RUNNING_PER_EVENT = 1


@dataclass(frozen=True)
class Reader:
    """Whose copy: the round (0: every round), the QR codes' kind, language and address."""

    round_number: int
    players_links: bool
    language: str
    base_url: str


def reader_of(request, round_number: int | None, players_links: bool) -> Reader:
    return Reader(
        round_number=round_number or 0,
        players_links=players_links,
        language=translation.get_language() or settings.LANGUAGE_CODE,
        base_url=request.build_absolute_uri("/").rstrip("/"),
    )


def sheet_count(event: Event, round_number: int | None) -> int:
    return scoresheet_tables(event, round_number or None).count()


def _key(event: Event, reader: Reader) -> dict:
    return dict(
        event=event,
        round_number=reader.round_number,
        players_links=reader.players_links,
        language=reader.language,
        base_url=reader.base_url,
        made_on=timezone.localdate(),
        version=event.version,
    )


def current(event: Event, reader: Reader) -> SheetBuild | None:
    """The reader's build of the event as it stands (without its file), if there is one; a
    build that stopped moving is failed here, so the page says so and offers it again."""
    build = SheetBuild.objects.filter(**_key(event, reader)).defer("pdf").first()
    building = build is not None and build.state == SheetBuild.State.BUILDING
    if building and timezone.now() - build.updated_at > STALE:
        build.state, build.error = SheetBuild.State.FAILED, "stopped: no progress for 2 min"
        SheetBuild.objects.filter(pk=build.pk, state=SheetBuild.State.BUILDING).update(
            state=build.state, error=build.error
        )
    return build


def finished(event: Event, reader: Reader) -> SheetBuild | None:
    """The reader's finished build of the event as it stands, with its file."""
    return SheetBuild.objects.filter(**_key(event, reader), state=SheetBuild.State.DONE).first()


def _running(event: Event) -> int:
    fresh = timezone.now() - STALE
    return SheetBuild.objects.filter(
        event=event, state=SheetBuild.State.BUILDING, updated_at__gte=fresh
    ).count()


def start(event: Event, reader: Reader) -> SheetBuild | None:
    """The reader's build: the one under way, done or failed, else a new one, started —
    built here when it is short, else in the background. None while another build of the
    event is under way (the page asks again as it polls)."""
    build = current(event, reader)
    if build is not None:
        return build
    if _running(event) >= RUNNING_PER_EVENT:
        return None
    key = _key(event, reader)
    total = sheet_count(event, reader.round_number)
    try:
        with transaction.atomic():
            build = SheetBuild.objects.create(**key, total=total)
    except IntegrityError:  # a second click at the same moment: the first one's build
        return current(event, reader)
    # The same copy at an older version (or day) is out of date once this one exists.
    old = {k: v for k, v in key.items() if k not in ("version", "made_on")}
    SheetBuild.objects.filter(**old).exclude(pk=build.pk).exclude(
        state=SheetBuild.State.BUILDING
    ).delete()
    if total <= SYNC_SHEETS:
        run(build.pk, own_process=False)
        build.refresh_from_db()
    else:
        transaction.on_commit(lambda: _launch_or_fail(build.pk))
    return build


def _launch_or_fail(build_id: int) -> None:
    try:
        launch(build_id)
    except OSError as error:  # no process to be had: the page says the build failed
        logger.exception("Could not start building score sheets %s", build_id)
        _moved(build_id, state=SheetBuild.State.FAILED, error=f"not started: {error}"[:300])


def again(build: SheetBuild) -> None:
    """A failed build is forgotten, so that the next visit starts it afresh."""
    SheetBuild.objects.filter(pk=build.pk, state=SheetBuild.State.FAILED).delete()


def launch(build_id: int) -> subprocess.Popen:
    """Start ``manage.py build_scoresheets`` for the build, in a session of its own: it
    outlives the request, and a worker recycled meanwhile does not take it along."""
    return subprocess.Popen(
        [sys.executable, str(settings.BASE_DIR / "manage.py"), "build_scoresheets", str(build_id)],
        cwd=settings.BASE_DIR,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )


@dataclass(frozen=True)
class _Address:
    """Stands in for the request that started the build: the QR codes' absolute URLs."""

    base_url: str

    def build_absolute_uri(self, location: str) -> str:
        return self.base_url + location


def _moved(build_id: int, **fields) -> None:
    SheetBuild.objects.filter(pk=build_id).update(**fields, updated_at=timezone.now())


def run(build_id: int, *, own_process: bool = True) -> None:
    """Build the sheets of the build: the context read here, the PDF laid out in pieces —
    in a process of its own (``build_scoresheets``) on every core, the count of sheets laid
    out written as it grows; within a request on the idle cores, as any PDF — then the
    file. A failure is written on the build, for its page to show."""
    build = SheetBuild.objects.select_related("event__tournament").defer("pdf").get(pk=build_id)
    try:
        with translation.override(build.language):
            context = scoresheet_context(
                build.event,
                _Address(build.base_url),
                round_number=build.round_number or None,
                players_links=build.players_links,
            )
            total = len(context["sheets"])
            _moved(build_id, total=total)

            def progress(done: int) -> None:
                _moved(build_id, done=min(done, total))

            pdf = render_pdf(
                "pdf/scoresheets.html",
                context,
                split="sheets",
                workers=cores() if own_process else None,
                progress=progress if own_process else None,
            )
    except Exception as error:
        logger.exception("Building score sheets %s failed", build_id)
        detail = f"{type(error).__name__}: {error}"[:300]
        _moved(build_id, state=SheetBuild.State.FAILED, error=detail)
        return
    _moved(build_id, state=SheetBuild.State.DONE, done=total, pdf=pdf, finished_at=timezone.now())
