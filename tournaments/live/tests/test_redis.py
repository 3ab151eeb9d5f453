"""The live caching against a real Redis, as in production (REDIS_URL, by default the
development machines' and CI's Redis at 127.0.0.1:6379, database 9). Every app server
shares it: the stamp and the rendered fragments live there, not in a process."""

from __future__ import annotations

import os
import uuid

import pytest
from django.urls import reverse

from tournaments.draw import make as draw_make
from tournaments.draw import results as draw_results
from tournaments.models import Event, Match, Tournament
from tournaments.ops import synthetic

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/9")
HTMX = {"HTTP_HX_REQUEST": "true"}


def _redis():
    import redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        client.ping()
    except redis.RedisError as err:
        message = f"no Redis at {REDIS_URL} ({err}); start redis-server or set REDIS_URL"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: the Redis tests must run in CI")
        pytest.skip(message)
    return client


@pytest.fixture
def redis_cache(settings):
    client = _redis()
    prefix = f"gc-test-{uuid.uuid4().hex[:12]}"
    settings.CACHES = {
        "default": {
            "BACKEND": "guandan_cup.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
            "TIMEOUT": 120,
        }
    }
    yield client, prefix
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def _event() -> Event:
    event = synthetic.create_event(tournament_slug="redis-cup", event_slug="teams", entries=8)
    Tournament.objects.filter(slug="redis-cup").update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=event, seed=3)
    return event


def test_the_live_cache_works_against_redis(client, db, redis_cache, django_assert_num_queries):
    redis, prefix = redis_cache
    event = _event()
    url = reverse("live:bracket", args=["redis-cup", "teams"])
    first = client.get(url, **HTMX)
    assert first.status_code == 200
    keys = {key.decode() for key in redis.scan_iter(f"{prefix}:*")}
    # Django's key layout is PREFIX:VERSION:KEY.
    assert f"{prefix}:1:stamp:redis-cup:teams" in keys
    assert any(":live:" in key for key in keys) and any(":live-latest:" in key for key in keys)
    with django_assert_num_queries(0):
        assert client.get(url, HTTP_IF_NONE_MATCH=first.headers["ETag"], **HTMX).status_code == 304
    # A result entered (on any server) removes the stamp from Redis at once.
    match = Match.objects.filter(round__stage__event=event, round__number=1).first()
    draw_results.record_result(match=match, winner="away", home_score=1, away_score=2)
    assert not redis.exists(f"{prefix}:1:stamp:redis-cup:teams")
    after = client.get(url, HTTP_IF_NONE_MATCH=first.headers["ETag"], **HTMX)
    assert after.status_code == 200 and after.headers["ETag"] != first.headers["ETag"]


def test_bracket_json_is_rendered_once_per_version_through_redis(
    client, db, redis_cache, django_assert_max_num_queries
):
    _event()
    url = reverse("live:bracket-json", args=["redis-cup", "teams"])
    data = client.get(url).json()
    # A second server (no state of its own) gets the cached copy: the stamp and the body
    # come from Redis, and nothing is queried.
    with django_assert_max_num_queries(0):
        again = client.get(url)
    assert again.json() == data
