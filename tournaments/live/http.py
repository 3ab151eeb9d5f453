"""Conditional GET and per-version caching for the pages that poll: the bracket (with its
standings), a tie, a table seen by spectators, the hall projector, the chief referee's
table board, ``bracket.json`` and ``matches/ID.json``.

An event's version and its stamp are ``live.stamps``; the gzip splicing of anonymous
pages is ``live.gzip_splice``, the anonymous full pages ``live.anonymous`` and the
answer before the middleware ``live.fast``.

Rendered responses are cached under the stamp — one render per version, per language and
per view, shared by every app server through Redis — raw and gzip-compressed, and the
latest one also under the event's slugs, so an unconditional poll is one round trip to
Redis. While one request renders a new version the others are served the previous one
(with its own ETag, so they ask again) instead of rendering it too: no stampede when a
result lands in front of a hall full of phones. Anonymous visitors' full pages are cached
the same way, with their CSRF token and CSP nonce put in per request.

What this process keeps in memory is a copy named by a version (``_local``, the last
few rendered responses; ``stamps.remember_stamp``, a stamp for LIVE_STAMP_MEMO_SECONDS): never
stale and never the only copy of anything.
"""

from __future__ import annotations

import gzip
import math
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache, wraps

from django.conf import settings
from django.core.cache import cache
from django.db.models import Count, Max, Sum
from django.http import HttpRequest, HttpResponse, HttpResponseNotModified
from django.utils import translation
from django.utils.http import http_date, parse_http_date_safe

from scoring.selectors import tie_state
from tournaments.live.stamps import (
    STAMP_SECONDS,
    Stamp,
    memoised_stamp,
    remember_stamp,
    stamp_key,
    stamp_of,
)
from tournaments.models import Event, Tournament

# A version is looked up by its own name only while stamps may lag (seconds) and renders
# race; the latest rendered stays under the event's slugs much longer.
VERSION_SECONDS = 60
LATEST_SECONDS = 3600
RENDER_LOCK_SECONDS = 10
# A tie's page by the state of its tables (``cached_render``'s ``same``): a table deals
# every minute or two, so its copy is kept for a while.
SAME_SECONDS = 600
ENCODINGS = ("raw", "gz")
# Below this size a compressed copy saves too little to be worth keeping.
GZIP_MIN_BYTES = 1024
VARY = "HX-Request, Cookie, Accept-Encoding"
# How often an open live page asks for news (htmx polling), in seconds.
POLL_SECONDS = 5
_MISSING = object()


def get_stamp(slug: str, event_slug: str, raw=_MISSING) -> Stamp | None:
    """The event's current stamp: remembered by this process for a moment, else from the
    cache (``raw``, when already fetched), else one query. None: no such event."""
    key = stamp_key(slug, event_slug)
    if raw is _MISSING:
        raw = memoised_stamp(slug, event_slug)
        if raw is not None:
            return Stamp(*raw)
        raw = cache.get(key)
    if raw is None:
        row = (
            Event.objects.filter(tournament__slug=slug, slug=event_slug)
            .values_list("pk", "version", "changed_at", "tournament__status", "wide_version")
            .first()
        )
        if row is None:
            return None
        raw = (row[0], row[1], row[2].timestamp(), row[3] != Tournament.Status.DRAFT, row[4])
        cache.set(key, raw, STAMP_SECONDS)
    remember_stamp(key, raw)
    return Stamp(*raw)


# --------------------------------------------------------------------------- validators


def etag_for(stamp: Stamp, variant: str) -> str:
    return f'"{stamp.token}-{variant}"'


def current_language() -> str:
    return translation.get_language() or settings.LANGUAGE_CODE


@lru_cache(maxsize=256)
def _http_date(timestamp: int) -> str:
    return http_date(timestamp)  # a pure function: formatting it once per version is enough


def set_validators(response: HttpResponse, etag: str, last_modified: int) -> HttpResponse:
    response.headers["ETag"] = etag
    response.headers["Last-Modified"] = _http_date(last_modified)
    # Stored, but asked again every time: the answer is a 304 while nothing changed.
    response.headers["Cache-Control"] = "no-cache"
    # The same URL answers the page and its htmx fragment; the language comes from a cookie.
    response.headers["Vary"] = VARY
    return response


def tournament_validators(tournament: Tournament, variant: str) -> tuple[str, int]:
    """The ETag and last change of what a whole tournament shows (the units' standings, the
    results): it changes with every event's version, the tournament's own changes and the
    reader's language."""
    got = tournament.events.aggregate(v=Sum("version"), n=Count("id"), at=Max("changed_at"))
    at = max(filter(None, [got["at"], tournament.updated_at])).timestamp()
    own = int(tournament.updated_at.timestamp() * 1_000_000)
    etag = (
        f'"t{tournament.pk}.{got["v"] or 0}.{got["n"]}.{int(at * 1_000_000):x}.{own:x}'
        f'-{variant}-{current_language()}"'
    )
    return etag, int(at)


def tournament_conditional(request: HttpRequest, tournament: Tournament, variant: str, render):
    """A 304 while nothing the tournament shows changed, else ``render()`` with its
    validators (:func:`tournament_validators`)."""
    etag, last_modified = tournament_validators(tournament, variant)
    answer = not_modified(request, etag, last_modified)
    if answer is not None:
        return answer
    return set_validators(render(), etag, last_modified)


def not_modified(request: HttpRequest, etag: str, last_modified: int) -> HttpResponse | None:
    """A 304 when the client's validators match (If-None-Match wins over
    If-Modified-Since, as RFC 9110 says), else None."""
    if_none_match = request.META.get("HTTP_IF_NONE_MATCH")
    if if_none_match is not None:
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        fresh = etag in tags or "*" in tags
    else:
        since = request.META.get("HTTP_IF_MODIFIED_SINCE")
        since_time = parse_http_date_safe(since) if since else None
        fresh = since_time is not None and last_modified <= since_time
    if not fresh:
        return None
    return set_validators(HttpResponseNotModified(), etag, last_modified)


# --------------------------------------------------------------------------- caching


def encoding_of(request: HttpRequest) -> str:
    return "gz" if "gzip" in request.headers.get("Accept-Encoding", "") else "raw"


def _latest_key(slug: str, event_slug: str, name: str, encoding: str) -> str:
    return f"live-latest:{slug}:{event_slug}:{name}:{encoding}"


def _version_of(token: str) -> int:
    return int(token.split(".")[1])


def cached_render(
    slug: str,
    event_slug: str,
    name: str,
    stamp: Stamp,
    render,
    *,
    encoding: str = "raw",
    latest=_MISSING,
    copies_of=None,
    same=None,
):
    """``(content, content_type, gzipped, token)`` of ``name`` for this version, rendering
    it with ``render()`` (-> HttpResponse) when nobody has yet; or ``render``'s own answer
    when it is not a 200 (not cached). While another request renders this version, the
    latest version rendered is returned instead (its ``token`` tells which).
    ``copies_of(response)`` -> {"raw": …, "gz": …} replaces the plain and gzip copies.

    A page slow to render (``LIVE_RENDER_PACE_FROM`` seconds or more) is rendered again
    at most every ``LIVE_RENDER_PACE`` times as long: meanwhile the latest copy is given.

    ``same()`` -> the state of the rows the page shows besides the event's own (one query;
    None: no such rows): a page rendered at another version of the event with the same
    ``wide_version`` and the same state is this version's too, and is taken instead of
    rendering it again (a tie's page while other tables deal)."""
    key = copy_key(stamp.token, name, encoding)
    hit = _local.get(key)
    if hit is not None:
        return (*hit, stamp.token)
    latest_key = _latest_key(slug, event_slug, name, encoding)
    if latest is _MISSING:
        latest = cache.get(latest_key)
    if latest is not None and latest[0] == stamp.token:
        _local.put(key, latest[1:])
        return latest[1], latest[2], latest[3], latest[0]
    pace_key = f"live-pace:{stamp.event_id}:{name}"
    found = cache.get_many([key, pace_key])
    hit = found.get(key)
    if hit is not None:
        _local.put(key, hit)
        return (*hit, stamp.token)
    state = same() if same is not None and stamp.wide is not None else None
    alike = f"live-same:{stamp.event_id}.{stamp.wide}:{state}:{name}" if state else None
    if alike is not None:
        kept = cache.get_many([f"{alike}:{enc}" for enc in ENCODINGS])
        if len(kept) == len(ENCODINGS):
            copies = {enc: kept[f"{alike}:{enc}"] for enc in ENCODINGS}
            _keep(slug, event_slug, name, stamp, copies, latest)
            _local.put(key, copies[encoding])
            return (*copies[encoding], stamp.token)
    if pace_key in found and latest is not None:
        # Rendered a moment ago and slow to render (LIVE_RENDER_PACE): the latest copy.
        return latest[1], latest[2], latest[3], latest[0]
    lock_key = f"live-lock:{stamp.event_id}:{name}"
    locked = cache.add(lock_key, 1, RENDER_LOCK_SECONDS)
    if not locked and latest is not None:
        return latest[1], latest[2], latest[3], latest[0]
    try:
        started = time.monotonic()
        response = render()
        if response.status_code != 200 or response.streaming:
            return response
        took = time.monotonic() - started
        if settings.LIVE_RENDER_PACE and took >= settings.LIVE_RENDER_PACE_FROM:
            cache.set(pace_key, 1, math.ceil(settings.LIVE_RENDER_PACE * took))
        copies = (copies_of or _plain_and_gzip)(response)
        if alike is not None:
            # Under the state read before rendering: the copy is never older than its name.
            cache.set_many({f"{alike}:{enc}": copies[enc] for enc in ENCODINGS}, SAME_SECONDS)
        _keep(slug, event_slug, name, stamp, copies, latest)
    finally:
        if locked:
            cache.delete(lock_key)
    _local.put(key, copies[encoding])
    return (*copies[encoding], stamp.token)


def _keep(slug: str, event_slug: str, name: str, stamp: Stamp, copies: dict, latest) -> None:
    """Keep ``copies`` as this version's, and as the latest unless a newer one is."""
    cache.set_many(
        {copy_key(stamp.token, name, enc): copy for enc, copy in copies.items()},
        VERSION_SECONDS,
    )
    # The latest copy never goes back to an older version (a reader with a lagging
    # stamp may render one after a newer one was stored).
    if latest is None or latest is _MISSING or _version_of(latest[0]) <= stamp.version:
        cache.set_many(
            {
                _latest_key(slug, event_slug, name, enc): (stamp.token, *copy)
                for enc, copy in copies.items()
            },
            LATEST_SECONDS,
        )


class _Recent:
    """The last few versions' rendered copies, in this process. A copy is named by its
    version and never changes, so keeping it is never stale; it saves the round trip to
    Redis (and the transfer of a 100 KB bracket) on every poll this process answers."""

    def __init__(self, size: int):
        self.size, self.items, self.lock = size, OrderedDict(), threading.Lock()

    def get(self, key):
        with self.lock:
            return self.items.get(key)

    def put(self, key, value) -> None:
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


_local = _Recent(48)
# What the fast path learned of each request it may answer (``live.fast``): a request's
# address and variant -> (Copy, the headers the middleware gave its answer).
learned = _Recent(8192)


def _plain_and_gzip(response: HttpResponse) -> dict:
    raw, content_type = response.content, response["Content-Type"]
    packed = gzip.compress(raw, 6) if len(raw) >= GZIP_MIN_BYTES else None
    copies = {"raw": (raw, content_type, False)}
    copies["gz"] = (packed, content_type, True) if packed else copies["raw"]
    return copies


def _plain_only(response: HttpResponse) -> dict:
    """What gzip would not shrink (a PNG): the same copy for either encoding."""
    copy = (response.content, response["Content-Type"], False)
    return {"raw": copy, "gz": copy}


def held_copy(token: str, name: str, encoding: str):
    """The copy of ``name`` for version ``token`` if this process holds it, else None."""
    return _local.get(copy_key(token, name, encoding))


def copy_response(copy: tuple) -> HttpResponse:
    return response_of(*copy)


def response_of(content: bytes, content_type: str, gzipped: bool) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    return response


@dataclass(frozen=True)
class LiveView:
    """How :func:`live_response` caches one view; kept on the view as ``view.live`` so the
    fast path (``live.fast``) answers its polls the same way."""

    kind: str
    htmx_only: bool = False
    spectators_only: bool = False
    query: tuple = ()
    compress: bool = True
    # The keyword naming the tie the page shows ("match_id"), or one of its tables
    # ("table_id"): its copy is found by the state of the tie's tables too (``same``).
    tie_of: str | None = None

    def variant(self, request: HttpRequest, args, kwargs, htmx: bool, language: str) -> str:
        """The name of what this request is shown: one cached copy per variant and version."""
        parts = [self.kind, *map(str, args), *(f"{k}={v}" for k, v in sorted(kwargs.items()))]
        parts += [f"{k}={request.GET.get(k, '')}" for k in self.query]
        if htmx:
            parts.append("hx")
        parts.append(language)
        return "-".join(parts)


def copy_key(token: str, name: str, encoding: str) -> str:
    """Where the copy of ``name`` rendered for version ``token`` is kept."""
    return f"live:{token}:{name}:{encoding}"


@dataclass(frozen=True)
class Copy:
    """What a live response was, for the fast path (``live.fast``) to answer the same
    request again: the event it shows, the cached copy it carries (None for a 304) and
    the variant its ETag names (None for a full page, which has none)."""

    slug: str
    event_slug: str
    name: str | None
    encoding: str
    variant: str | None


def mark_copy(response: HttpResponse, copy: Copy) -> HttpResponse:
    response.live_copy = copy
    return response


def live_response(
    kind: str,
    *,
    htmx_only: bool = False,
    spectators_only: bool = False,
    query: tuple = (),
    compress: bool = True,
    tie_of: str | None = None,
):
    """Decorate a public view of one event (``slug``, ``event_slug``, …): answer 304 when
    nothing changed, else the response rendered once for this version.

    ``htmx_only``: only the polled fragment is cached here (the view caches anonymous full
    pages itself with :func:`anonymous_page`). ``spectators_only``: a visitor with a
    session (a referee, a chief) gets the usual per-user page. ``query``: the query
    parameters the view reads (others are ignored, so they cannot multiply the copies).
    ``compress=False``: the body is compressed already (a picture): no gzip copy.
    ``tie_of``: the view shows one tie (``"match_id"``) or one of its tables
    (``"table_id"``) besides the event: its copy rendered at an earlier version serves
    while the event's own rows and the tie's tables are unchanged (``cached_render``).
    """

    config = LiveView(kind, htmx_only, spectators_only, tuple(query), compress, tie_of)

    def decorate(view):
        @wraps(view)
        def wrapper(request: HttpRequest, slug: str, event_slug: str, *args, **kwargs):
            def call():
                return view(request, slug, event_slug, *args, **kwargs)

            if request.method not in ("GET", "HEAD"):
                return call()
            # META, not request.htmx / request.headers: this path answers most polls and
            # should do no more than it must.
            meta = request.META
            htmx = meta.get("HTTP_HX_REQUEST") == "true"
            if htmx_only and not htmx:
                return call()
            if spectators_only and settings.SESSION_COOKIE_NAME in request.COOKIES:
                return call()
            variant = config.variant(request, args, kwargs, htmx, current_language())
            encoding = "gz" if "gzip" in meta.get("HTTP_ACCEPT_ENCODING", "") else "raw"
            conditional = "HTTP_IF_NONE_MATCH" in meta or "HTTP_IF_MODIFIED_SINCE" in meta
            memo = memoised_stamp(slug, event_slug)
            # Known version: the copy may be in this process already (no round trip).
            if conditional or memo is not None:
                stamp, latest = get_stamp(slug, event_slug), _MISSING
            else:
                # One round trip: the stamp and the latest copy together.
                key_of_stamp = stamp_key(slug, event_slug)
                latest_key = _latest_key(slug, event_slug, variant, encoding)
                found = cache.get_many([key_of_stamp, latest_key])
                stamp = get_stamp(slug, event_slug, found.get(key_of_stamp))
                latest = found.get(latest_key)
            if stamp is None or not stamp.public:
                return call()  # 404, or a draft that only staff may see
            etag = etag_for(stamp, variant)
            if conditional:
                answer = not_modified(request, etag, stamp.last_modified)
                if answer is not None:
                    return mark_copy(answer, Copy(slug, event_slug, None, encoding, variant))
            got = cached_render(
                slug,
                event_slug,
                variant,
                stamp,
                call,
                encoding=encoding,
                latest=latest,
                copies_of=None if compress else _plain_only,
                same=(lambda: tie_state(**{tie_of: kwargs[tie_of]})) if tie_of else None,
            )
            if isinstance(got, HttpResponse):
                return got  # the view's own answer (404 …), not cached
            content, content_type, gzipped, token = got
            if token != stamp.token:
                # A previous version while another request renders this one, or while a
                # page slow to render keeps its pace: a phone that has it is told so.
                etag = f'"{token}-{variant}"'
                if "HTTP_IF_NONE_MATCH" in meta:
                    answer = not_modified(request, etag, stamp.last_modified)
                    if answer is not None:
                        return answer
            response = set_validators(
                response_of(content, content_type, gzipped), etag, stamp.last_modified
            )
            if token == stamp.token:
                mark_copy(response, Copy(slug, event_slug, variant, encoding, variant))
            return response

        wrapper.live = config
        return wrapper

    return decorate


def fragment(event, name: str, render) -> str:
    """A piece of a page (HTML) rendered once per version and language of ``event`` (loaded
    with its tournament): ``render()`` -> str. Full pages embed the cached body and render
    only their own frame."""
    got = cached_render(
        event.tournament.slug,
        event.slug,
        f"{name}-{current_language()}",
        stamp_of(event),
        lambda: HttpResponse(render()),
    )
    return got[0].decode()


def clear_local() -> None:
    """Forget this process's rendered copies (tests start each with an empty cache)."""
    _local.clear()
    learned.clear()
