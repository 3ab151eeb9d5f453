"""The pictures to share (bracket.png, results.png, standings.png): PNGs a phone shows
full-screen, one tall picture each, with their PDF's permission, a 304 while nothing
changed, one per language, and rendered once per state."""

import io

import pytest
from django.test import Client
from django.urls import reverse
from PIL import Image

from tournaments.documents import picture
from tournaments.documents import views as document_views
from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.models import Match, Tournament
from tournaments.ops import synthetic
from tournaments.ops.demo import play_demo

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ANHUI, NANTONG = "anhui-2021", "nantong-2014"


def png(response) -> Image.Image:
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"] == "image/png"
    assert response.content.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(response.content))
    image.load()
    return image


def margins(image: Image.Image) -> tuple[int, int]:
    """White pixels right of and below the last ink: nothing runs off the picture."""
    gray = image.convert("L")
    ink = gray.point(lambda v: 255 if v < 200 else 0).getbbox()
    assert ink is not None, "a blank picture"
    return image.width - ink[2], image.height - ink[3]


def urls(slug=ANHUI, event="guandan") -> dict[str, str]:
    return {
        "bracket": reverse("documents:bracket-png", args=[slug, event]),
        "results": reverse("documents:results-png", args=[slug]),
        "standings": reverse("documents:standings-png", args=[slug]),
    }


@pytest.fixture
def played(demo):
    play_demo(seed=3, only=ANHUI)
    return demo


def test_each_picture_is_a_phone_wide_png_with_nothing_cut_off(client, played):
    for name, url in urls().items():
        image = png(client.get(url))
        assert image.width == picture.PICTURE_WIDTH == 1080, name
        assert image.height > 400, name
        right, bottom = margins(image)
        # The page's margin (6 mm of 120 mm, ~54 px) is left on both sides: a name or a
        # column running off the page would reach the edge.
        assert right >= 30 and bottom >= 30, (name, right, bottom)
        assert bottom < 200, (name, "the empty paper below is cut away")
    # Every event's table and the units' standings: a long picture, not A4 pages.
    results = png(client.get(urls()["results"]))
    assert results.height > 3 * results.width


def test_a_big_bracket_is_one_tall_picture_its_names_at_a_readable_size(client, db):
    event = synthetic.create_event(tournament_slug="big32", event_slug="teams", entries=32)
    Tournament.objects.filter(slug="big32").update(status=Tournament.Status.DRAWN)
    draw_make.draw_event(event=event, seed=1)
    image = png(client.get(reverse("documents:bracket-png", args=["big32", "teams"])))
    assert image.width == 1080 and image.height > image.width
    right, _bottom = margins(image)
    assert right >= 30
    # The printed PDF of the same bracket is one A4 landscape page, wider than tall: the
    # picture lays the same template out on a page of its own, the names at the printed
    # size; five rounds across 1080 px leave them about 20 px high (a pinch zooms in).
    context = document_views.documents.bracket_context(event, picture=True)
    tree = context["pages"][0]
    assert tree.font_pt >= 9
    pixels_per_mm = 1080 / float(context["picture"]["size"].split("mm")[0])
    assert tree.font_pt * 0.3528 * pixels_per_mm > 18


def test_a_draft_tournaments_pictures_are_for_its_organisers_only(client, demo, django_user_model):
    Tournament.objects.filter(slug=ANHUI).update(status=Tournament.Status.DRAFT)
    for name, url in urls().items():
        assert client.get(url).status_code == 404, name
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    organiser = Client()
    organiser.force_login(staff)
    for url in urls().values():
        png(organiser.get(url))


def test_a_repeat_is_answered_304_until_a_result_changes_it(client, demo):
    pictures = urls(NANTONG)
    tags = {}
    for name, url in pictures.items():
        first = client.get(url)
        png(first)
        tags[name] = first["ETag"]
        assert tags[name] and first["Cache-Control"] == "no-cache", name
        again = client.get(url, HTTP_IF_NONE_MATCH=tags[name])
        assert again.status_code == 304 and again["ETag"] == tags[name], name
        assert not again.content
    match = Match.objects.filter(
        round__stage__event__tournament__slug=NANTONG, round__number=1
    ).first()
    draw_results.record_result(match=match, winner="away", home_score=1, away_score=2)
    for name, url in pictures.items():
        changed = client.get(url, HTTP_IF_NONE_MATCH=tags[name])
        png(changed)
        assert changed["ETag"] != tags[name], name


def test_english_and_chinese_readers_get_their_own_picture(client, played):
    english = Client()
    english.cookies["django_language"] = "en"
    for name, url in urls().items():
        zh, en = client.get(url), english.get(url)
        png(zh), png(en)
        assert zh["ETag"] != en["ETag"], name
        assert zh.content != en.content, name
        # A phone that switches language is not told "not modified" with the other one.
        assert english.get(url, HTTP_IF_NONE_MATCH=zh["ETag"]).status_code == 200, name


def test_a_picture_is_made_once_per_state_then_served_from_the_cache(client, played, monkeypatch):
    made = []
    real = picture.pdf_to_png

    def counting(pdf, *args, **kwargs):
        made.append(1)
        return real(pdf, *args, **kwargs)

    monkeypatch.setattr(picture, "pdf_to_png", counting)
    for name, url in urls().items():
        made.clear()
        first, second = client.get(url), Client().get(url)
        assert first.content == second.content, name
        assert len(made) == 1, name


def test_the_pictures_pdf_is_the_printed_documents_template(client, played, monkeypatch):
    """Made from the same template and context as its PDF: only the page differs (and the
    certificates, which stay on paper)."""
    rendered = []
    real = document_views.render_pdf

    def spying(template, context, **kwargs):
        rendered.append((template, context))
        return real(template, context, **kwargs)

    monkeypatch.setattr(document_views, "render_pdf", spying)
    for name, pdf_name in [
        ("bracket", "documents:bracket-pdf"),
        ("results", "documents:results-pdf"),
        ("standings", "documents:standings-pdf"),
    ]:
        rendered.clear()
        client.get(urls()[name])
        args = [ANHUI, "guandan"] if name == "bracket" else [ANHUI]
        client.get(reverse(pdf_name, args=args))
        (picture_template, picture_context), (pdf_template, pdf_context) = rendered
        assert picture_template == pdf_template, name
        assert picture_context["picture"] and not pdf_context.get("picture"), name
        assert picture_context["tournament"] == pdf_context["tournament"]
        if name == "results":
            assert pdf_context["certificates"] and not picture_context["certificates"]
            assert len(picture_context["events"]) == len(pdf_context["events"]) == 4


def test_the_pages_link_their_pictures(client, played):
    pages = {
        reverse("live:bracket", args=[ANHUI, "guandan"]): [urls()["bracket"]],
        reverse("standings:page", args=[ANHUI]): [urls()["standings"], urls()["results"]],
        reverse("tournaments:detail", args=[ANHUI]): [urls()["results"]],
    }
    for page, pictures in pages.items():
        html = client.get(page).content.decode()
        for url in pictures:
            assert f'href="{url}"' in html, (page, url)
    bracket = client.get(reverse("live:bracket", args=[ANHUI, "guandan"])).content.decode()
    assert "对阵图（图片）" in bracket
    english = Client()
    english.cookies["django_language"] = "en"
    html = english.get(reverse("standings:page", args=[ANHUI])).content.decode()
    assert "Unit standings (picture)" in html and "Results (picture)" in html


@pytest.mark.parametrize("name", ["bracket", "results", "standings"])
def test_a_bad_request_for_a_picture_is_refused_cleanly(client, demo, name):
    url = urls(NANTONG)[name]
    good = client.get(url)
    png(good)
    # What it does not read changes nothing: no copy per query string, the same picture.
    hostile = client.get(url + "?page=-1&width=99999&download=%3Cscript%3E&lang=xx")
    assert png(hostile) and hostile["ETag"] == good["ETag"]
    assert client.get(url, HTTP_IF_NONE_MATCH='"nonsense", W/""').status_code == 200
    assert client.get(url, HTTP_IF_MODIFIED_SINCE="not a date").status_code == 200
    assert client.post(url).status_code == 405
    assert client.head(url).status_code == 200
    missing = urls("no-such-cup", "nothing")[name]
    assert client.get(missing).status_code == 404
    if name == "bracket":
        assert client.get(urls(NANTONG, "no-such-event")[name]).status_code == 404
