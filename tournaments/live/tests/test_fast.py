"""The live pages' fast path (live/fast.py): a poll answered from this process's copy before
the rest of the middleware, exactly as the whole chain answered it."""

from __future__ import annotations

import gzip
import re

import pytest
from django.contrib.sessions.middleware import SessionMiddleware
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from tournaments.live import fast
from tournaments.live.tests.test_http import HTMX, make_event, open_tables, play_table, url
from tournaments.models import Tournament

# What differs from one answer to the next by design.
PER_REQUEST = {"content-length", "set-cookie", "content-security-policy"}


@pytest.fixture
def chain(monkeypatch):
    """How many requests went through the middleware behind the fast path."""
    seen = []
    original = SessionMiddleware.process_request

    def counted(self, request):
        seen.append(request.path)
        return original(self, request)

    monkeypatch.setattr(SessionMiddleware, "process_request", counted)
    return seen


def _headers(response) -> dict:
    return {k.lower(): v for k, v in response.items() if k.lower() not in PER_REQUEST}


def test_a_repeated_poll_skips_the_chain_and_gets_the_same_answer(
    client, db, chain, django_assert_num_queries
):
    make_event(8)
    first = client.get(url("live:bracket"), **HTMX)
    assert first.status_code == 200 and len(chain) == 1
    with django_assert_num_queries(0):
        again = client.get(url("live:bracket"), **HTMX)
    assert len(chain) == 1, "the second poll went through the whole chain"
    assert again.content == first.content
    assert _headers(again) == _headers(first)
    assert again["Content-Length"] == str(len(again.content))
    for header in ("X-Frame-Options", "Content-Language", "Vary", "ETag", "Cache-Control"):
        assert again[header] == first[header]


def test_a_matching_etag_is_answered_304_by_the_fast_path(client, db, chain):
    make_event(8)
    etag = client.get(url("live:bracket-json"))["ETag"]
    answer = client.get(url("live:bracket-json"), HTTP_IF_NONE_MATCH=etag)
    assert answer.status_code == 304 and answer["ETag"] == etag and len(chain) == 1
    # A stale one gets the current copy.
    stale = client.get(url("live:bracket-json"), HTTP_IF_NONE_MATCH='"1.1.1-old"')
    assert stale.status_code == 200 and stale["ETag"] == etag


def test_a_new_version_is_never_answered_from_the_old_copy(client, db, chain):
    event = make_event(8)
    first = client.get(url("live:bracket"), **HTMX)
    play_table(open_tables(event)[0])
    after = client.get(url("live:bracket"), **HTMX, HTTP_IF_NONE_MATCH=first["ETag"])
    assert after.status_code == 200 and after["ETag"] != first["ETag"]
    assert len(chain) == 2  # the new version was rendered by the chain, then learned
    assert client.get(url("live:bracket"), **HTMX).content == after.content
    assert len(chain) == 2


def test_each_language_and_encoding_is_its_own_answer(client, db, chain):
    make_event(8)
    chinese = client.get(url("live:bracket"), **HTMX)
    english_client = Client()
    english_client.cookies["django_language"] = "en"
    english = english_client.get(url("live:bracket"), **HTMX)
    assert english["Content-Language"] == "en" and chinese["Content-Language"] == "zh-hans"
    assert english.content != chinese.content and len(chain) == 2
    assert english_client.get(url("live:bracket"), **HTMX).content == english.content
    packed = client.get(url("live:bracket"), **HTMX, HTTP_ACCEPT_ENCODING="gzip")
    assert gzip.decompress(packed.content) == chinese.content and len(chain) == 3
    assert client.get(url("live:bracket"), **HTMX, HTTP_ACCEPT_ENCODING="gzip").content == (
        packed.content
    )
    assert len(chain) == 3


def test_a_full_page_gets_a_fresh_nonce_and_a_token_for_the_visitors_own_cookie(db, chain):
    make_event(8)
    visitor = Client(enforce_csrf_checks=True)
    first = visitor.get(url("live:bracket"))
    secret = first.cookies["csrftoken"].value
    answers = [visitor.get(url("live:bracket")) for _ in range(2)]
    assert len(chain) == 1
    seen = set()
    for answer in answers:
        html = answer.content.decode()
        nonce = re.search(r'nonce="([^"]+)"', html).group(1)
        assert answer["Content-Security-Policy"].count(f"'nonce-{nonce}'") >= 1
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
        assert _unmask_cipher_token(token) == secret
        assert "csrftoken" not in answer.cookies  # the visitor's own cookie stands
        seen |= {nonce, token}
        assert _headers(answer) == _headers(first)
    assert len(seen) == 4
    # The token works: the language switch accepts it.
    switched = visitor.post("/i18n/setlang/", {"language": "en", "csrfmiddlewaretoken": token})
    assert switched.status_code == 302


def test_a_first_visit_gets_a_new_csrf_cookie_that_matches_its_token(db, chain):
    make_event(8)
    Client().get(url("live:bracket"))
    newcomer = Client(enforce_csrf_checks=True)
    page = newcomer.get(url("live:bracket"))
    assert len(chain) == 1
    cookie = page.cookies["csrftoken"]
    assert len(cookie.value) == 32 and cookie["samesite"] == "Lax"
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.content.decode())
    assert _unmask_cipher_token(token.group(1)) == cookie.value
    switched = newcomer.post(
        "/i18n/setlang/", {"language": "en", "csrfmiddlewaretoken": token.group(1)}
    )
    assert switched.status_code == 302


def test_a_visitor_with_a_session_or_a_message_always_goes_through_the_chain(client, db, chain):
    from django.contrib.auth import get_user_model

    make_event(8)
    client.get(url("live:bracket"))
    client.get(url("live:bracket"), **HTMX)
    client.force_login(get_user_model().objects.create_user("wang"))
    assert "wang" in client.get(url("live:bracket")).content.decode()
    client.get(url("live:bracket"), **HTMX)
    assert len(chain) == 4
    other = Client()
    other.cookies["messages"] = "anything"
    other.get(url("live:bracket"))
    assert len(chain) == 5


def test_a_tournament_taken_back_to_draft_is_not_served(client, db, chain):
    make_event(8)
    client.get(url("live:bracket-json"))
    Tournament.objects.filter(slug="big").update(status=Tournament.Status.DRAFT)
    from tournaments.live import stamps

    stamps.clear_memo()
    from django.core.cache import cache

    cache.clear()
    assert client.get(url("live:bracket-json")).status_code == 404
    assert len(chain) == 2


def test_a_bad_host_is_refused_on_the_fast_path_too(client, db, chain):
    make_event(8)
    client.get(url("live:bracket-json"))
    assert client.get(url("live:bracket-json"), HTTP_HOST="evil.example").status_code == 400


@given(
    st.text(
        alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
        min_size=32,
        max_size=32,
    )
)
def test_a_masked_token_unmasks_to_its_secret(secret):
    token = fast.masked_token(secret)
    assert len(token) == 64 and _unmask_cipher_token(token) == secret
    assert fast.masked_token(secret) != token


def test_new_secrets_use_every_character():
    drawn = "".join(fast.new_secret() for _ in range(200))
    assert set(drawn) == set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
