"""Per-request middleware of the project: forwarded headers only from trusted proxies, the
interface language and the size of a request."""

from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation

from guandan_cup.proxies import is_trusted_proxy, warn_untrusted

# The headers a reverse proxy sets about the client's connection. Django believes
# X-Forwarded-Proto (SECURE_PROXY_SSL_HEADER: "this request came over HTTPS", so secure
# cookies and no redirect) and X-Forwarded-Host/Port when told to; login throttling reads
# X-Forwarded-For (guandan_cup.accounts.client_ip).
FORWARDED_HEADERS = (
    "HTTP_X_FORWARDED_PROTO",
    "HTTP_X_FORWARDED_HOST",
    "HTTP_X_FORWARDED_PORT",
    "HTTP_X_FORWARDED_FOR",
    "HTTP_FORWARDED",
)


class TrustedProxyMiddleware:
    """Forget the forwarded headers of a request that did not come from a trusted proxy
    (settings.TRUSTED_PROXIES).

    A client that reaches the app server past the proxy could otherwise claim HTTPS with
    ``X-Forwarded-Proto: https`` (and so receive secure cookies over plain HTTP, or dodge
    the HTTPS redirect) or choose the address it is throttled under. First in MIDDLEWARE,
    so nothing reads the headers before they are checked.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        meta = request.META
        if any(name in meta for name in FORWARDED_HEADERS):
            remote = meta.get("REMOTE_ADDR") or ""
            if not is_trusted_proxy(remote):
                warn_untrusted(remote)
                for name in FORWARDED_HEADERS:
                    meta.pop(name, None)
        return self.get_response(request)


def chosen_language(request) -> str:
    """The visitor's language: the one chosen with the switcher, else Chinese."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
    if chosen and any(chosen == code for code, _name in settings.LANGUAGES):
        return chosen
    return settings.LANGUAGE_CODE


class ChineseFirstLocaleMiddleware(LocaleMiddleware):
    """Chinese unless the visitor chose another language with the switcher.

    Django's LocaleMiddleware also follows the browser's Accept-Language; a union hall's
    phones and projector often run English system settings, yet the event is Chinese. Only
    the language cookie set by the switcher (``/i18n/setlang/``) changes the language.
    """

    def process_request(self, request):
        translation.activate(chosen_language(request))
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        response = super().process_response(request, response)
        # Leave the thread as we found it: code that runs after this request in the same
        # thread (a test, a management command) should not inherit the visitor's language.
        translation.deactivate()
        return response


class RequestSizeLimitMiddleware:
    """Refuse a request body larger than MAX_REQUEST_BYTES before anything reads it.

    The only files users send are Excel registration forms of a few hundred KB; without
    this, an oversized upload would be spooled to disk by the CSRF check's form parsing
    before any view could look at its size. Runs as ``process_view`` so the answer still
    passes through every middleware's response handling (CSP header, language).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length <= settings.MAX_REQUEST_BYTES:
            return None
        from django.shortcuts import render

        return render(
            request,
            "request_too_large.html",
            {"limit_mb": settings.MAX_REQUEST_BYTES // (1024 * 1024)},
            status=413,
        )
