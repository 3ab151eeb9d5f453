"""A big round's score sheets built in the background: the page starts the build, shows how
far it is, then offers the file; a failure is said plainly; a second click finds the build
under way instead of starting another."""

import datetime as dt
import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from tournaments.documents import pdf, sheets
from tournaments.draw import make as draw_make
from tournaments.models import SheetBuild, Tournament
from tournaments.ops import synthetic

SLUG, EVENT = "sheets-cup", "pairs"


@pytest.fixture
def event(db):
    """24 pairs, one Swiss round drawn: twelve tables."""
    made = synthetic.create_event(
        tournament_slug=SLUG, event_slug=EVENT, entries=24, kind="pairs", seed=2
    )
    draw_make.draw_event(event=made, plan=synthetic.plan_for("swiss", 24, rounds=3), seed=2)
    made.refresh_from_db()
    return made


@pytest.fixture
def big(monkeypatch):
    """Rounds of more than four tables count as big; the builds started are recorded
    instead of run in a process of their own."""
    monkeypatch.setattr(sheets, "SYNC_SHEETS", 4)
    launched = []
    monkeypatch.setattr(sheets, "launch", launched.append)
    return launched


def page_url(round_number=1):
    return reverse("documents:scoresheets", args=[SLUG, EVENT]) + f"?round={round_number}"


def get_page(client, django_capture_on_commit_callbacks, url=None, **headers):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.get(url or page_url(), **headers)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    return response.content.decode()


def pages_of(content: bytes) -> int:
    assert content.startswith(b"%PDF-")
    return len(PdfReader(io.BytesIO(content)).pages)


def test_a_big_round_is_built_in_the_background_its_progress_shown_then_offered(
    client, event, big, django_capture_on_commit_callbacks
):
    pdf_url = reverse("documents:scoresheets-pdf", args=[SLUG, EVENT]) + "?round=1"
    response = client.get(pdf_url)
    assert response.status_code == 302 and response["Location"] == page_url()

    html = get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()
    assert big == [build.pk]  # started in the background, once
    assert (build.state, build.total, build.round_number) == ("building", 12, 1)
    assert "已生成 0 / 12 张" in html and 'hx-trigger="every 2s"' in html

    # The build moves on (as build_scoresheets writes it): the poll shows how far.
    SheetBuild.objects.filter(pk=build.pk).update(done=5)
    part = get_page(client, django_capture_on_commit_callbacks, HTTP_HX_REQUEST="true")
    assert "已生成 5 / 12 张" in part and "<html" not in part and "hx-get" in part

    sheets.run(build.pk)
    part = get_page(client, django_capture_on_commit_callbacks, HTTP_HX_REQUEST="true")
    file_url = reverse("documents:scoresheets-file", args=[SLUG, EVENT, build.pk])
    assert file_url in part and "hx-trigger" not in part  # done: the polling stops
    assert "共 12 张" in part
    response = client.get(file_url)
    assert response["Content-Type"] == "application/pdf"
    assert pages_of(response.content) == 12
    # The stable address now answers the same file, at once.
    assert client.get(pdf_url).content == response.content
    download = client.get(file_url + "?download=1")
    assert download["Content-Disposition"].startswith("attachment;")
    assert big == [build.pk]


def test_a_second_click_while_building_finds_the_build_under_way(
    client, event, big, django_capture_on_commit_callbacks
):
    for _ in range(3):
        html = get_page(client, django_capture_on_commit_callbacks)
        assert "已生成 0 / 12 张" in html
    build = SheetBuild.objects.get()
    assert big == [build.pk]
    # Two starts racing: the second finds the first's row by its unique key.
    reader = sheets.reader_of(RequestFactory().get("/"), 1, False)
    assert sheets.start(event, reader).pk == build.pk
    # Another copy of the same event (all rounds) waits while this one builds.
    html = get_page(client, django_capture_on_commit_callbacks, url=page_url(1).split("?")[0])
    assert "另一份记分表正在生成" in html and "hx-trigger" in html
    assert SheetBuild.objects.count() == 1 and big == [build.pk]


def test_a_failed_build_is_said_plainly_and_started_again_on_request(
    client, event, big, monkeypatch, django_capture_on_commit_callbacks
):
    get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()

    def broken(*args, **kwargs):
        raise OSError("no space left on device")

    monkeypatch.setattr(sheets, "render_pdf", broken)
    sheets.run(build.pk)
    html = get_page(client, django_capture_on_commit_callbacks)
    assert "记分表生成失败。" in html and "hx-trigger" not in html
    assert "no space left" not in html  # the detail is for the officials
    chief = get_user_model().objects.create_user("chief-sheets", password="x")
    event.tournament.officials.create(name="裁判长", role="chief_referee", user=chief)
    client.force_login(chief)
    assert "OSError: no space left on device" in get_page(
        client, django_capture_on_commit_callbacks
    )

    with django_capture_on_commit_callbacks(execute=True):
        response = client.get(page_url() + "&again=1")
    assert response.status_code == 302 and response["Location"] == page_url()
    assert not SheetBuild.objects.filter(pk=build.pk).exists()
    html = get_page(client, django_capture_on_commit_callbacks)
    again = SheetBuild.objects.get()
    assert "已生成 0 / 12 张" in html and big == [build.pk, again.pk]


def test_a_build_that_stopped_moving_is_failed(
    client, event, big, django_capture_on_commit_callbacks
):
    get_page(client, django_capture_on_commit_callbacks)
    late = timezone.now() - sheets.STALE - dt.timedelta(seconds=1)
    SheetBuild.objects.update(updated_at=late, done=3)
    html = get_page(client, django_capture_on_commit_callbacks)
    assert "记分表生成失败。" in html
    assert SheetBuild.objects.get().state == "failed"


def test_a_new_result_makes_a_new_build_and_the_old_copy_goes(
    client, event, big, django_capture_on_commit_callbacks
):
    get_page(client, django_capture_on_commit_callbacks)
    first = SheetBuild.objects.get()
    sheets.run(first.pk)
    event.bump_version()  # a result, say: the sheets filled in differ
    html = get_page(client, django_capture_on_commit_callbacks)
    second = SheetBuild.objects.get()
    assert second.pk != first.pk and second.version == event.version
    assert "已生成 0 / 12 张" in html and big == [first.pk, second.pk]


def test_the_players_links_copy_is_the_officials_alone(
    client, event, big, django_capture_on_commit_callbacks
):
    Tournament.objects.filter(slug=SLUG).update(result_entry="players")
    chief = get_user_model().objects.create_user("chief-links", password="x")
    event.tournament.officials.create(name="裁判长", role="chief_referee", user=chief)
    client.force_login(chief)
    get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()
    assert build.players_links
    sheets.run(build.pk)
    file_url = reverse("documents:scoresheets-file", args=[SLUG, EVENT, build.pk])
    response = client.get(file_url)
    assert pages_of(response.content) == 12 and "no-store" in response["Cache-Control"]
    client.logout()
    assert client.get(file_url).status_code == 404
    # The public's page builds the public's copy (its own row), not the officials'.
    get_page(client, django_capture_on_commit_callbacks)
    public = SheetBuild.objects.get(players_links=False)
    assert big == [build.pk, public.pk]


def test_a_small_round_is_built_within_the_request(
    client, event, big, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(sheets, "SYNC_SHEETS", 64)
    html = get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()
    assert big == [] and build.state == "done"
    assert reverse("documents:scoresheets-file", args=[SLUG, EVENT, build.pk]) in html
    response = client.get(reverse("documents:scoresheets-file", args=[SLUG, EVENT, build.pk]))
    assert pages_of(response.content) == 12


def test_build_scoresheets_builds_on_every_core_and_counts_the_sheets_as_they_go(
    client, event, big, monkeypatch, django_capture_on_commit_callbacks
):
    get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()
    # Three cores: three workers forked, a piece of four sheets each (two each at most).
    monkeypatch.setattr(pdf, "MIN_ITEMS_PER_PIECE", 4)
    monkeypatch.setattr(pdf, "_cores", lambda: 3)
    monkeypatch.setattr(pdf, "_fork_is_safe", lambda: True)
    pools = []
    write_pdfs = pdf._write_pdfs
    monkeypatch.setattr(
        pdf,
        "_write_pdfs",
        lambda html_of, chunks, **kw: (
            pools.append((len(chunks), kw["workers"])) or write_pdfs(html_of, chunks, **kw)
        ),
    )
    told = []
    moved = sheets._moved
    monkeypatch.setattr(
        sheets, "_moved", lambda pk, **f: told.append(f.get("done")) or moved(pk, **f)
    )
    out = io.StringIO()
    call_command("build_scoresheets", str(build.pk), "--nice", "0", stdout=out)
    assert "done (12/12 sheets)" in out.getvalue()
    assert pools == [(3, 3)]  # every piece in a worker: this process only wrote their HTML
    counts = [n for n in told if n is not None]
    assert counts == sorted(counts) and counts[-1] == 12 and len(counts) >= 2
    build.refresh_from_db()
    assert pages_of(bytes(build.pdf)) == 12
    with pytest.raises(Exception, match="no score sheets build"):
        call_command("build_scoresheets", str(build.pk))


def test_a_build_is_launched_as_manage_py_in_a_session_of_its_own(monkeypatch, settings):
    started = []
    monkeypatch.setattr(sheets.subprocess, "Popen", lambda args, **kw: started.append((args, kw)))
    sheets.launch(42)
    [(args, kw)] = started
    assert args[1:] == [str(settings.BASE_DIR / "manage.py"), "build_scoresheets", "42"]
    assert kw["start_new_session"] is True


def test_the_page_and_the_file_are_in_the_readers_language(
    client, event, big, django_capture_on_commit_callbacks
):
    client.cookies["django_language"] = "en"
    html = get_page(client, django_capture_on_commit_callbacks)
    assert "0 of 12 sheets built" in html and "Reading the pairings" in html
    build = SheetBuild.objects.get()
    assert build.language == "en"
    sheets.run(build.pk)
    html = get_page(client, django_capture_on_commit_callbacks)
    assert "The score sheets are built: 12 sheets." in html
    response = client.get(reverse("documents:scoresheets-file", args=[SLUG, EVENT, build.pk]))
    assert response["Content-Language"] == "en"
    assert response["Content-Disposition"].endswith('-scoresheets-en.pdf"')
    text = "".join(page.extract_text() for page in PdfReader(io.BytesIO(response.content)).pages)
    assert "Score sheet" in text or "score sheet" in text.lower()


def test_a_build_that_cannot_be_started_is_failed_not_an_error_page(
    client, event, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(sheets, "SYNC_SHEETS", 4)

    def no_process(build_id):
        raise OSError("Resource temporarily unavailable")

    monkeypatch.setattr(sheets, "launch", no_process)
    get_page(client, django_capture_on_commit_callbacks)
    build = SheetBuild.objects.get()
    assert (build.state, build.error) == ("failed", "not started: Resource temporarily unavailable")
    assert "记分表生成失败。" in get_page(client, django_capture_on_commit_callbacks)
