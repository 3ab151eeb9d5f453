"""A shared link shows a preview: the public pages carry Open Graph (and Twitter card) tags
whose picture is the page's own document as a PNG, at an absolute address that answers."""

import html
import re
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from tournaments.ops.demo import play_demo

ANHUI = "anhui-2021"
PAGES = {
    reverse("tournaments:detail", args=[ANHUI]): "documents:results-png",
    reverse("live:bracket", args=[ANHUI, "guandan"]): "documents:bracket-png",
    reverse("standings:page", args=[ANHUI]): "documents:standings-png",
    reverse("day:timeline", args=[ANHUI]): "documents:results-png",
}


def tags(page: str) -> dict[str, str]:
    found = {}
    for _attribute, name, content in re.findall(
        r'<meta (property|name)="((?:og|twitter):[a-z:_]+)" content="([^"]*)">', page
    ):
        found[name] = html.unescape(content)
    return found


@pytest.fixture
def played(demo):
    play_demo(seed=3, only=ANHUI)
    return demo


def test_every_public_page_has_a_preview_whose_picture_answers(client, played):
    for url, picture in PAGES.items():
        page = client.get(url)
        assert page.status_code == 200, url
        og = tags(page.content.decode())
        for name in ("og:title", "og:description", "og:image", "og:url", "og:type"):
            assert og.get(name), (url, name)
        assert og["twitter:card"] == "summary_large_image"
        assert og["og:url"] == f"http://testserver{url}"
        assert og["og:image"].startswith("http://testserver/"), og["og:image"]
        path = urlsplit(og["og:image"]).path
        args = [ANHUI, "guandan"] if picture == "documents:bracket-png" else [ANHUI]
        assert path == reverse(picture, args=args), url
        image = Client().get(path)  # a chat's fetcher: no cookies
        assert image.status_code == 200 and image["Content-Type"] == "image/png", url
        assert image.content.startswith(b"\x89PNG")
        assert "安徽农业大学教职工棋、牌、球比赛" in og["og:description"]


def test_the_preview_speaks_the_readers_language(client, played):
    english = Client()
    english.cookies["django_language"] = "en"
    url = reverse("live:bracket", args=[ANHUI, "guandan"])
    zh = tags(client.get(url).content.decode())
    en = tags(english.get(url).content.decode())
    assert zh["og:description"].endswith("掼蛋 · 已结束")
    assert en["og:description"].endswith("掼蛋 · Finished")
    assert "对阵" in zh["og:title"] and "Draw and results" in en["og:title"]
    assert zh["og:locale"] == "zh_CN" and en["og:locale"] == "en_US"
    standings = tags(english.get(reverse("standings:page", args=[ANHUI])).content.decode())
    assert standings["og:title"].startswith("Unit standings · ")


def test_the_cached_bracket_page_names_the_address_it_was_asked_at(client, played, settings):
    """Anonymous bracket pages are cached per version: a copy made for one host does not
    send a preview pointing at another."""
    settings.ALLOWED_HOSTS = ["testserver", "cup.example.org"]
    url = reverse("live:bracket", args=[ANHUI, "guandan"])
    first = tags(client.get(url).content.decode())
    other = tags(Client(HTTP_HOST="cup.example.org").get(url).content.decode())
    again = tags(Client().get(url).content.decode())
    assert first["og:image"].startswith("http://testserver/")
    assert other["og:image"].startswith("http://cup.example.org/")
    assert again == first


def test_pages_that_are_not_shared_have_no_preview(client, played, django_user_model):
    staff = django_user_model.objects.create_user("desk", is_staff=True)
    client.force_login(staff)
    page = client.get(reverse("scoring:desk", args=[ANHUI])).content.decode()
    assert "og:image" not in page
