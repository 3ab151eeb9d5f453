"""Conditional GET and per-version caching for the pages that poll: the bracket (with its
standings), a tie, a table seen by spectators, the hall projector, the chief referee's
table board, ``bracket.json`` and ``matches/ID.json``.

Every event has a version that grows with every change (``Event.bump_version``). Its
*stamp* — the event's id, version, the time of that change and whether the tournament is
public — is kept in the shared cache under the event's slugs for a couple of seconds, so a
phone asking "anything new?" is answered 304 from the cache, without the database, on
whichever app server it reaches. A writer forgets the stamp when it bumps the version, and
again when its transaction commits, so a reader that raced it keeps an old stamp for at
most ``STAMP_SECONDS``.

Rendered responses and fragments are cached under the stamp: one render per version, per
language and per view, shared by every app server through Redis. While one request renders
a new version, the others are served the previous version (with its own ETag, so they ask
again) instead of rendering it too: no stampede when a result lands in front of a hall
full of phones. Nothing here is kept in process memory.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date

STAMP_SECONDS = 2
FRAGMENT_SECONDS = 15 * 60
RENDER_LOCK_SECONDS = 10
# Below this size a compressed copy saves too little to be worth keeping.
GZIP_MIN_BYTES = 1024


@dataclass(frozen=True)
class Stamp:
    event_id: int
    version: int
    changed_at: float  # Unix time of the last bump
    public: bool

    @property
    def token(self) -> str:
        """Names one version of one event. The time of the change is part of it, so a
        database that is reset and refilled never meets an old fragment under a new name."""
        return f"{self.event_id}.{self.version}.{int(self.changed_at * 1_000_000):x}"

    @property
    def last_modified(self) -> int:
        return int(self.changed_at)


def _stamp_key(slug: str, event_slug: str) -> str:
    return f"stamp:{slug}:{event_slug}"


def stamp_of(event) -> Stamp:
    """The stamp of an event row already loaded (with its tournament)."""
    return Stamp(event.pk, event.version, event.changed_at.timestamp(), event.tournament.is_public)


def get_stamp(slug: str, event_slug: str) -> Stamp | None:
    """The event's current stamp: from the cache, else one query (None: no such event)."""
    key = _stamp_key(slug, event_slug)
    raw = cache.get(key)
    if raw is None:
        from tournaments.models import Event, Tournament

        row = (
            Event.objects.filter(tournament__slug=slug, slug=event_slug)
            .values_list("pk", "version", "changed_at", "tournament__status")
            .first()
        )
        if row is None:
            return None
        raw = (row[0], row[1], row[2].timestamp(), row[3] != Tournament.Status.DRAFT)
        cache.set(key, raw, STAMP_SECONDS)
    return Stamp(*raw)


def forget_stamp(slug: str, event_slug: str) -> None:
    """Called by whatever bumps a version: now, and once more when the transaction commits
    (a reader may have cached the old version in between)."""
    key = _stamp_key(slug, event_slug)
    cache.delete(key)
    transaction.on_commit(lambda: cache.delete(key))


# --------------------------------------------------------------------------- validators


def etag_for(stamp: Stamp, variant: str) -> str:
    return f'"{stamp.token}-{variant}"'


def _language() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


def set_validators(response: HttpResponse, etag: str, last_modified: int) -> HttpResponse:
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = http_date(last_modified)
    # Stored, but asked again every time: the answer is a 304 while nothing changed.
    response.headers["Cache-Control"] = "no-cache"
    # The same URL answers the page and its htmx fragment; the language comes from a cookie.
    patch_vary_headers(response, ("HX-Request", "Cookie", "Accept-Encoding"))
    return response


def not_modified(request: HttpRequest, etag: str, last_modified: int) -> HttpResponse | None:
    """A 304 when the client's validators match, else None."""
    probe = set_validators(HttpResponse(), etag, last_modified)
    answer = get_conditional_response(
        request, etag=etag, last_modified=last_modified, response=probe
    )
    return None if answer is probe else answer


# --------------------------------------------------------------------------- caching


def _entry(content: bytes, content_type: str) -> tuple:
    packed = gzip.compress(content, 6) if len(content) >= GZIP_MIN_BYTES else None
    return (content, content_type, packed)


def _response_from(entry: tuple, request: HttpRequest) -> HttpResponse:
    content, content_type, packed = entry
    if packed is not None and "gzip" in request.headers.get("Accept-Encoding", ""):
        response = HttpResponse(packed, content_type=content_type)
        response.headers["Content-Encoding"] = "gzip"
        return response
    return HttpResponse(content, content_type=content_type)


def cached_render(name: str, stamp: Stamp, render) -> tuple | None:
    """(content, content_type, gzipped) for ``name`` at this version, rendering it with
    ``render()`` (-> HttpResponse) when nobody has yet. Returns None when ``render``
    answered anything but 200 (it is not cached). While another request renders this
    name, the last version rendered is returned instead (as (…, stale stamp token))."""
    key = f"live:{stamp.token}:{name}"
    entry = cache.get(key)
    if entry is not None:
        return entry, stamp.token
    latest_key = f"live-latest:{stamp.event_id}:{name}"
    lock_key = f"live-lock:{stamp.event_id}:{name}"
    if not cache.add(lock_key, 1, RENDER_LOCK_SECONDS):
        latest = cache.get(latest_key)
        if latest is not None:
            return latest[1], latest[0]
    try:
        response = render()
        if response.status_code != 200 or response.streaming:
            return response, None
        entry = _entry(response.content, response["Content-Type"])
        cache.set_many({key: entry, latest_key: (stamp.token, entry)}, FRAGMENT_SECONDS)
    finally:
        cache.delete(lock_key)
    return entry, stamp.token


def live_response(
    kind: str, *, htmx_only: bool = False, spectators_only: bool = False, query: tuple = ()
):
    """Decorate a public view of one event (``slug``, ``event_slug``, …): answer 304 when
    nothing changed, else the response rendered once for this version.

    ``htmx_only``: full pages (with their CSRF token and CSP nonce) are rendered as usual;
    only the polled fragment is cached. ``spectators_only``: a visitor with a session (a
    referee, a chief) gets the usual per-user page. ``query``: the query parameters the
    view reads (any others are ignored, so they cannot multiply the cached copies).
    """

    def decorate(view):
        @wraps(view)
        def wrapper(request: HttpRequest, slug: str, event_slug: str, *args, **kwargs):
            def call():
                return view(request, slug, event_slug, *args, **kwargs)

            if request.method not in ("GET", "HEAD"):
                return call()
            if htmx_only and not request.htmx:
                return call()
            if spectators_only and settings.SESSION_COOKIE_NAME in request.COOKIES:
                return call()
            stamp = get_stamp(slug, event_slug)
            if stamp is None or not stamp.public:
                return call()  # 404, or a draft that only staff may see
            parts = [kind, *map(str, args), *(f"{k}={v}" for k, v in sorted(kwargs.items()))]
            parts += [f"{k}={request.GET.get(k, '')}" for k in query]
            if request.htmx:
                parts.append("hx")
            variant = "-".join(parts + [_language()])
            etag = etag_for(stamp, variant)
            answer = not_modified(request, etag, stamp.last_modified)
            if answer is not None:
                return answer
            entry, token = cached_render(variant, stamp, call)
            if token is None:
                return entry  # the view's own answer (404 …), not cached
            if token != stamp.token:
                # A previous version while another request renders this one.
                etag = f'"{token}-{variant}"'
            response = _response_from(entry, request)
            return set_validators(response, etag, stamp.last_modified)

        return wrapper

    return decorate


def fragment(name: str, stamp: Stamp, render) -> str:
    """A piece of a page (HTML) rendered once per version and language: ``render()`` ->
    str. Full pages embed the cached body and render only their own frame."""
    variant = f"{name}-{_language()}"

    def as_response():
        return HttpResponse(render())

    entry, _token = cached_render(variant, stamp, as_response)
    return entry[0].decode()
