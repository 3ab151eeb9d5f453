"""Every page of the played demo, read in English and in Chinese, by each person who reads it.

In English, no Chinese is left that the app wrote: what remains once everything people typed
(names, the notice, reasons, rule-set summaries …) is taken out must hold no Chinese
character or full-width punctuation. In Chinese, no code word reaches the page (a status
code, a format's key, a Python value). The crawl follows the links each person's pages
offer, starting from their home, and reads the text a person sees: text nodes, titles,
placeholders, labels and the JSON the live pages serve."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models
from django.test import Client

from tournaments.models import Official, Tournament, Unit

pytestmark = pytest.mark.django_db

# Text the app writes into the database itself: read as the app's words, not as typing.
APP_WRITTEN = {
    ("tournaments", "stage", "name"),
    ("tournaments", "round", "name"),
    ("tournaments", "match", "result_note"),
    ("scoring", "auditentry", "summary"),
    ("tournaments", "tournament", "certificate_title"),
}
# Chinese an English page shows on purpose: the language switch names Chinese in Chinese,
# and the notice's help quotes the heading marks a person types.
SHOWN_AS_CHINESE = ("简体中文", "“一、”", "“（一）”")
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]+")
# A code word on a Chinese page: a snake_case key or a Python value shown raw.
CODE_WORD = re.compile(r"\b(?:[a-z]+_[a-z_]+|None|True|False|nan)\b")
SKIP = re.compile(
    r"^/(?:static|admin|accounts/logout|logout|login/|media)|\.(?:pdf|xlsx|png|csv)$|/download"
)
MAX_PAGES = 400  # a person's pages at most: a crawl that runs away fails on its count
PER_PATTERN = 3  # pages of one shape (the same URL with other numbers) read per person


class _Text(HTMLParser):
    """The words a person reads on a page, and the links it offers."""

    ATTRS = {"title", "placeholder", "aria-label", "alt", "content", "data-confirm"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.words: list[str] = []
        self.links: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in ("script", "style", "template"):
            self._skip += 1
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if (
            tag == "meta"
            and attrs.get("name") not in ("description",)
            and not (attrs.get("property", "").startswith("og:"))
        ):
            return
        for name, value in attrs.items():
            if value and (
                name in self.ATTRS
                or (
                    tag == "input" and name == "value" and attrs.get("type") in ("submit", "button")
                )
            ):
                self.words.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style", "template") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.words.append(data.strip())


def _typed() -> list[str]:
    """Every text a person typed into the demo, longest first (so that a name inside a
    longer typed text is taken out with it)."""
    texts: set[str] = set()
    for model in apps.get_models():
        label = model._meta.app_label
        if label not in ("tournaments", "scoring", "auth"):
            continue
        fields = [
            f.name
            for f in model._meta.get_fields()
            if isinstance(f, (models.CharField, models.TextField))
            and not f.choices
            and (label, model._meta.model_name, f.name) not in APP_WRITTEN
        ]
        for row in model.objects.values_list(*fields) if fields else ():
            for value in row:
                if value:
                    texts.add(str(value))
                    texts.update(line.strip() for line in str(value).splitlines() if line.strip())
    # A pair's two names as a record written in either language keeps them (王芳、李娜).
    from tournaments.models import Pair

    for first, second in Pair.objects.values_list("first__name", "second__name"):
        texts.update((f"{first}、{second}", f"{first}, {second}"))
    return sorted(texts, key=len, reverse=True)


def _strip_typed(text: str, typed: list[str]) -> str:
    for value in (*typed, *SHOWN_AS_CHINESE):
        if value in text:
            text = text.replace(value, " ")
    return text


def _json_words(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [w for v in value.values() for w in _json_words(v)]
    if isinstance(value, list):
        return [w for v in value for w in _json_words(v)]
    return []


def _shape(path: str) -> str:
    """A URL's shape: its path with numbers as N and its query's keys (not their values)."""
    url = urlsplit(path)
    keys = sorted(part.split("=")[0] for part in url.query.split("&") if part)
    return re.sub(r"\d+", "N", url.path) + "?" + "&".join(keys)


def _crawl(client: Client, starts: list[str]) -> dict[str, list[str]]:
    """path → the words a person reads there."""
    seen: set[str] = set()
    shapes: dict[str, int] = defaultdict(int)
    pages: dict[str, list[str]] = {}
    queue = list(starts)
    while queue and len(pages) < MAX_PAGES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        if shapes[_shape(path)] >= PER_PATTERN:
            continue
        shapes[_shape(path)] += 1
        response = client.get(path)
        if response.status_code != 200:
            continue
        kind = response.get("Content-Type", "")
        if "json" in kind:
            # Only the JSON's words people read: its keys and coded values are the API's.
            pages[path] = [("json", w) for w in _json_words(json.loads(response.content))]
            continue
        if "html" not in kind:
            continue
        parser = _Text()
        parser.feed(response.content.decode())
        pages[path] = [("html", w) for w in parser.words]
        for href in parser.links:
            url = urlsplit(urljoin(path, href))
            if url.netloc and url.netloc != "testserver":
                continue
            if not url.path.startswith("/") or SKIP.search(url.path) or "next=" in url.query:
                continue
            target = url.path + (f"?{url.query}" if url.query else "")
            if target not in seen and shapes[_shape(target)] < PER_PATTERN:
                queue.append(target)
    return pages


def _people() -> dict[str, tuple[object, list[str]]]:
    """Who reads the played demo: each with their account and their first pages."""
    User = get_user_model()
    organiser = User.objects.create_superuser("crawl-organiser", password="x" * 20)
    people: dict[str, tuple[object, list[str]]] = {"spectator": (None, ["/"])}
    people["organiser"] = (organiser, ["/"])
    for tournament in Tournament.objects.all():
        home = f"/t/{tournament.slug}/"
        people["spectator"][1].append(home)
        for role in (Official.Role.CHIEF_REFEREE, Official.Role.REFEREE):
            official = tournament.officials.filter(role=role, user__isnull=False).first()
            if official is not None:
                people[f"{tournament.slug} {role}"] = (official.user, ["/", home])
        unit = Unit.objects.filter(tournament=tournament).first()
        leader = User.objects.create_user(f"crawl-leader-{tournament.pk}", first_name="领队甲")
        unit.leaders.add(leader)
        people[f"{tournament.slug} leader"] = (leader, ["/", home])
    return people


@pytest.fixture
def played_demo():
    from tournaments.ops.demo import load_demo, play_demo

    load_demo()
    play_demo(seed=2014)


def _read_all(language: str) -> dict[str, dict[str, list[str]]]:
    read = {}
    for person, (user, starts) in _people_cache().items():
        client = Client()
        client.cookies["django_language"] = language
        if user is not None:
            client.force_login(user)
        read[person] = _crawl(client, starts)
        print(language, person, len(read[person]), "pages")
    return read


_PEOPLE: dict = {}


def _people_cache():
    if not _PEOPLE:
        _PEOPLE.update(_people())
    return _PEOPLE


def test_every_page_reads_in_the_readers_language(played_demo):
    _PEOPLE.clear()
    _people_cache()
    typed = _typed()
    found: dict[str, set[str]] = defaultdict(set)
    pages = 0
    for person, crawl in _read_all("en").items():
        for path, words in crawl.items():
            pages += 1
            for _kind, word in words:
                for chinese in CJK.findall(_strip_typed(word, typed)):
                    found[chinese].add(f"{person} {path} :: {word[:80]}")
    for person, crawl in _read_all("zh-hans").items():
        for path, words in crawl.items():
            pages += 1
            for kind, word in words:
                if kind == "json":
                    continue
                for code in CODE_WORD.findall(_strip_typed(word, typed)):
                    found[code].add(f"{person} {path} :: {word[:80]}")
    assert pages > 200, f"the crawl read only {pages} pages"
    report = "\n".join(
        f"{text!r} ×{len(where)}: " + " | ".join(sorted(where)[:3])
        for text, where in sorted(found.items(), key=lambda kv: -len(kv[1]))
    )
    if os.environ.get("CRAWL_REPORT"):
        Path(os.environ["CRAWL_REPORT"]).write_text(report)
    assert not found, f"{len(found)} words in the wrong language:\n{report}"
