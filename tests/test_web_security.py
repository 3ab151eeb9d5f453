"""Web safeguards: CSRF on every form and htmx request, the Content Security Policy, and no
personal data on public pages."""

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import URLResolver, get_resolver, reverse

from scoring.models import TableMatch
from scoring.services.players import make_code
from tests.test_permissions import PUBLIC
from tournaments.models import Event, Match, Player, Unit, Venue
from tournaments.ops.demo import play_demo

TEMPLATES = Path(settings.BASE_DIR) / "templates"
NANTONG = "nantong-2014"


def all_views():
    def walk(patterns):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns)
            else:
                yield p

    return list(walk(get_resolver().url_patterns))


def html_templates():
    # PDF templates are rendered by WeasyPrint into PDFs, never served as HTML.
    return [
        path
        for path in TEMPLATES.rglob("*.html")
        if "pdf" not in path.relative_to(TEMPLATES).as_posix()
    ]


# --------------------------------------------------------------------------- CSRF


def test_no_view_is_csrf_exempt():
    exempt = [str(p.pattern) for p in all_views() if getattr(p.callback, "csrf_exempt", False)]
    assert exempt == []


def test_every_post_form_in_the_templates_carries_the_csrf_token():
    missing = []
    for path in html_templates():
        text = path.read_text(encoding="utf-8")
        for form in re.finditer(r"<form\b[^>]*>(.*?)</form>", text, re.S | re.I):
            if re.search(r'method="post"', form.group(0)[:300], re.I) and (
                "{% csrf_token %}" not in form.group(1)
            ):
                missing.append(f"{path.relative_to(TEMPLATES)}: {form.group(0)[:80]}")
    assert missing == []


def test_htmx_requests_send_the_token_in_a_header_from_the_page(db, django_user_model):
    """base.html puts the token in hx-headers on <body>; without it an htmx post fails."""
    assert 'hx-headers=\'{"X-CSRFToken": "{{ csrf_token }}"}\'' in (
        TEMPLATES / "base.html"
    ).read_text(encoding="utf-8")
    user = django_user_model.objects.create_user("zhouling")
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get(reverse("accounts-home")).content.decode()
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page).group(1)
    url = reverse("accounts-logout-everywhere")
    refused = client.post(url, HTTP_HX_REQUEST="true")
    assert refused.status_code == 403
    accepted = client.post(url, HTTP_HX_REQUEST="true", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 302


# --------------------------------------------------------------------------- CSP


def test_templates_have_no_inline_script_or_style():
    problems = []
    for path in html_templates():
        text = path.read_text(encoding="utf-8")
        if re.search(r"\sstyle\s*=", text, re.I):
            problems.append(f"{path.relative_to(TEMPLATES)}: style attribute")
        for tag in re.findall(r"<script\b[^>]*>", text, re.I):
            if "src=" not in tag or "nonce=" not in tag:
                problems.append(f"{path.relative_to(TEMPLATES)}: {tag}")
        if re.search(r"<style\b", text, re.I):
            problems.append(f"{path.relative_to(TEMPLATES)}: <style> element")
        if re.search(r"\son[a-z]+\s*=", text):
            problems.append(f"{path.relative_to(TEMPLATES)}: inline event handler")
    assert problems == []


def test_every_page_sends_a_strict_content_security_policy(client, demo):
    for url in [
        "/",
        reverse("tournaments:detail", args=[NANTONG]),
        reverse("live:bracket", args=[NANTONG, "guandan"]),
        reverse("login"),
    ]:
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        directives = dict(
            (part.split(" ", 1) + [""])[:2] for part in (p.strip() for p in policy.split(";"))
        )
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy, url
        assert directives["default-src"] == "'self'"
        assert directives["script-src"].startswith("'self' 'nonce-")
        assert directives["style-src"] == "'self'"
        assert directives["object-src"] == "'none'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["form-action"] == "'self'"
        nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
        page = response.content.decode()
        for tag in re.findall(r"<script\b[^>]*>", page):
            assert f'nonce="{nonce}"' in tag, tag
        assert " style=" not in page
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"
        assert response["Referrer-Policy"] == "same-origin"


# --------------------------------------------------------------------------- personal data


def _public_urls() -> dict[str, list[str]]:
    """Every public URL pattern with the Nantong demo's arguments (played to the end)."""
    event = ("guandan",)
    match = Match.objects.filter(
        round__stage__event__tournament__slug=NANTONG, status=Match.Status.FINISHED
    ).first()
    table = TableMatch.objects.filter(match=match).first()
    table_args = [NANTONG, "guandan", table.pk]
    urls = {
        "tournaments:list": [reverse("tournaments:list")],
        "tournaments:detail": [reverse("tournaments:detail", args=[NANTONG])],
        "tournaments:notice-pdf": [reverse("tournaments:notice-pdf", args=[NANTONG])],
        "documents:results-pdf": [reverse("documents:results-pdf", args=[NANTONG])],
        "documents:results-png": [reverse("documents:results-png", args=[NANTONG])],
        "documents:standings-pdf": [reverse("documents:standings-pdf", args=[NANTONG])],
        "documents:standings-png": [reverse("documents:standings-png", args=[NANTONG])],
        "scoring:table": [reverse("scoring:table", args=table_args)],
        "scoring:table-qr": [reverse("scoring:table-qr", args=table_args)],
        # The players' link of a table (its page shows what the table page shows).
        "scoring:play-table": [reverse("scoring:play-table", args=[make_code(table)])],
        "live:match": [reverse("live:match", args=[NANTONG, *event, match.pk])],
        "live:match-json": [reverse("live:match-json", args=[NANTONG, *event, match.pk])],
    }
    for name in (
        "documents:draw-pdf",
        "documents:bracket-pdf",
        "documents:bracket-png",
        "documents:scoresheets-pdf",
        "documents:scoresheets",
        "live:bracket",
        "live:bracket-json",
        "live:screen",
    ):
        urls[name] = [reverse(name, args=[NANTONG, *event])]
    # The public's copy of the score sheets, built as its page builds it.
    from tournaments.documents import sheets

    guandan = Event.objects.get(tournament__slug=NANTONG, slug="guandan")
    build = sheets.start(guandan, sheets.reader_of(RequestFactory().get("/"), None, False))
    urls["documents:scoresheets-file"] = [
        reverse("documents:scoresheets-file", args=[NANTONG, *event, build.pk])
    ]
    urls["healthz"] = [reverse("healthz")]
    urls["service-worker"] = [reverse("service-worker")]
    urls["readyz"] = [reverse("readyz")]
    urls["standings:page"] = [reverse("standings:page", args=[NANTONG])]
    urls["standings:json"] = [reverse("standings:json", args=[NANTONG])]
    # The day's plan (planned in the test: empty otherwise).
    for name in ("day:timeline", "day:json", "documents:day-pdf"):
        urls[name] = [reverse(name, args=[NANTONG])]
    venue = Venue.objects.filter(tournament__slug=NANTONG).first()
    urls["day:hall-screen"] = [reverse("day:hall-screen", args=[NANTONG, venue.pk])]
    # A unit's day is public (its leader's registration controls are not).
    units = Unit.objects.filter(tournament__slug=NANTONG).values_list("pk", flat=True)
    urls["registration:unit"] = [reverse("registration:unit", args=[NANTONG, pk]) for pk in units]
    return urls


def _text(response, tmp_path) -> str:
    if response["Content-Type"] == "image/png":
        # A picture is its PDF's pages (the same template and context), whose text is read
        # at the PDF's own URL; here it only has to be a picture, sent as one.
        assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
        assert response["X-Content-Type-Options"] == "nosniff"
        return ""
    if response["Content-Type"] == "application/pdf":
        path = tmp_path / "page.pdf"
        path.write_bytes(response.content)
        return subprocess.run(
            ["pdftotext", str(path), "-"], capture_output=True, text=True, check=True
        ).stdout
    return response.content.decode()


@pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils not installed")
def test_public_pages_show_names_and_units_but_no_phone_or_staff_number(client, demo, tmp_path):
    call_command("schedule_day", NANTONG, stdout=io.StringIO())
    play_demo(only=NANTONG)
    players = list(Player.objects.filter(tournament__slug=NANTONG).select_related("unit"))
    for n, player in enumerate(players):
        player.phone = f"1390000{n:04d}"
        player.staff_number = f"GH{n:05d}X"
    Player.objects.bulk_update(players, ["phone", "staff_number"])
    secrets = {p.phone for p in players} | {p.staff_number for p in players}

    urls = _public_urls()
    assert set(urls) == PUBLIC, "a new public page: add it here"
    seen_names = set()
    for paths in urls.values():
        for url in paths:
            response = client.get(url)
            assert response.status_code == 200, url
            text = _text(response, tmp_path)
            leaked = [s for s in secrets if s in text]
            assert not leaked, f"{url} shows {leaked[:3]}"
            flat = "".join(text.split())
            seen_names |= {p.name for p in players if p.name in flat}
    assert len(seen_names) == len(players)  # the pages do name every player


def test_a_shared_links_preview_escapes_what_people_typed(client, demo):
    """The Open Graph tags put a tournament's name into attributes: escaped like the page."""
    from tournaments.models import Tournament

    Tournament.objects.filter(slug=NANTONG).update(name='杯"><script>alert(1)</script>')
    page = client.get(reverse("tournaments:detail", args=[NANTONG])).content.decode()
    assert "<script>alert(1)" not in page
    assert 'property="og:title" content="杯&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in page
