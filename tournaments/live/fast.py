"""The live pages' fast path: a phone's poll answered before the rest of the middleware.

A poll of a live page by a visitor without a session is answered from what this process
already holds — a 304 when the stamp still matches, else the copy rendered for this
version — without the session, language, CSRF, authentication, messages, frame, CSP and
htmx middleware running again for it: on a cached page they were most of the cost. It
answers only what it has seen answered: each time the whole chain answers a live request
(``live.http`` marks such a response with its :class:`~tournaments.live.http.Copy`), this
middleware, placed right after the security and static-file middleware, remembers the
request's address and variant with the headers the chain gave the answer, and answers the
same request the same way next time — with a fresh CSP nonce (and CSRF token on a full
page) each time. Anything it has not seen, anything with a session or a message, a draft,
a version whose copy this process does not hold: the whole chain, as before.
"""

from __future__ import annotations

import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH
from django.utils.csp import generate_nonce

from guandan_cup.middleware import chosen_language
from tournaments.live import http as live
from tournaments.live.anonymous import page_response
from tournaments.live.gzip_splice import NONCE_MARK

# Set by this request (or the handler), never remembered.
_OWN_HEADERS = frozenset(
    {"set-cookie", "content-length", "content-type", "content-encoding", "etag", "last-modified"}
)
_CSRF_INDEX = {c: i for i, c in enumerate(CSRF_ALLOWED_CHARS)}
_CSRF_BASE = len(CSRF_ALLOWED_CHARS)
_CSRF_UNBIASED = 256 - 256 % _CSRF_BASE  # bytes below this map evenly onto the characters


def _random_indexes() -> list[int]:
    """CSRF_SECRET_LENGTH uniform indexes into CSRF_ALLOWED_CHARS, from one read of the
    system's random source (Django's ``get_random_string`` reads it once per character)."""
    found: list[int] = []
    while len(found) < CSRF_SECRET_LENGTH:
        found += [b % _CSRF_BASE for b in os.urandom(48) if b < _CSRF_UNBIASED]
    return found[:CSRF_SECRET_LENGTH]


def new_secret() -> str:
    """A new CSRF secret, as Django's middleware would make one."""
    return "".join(CSRF_ALLOWED_CHARS[i] for i in _random_indexes())


def masked_token(secret: str) -> str:
    """A CSRF token for ``secret`` as Django's ``get_token`` masks it: a random mask, then
    the secret shifted by it."""
    mask = _random_indexes()
    chars = CSRF_ALLOWED_CHARS
    cipher = "".join(
        chars[(_CSRF_INDEX[c] + m) % _CSRF_BASE] for c, m in zip(secret, mask, strict=True)
    )
    return "".join(chars[m] for m in mask) + cipher


def _csrf_secret(request: HttpRequest) -> str | None:
    secret = request.COOKIES.get(settings.CSRF_COOKIE_NAME, "")
    if len(secret) == CSRF_SECRET_LENGTH and all(c in _CSRF_INDEX for c in secret):
        return secret
    return None


def _set_csrf_cookie(response: HttpResponse, secret: str) -> None:
    """The cookie Django's CSRF middleware sets for a new secret (its Vary: Cookie is among
    the headers every live answer has)."""
    response.set_cookie(
        settings.CSRF_COOKIE_NAME,
        secret,
        max_age=settings.CSRF_COOKIE_AGE,
        domain=settings.CSRF_COOKIE_DOMAIN,
        path=settings.CSRF_COOKIE_PATH,
        secure=settings.CSRF_COOKIE_SECURE,
        httponly=settings.CSRF_COOKIE_HTTPONLY,
        samesite=settings.CSRF_COOKIE_SAMESITE,
    )


def _request_key(request: HttpRequest, meta: dict) -> tuple:
    return (
        request.path_info,
        meta.get("QUERY_STRING", ""),
        meta.get("HTTP_HX_REQUEST") == "true",
        chosen_language(request),
        "gz" if "gzip" in meta.get("HTTP_ACCEPT_ENCODING", "") else "raw",
        request.scheme,
        meta.get("HTTP_HOST", ""),
    )


def _with(response: HttpResponse, headers: tuple, nonce: str | None) -> HttpResponse:
    """``response`` with the headers the chain gave the same answer (its nonce replaced)."""
    for name, value in headers:
        response.headers[name] = value if nonce is None else value.replace(NONCE_MARK, nonce)
    if response.status_code == 200:
        response.headers["Content-Length"] = str(len(response.content))
    return response


class LiveFastPathMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        key = None
        if (
            request.method == "GET"
            and request.path_info.startswith("/t/")
            and settings.SESSION_COOKIE_NAME not in request.COOKIES
            and "messages" not in request.COOKIES
        ):
            key = _request_key(request, meta)
            answer = self._answer(request, meta, key)
            if answer is not None:
                return answer
        response = self.get_response(request)
        if key is not None:
            self._learn(request, key, response)
        return response

    @staticmethod
    def _answer(request: HttpRequest, meta: dict, key: tuple) -> HttpResponse | None:
        known = live.learned.get(key)
        if known is None:
            return None
        copy, headers = known
        request.get_host()  # the same check of the Host header the chain makes
        stamp = live.get_stamp(copy.slug, copy.event_slug)
        if stamp is None or not stamp.public:
            return None
        if copy.variant is not None:
            etag = live.etag_for(stamp, copy.variant)
            if "HTTP_IF_NONE_MATCH" in meta or "HTTP_IF_MODIFIED_SINCE" in meta:
                answer = live.not_modified(request, etag, stamp.last_modified)
                if answer is not None:
                    return _with(answer, headers or (), None)
        if copy.name is None or headers is None:
            return None
        held = live.held_copy(stamp.token, copy.name, copy.encoding)
        if held is None:
            return None
        if copy.variant is not None:
            response = live.copy_response(held)
            live.set_validators(response, etag, stamp.last_modified)
            return _with(response, headers, None)
        # A full page: this request's CSRF token and nonce.
        if settings.CSRF_USE_SESSIONS:
            return None
        secret = _csrf_secret(request)
        first_visit = secret is None
        if first_visit:
            secret = new_secret()
        nonce = generate_nonce()
        response = page_response(held, copy.encoding, masked_token(secret), nonce)
        if first_visit:
            _set_csrf_cookie(response, secret)
        return _with(response, headers, nonce)

    @staticmethod
    def _learn(request: HttpRequest, key: tuple, response: HttpResponse) -> None:
        copy = getattr(response, "live_copy", None)
        if copy is None:
            return
        headers = None
        if response.status_code == 200 and copy.name is not None:
            nonce = getattr(request, "_csp_nonce", None)
            nonce = str(nonce) if nonce else None
            headers = []
            for name, value in response.items():
                if name.lower() in _OWN_HEADERS:
                    continue
                if nonce and nonce in value:
                    if copy.variant is not None:
                        return  # a fragment whose headers name this request's nonce
                    value = value.replace(nonce, NONCE_MARK)
                headers.append((name, value))
            headers = tuple(headers)
        elif response.status_code != 304:
            return
        if headers is None and live.learned.get(key) is not None:
            return  # a 304 teaches nothing the answer already learned did not
        live.learned.put(key, (copy, headers))
