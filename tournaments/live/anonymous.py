"""Anonymous visitors' full live pages (the bracket, the hall projector), cached per version
and language with the CSRF token and CSP nonce put in per request (``live.http`` caches,
``live.gzip_splice`` splices, ``live.fast`` answers them again before the middleware)."""

from __future__ import annotations

import re

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token

from tournaments.live.gzip_splice import CSRF_MARK, NONCE_MARK, SplicedGzip
from tournaments.live.http import (
    Copy,
    cached_render,
    current_language,
    encoding_of,
    get_stamp,
    mark_copy,
    response_of,
)

_MARKS = re.compile("(\x00csrf\x00|\x00nonce\x00)")
_CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def page_name(name: str, language: str, origin: str) -> str:
    """The cached copy of an anonymous full page. The page names its own address absolutely
    (a shared link's preview): one copy per address it is served under."""
    return f"pieces-{name}-{language}-{origin}"


def page_response(copy: tuple, encoding: str, csrf_token: str, nonce: str) -> HttpResponse:
    """A cached anonymous page (its pieces, or their gzip stream) with this request's CSRF
    token and CSP nonce put in."""
    pieces, content_type, _gzipped = copy
    fill = {CSRF_MARK: csrf_token, NONCE_MARK: nonce}
    if encoding == "gz":
        return response_of(pieces.join(fill), content_type, True)
    # The page's text already encoded, the marks between: every odd piece is a mark.
    fill = {mark: value.encode() for mark, value in fill.items()}
    content = b"".join(fill[p] if i % 2 else p for i, p in enumerate(pieces))
    return response_of(content, content_type, False)


def anonymous_page(request: HttpRequest, name: str, render) -> HttpResponse:
    """A full page for a visitor without a session, cached per version and language; the
    CSRF token and the CSP nonce (different for every request) are put in afterwards —
    into the cached gzip stream too (see :class:`SplicedGzip`), so a phone's first load of
    a 256-team bracket is about 10 KB and costs no rendering. ``render()`` renders it for
    this request; anyone else gets ``render()`` itself."""
    if (
        request.method not in ("GET", "HEAD")
        or request.GET
        or settings.SESSION_COOKIE_NAME in request.COOKIES
        or "messages" in request.COOKIES
    ):
        return render()
    match = request.resolver_match
    slug, event_slug = match.kwargs["slug"], match.kwargs["event_slug"]
    stamp = get_stamp(slug, event_slug)
    if stamp is None or not stamp.public:
        return render()
    first = []

    def render_with_marks() -> HttpResponse:
        response = render()
        first.append(response)
        if response.status_code != 200:
            return response
        html = response.content.decode()
        token = _CSRF_INPUT.search(html)
        nonce = str(request._csp_nonce)
        if token is None or nonce not in html:
            return HttpResponse(status=204)  # not a page this helper knows: not cached
        html = html.replace(token.group(1), CSRF_MARK).replace(nonce, NONCE_MARK)
        return HttpResponse(html, content_type=response["Content-Type"])

    def copies_of(response: HttpResponse) -> dict:
        # The pieces themselves, not their bytes: the shared cache pickles what it stores,
        # and this process keeps them ready to join.
        parts = _MARKS.split(response.content.decode())
        content_type = response["Content-Type"]
        return {
            "raw": ([p if i % 2 else p.encode() for i, p in enumerate(parts)], content_type, False),
            "gz": (SplicedGzip(parts), content_type, True),
        }

    encoding = encoding_of(request)
    copy_name = page_name(name, current_language(), f"{request.scheme}://{request.get_host()}")
    got = cached_render(
        slug,
        event_slug,
        copy_name,
        stamp,
        render_with_marks,
        encoding=encoding,
        copies_of=copies_of,
    )
    if first:
        response = first[0]  # this request rendered it: its own response as it is
        if response.status_code != 200:
            return response
    elif isinstance(got, HttpResponse):
        return render()
    else:
        copy, token = got[:3], got[3]
        response = page_response(copy, encoding, get_token(request), str(request._csp_nonce))
        if token != stamp.token:
            return response
    return mark_copy(response, Copy(slug, event_slug, copy_name, encoding, None))
