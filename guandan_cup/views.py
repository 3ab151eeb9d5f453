"""The health answers: ``/healthz`` (liveness, nothing touched) and ``/readyz`` (each
dependency's state as JSON, for whatever decides to send this server traffic); and the
service worker of the table pages (static/js/sw.js), served from the site's root so that its
scope may take in every table page."""

import time
from functools import cache as remember
from pathlib import Path

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

from guandan_cup import cache


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """For the load balancer in front of several app servers: the process answers. It does
    nothing else on purpose — the benchmarks use it as the framework's floor."""
    return HttpResponse(b"ok", content_type="text/plain")


def _timed(check) -> dict:
    started = time.perf_counter()
    result = check()
    return {**result, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        # The next request must not reuse the broken connection.
        connection.close_if_unusable_or_obsolete()
        return {"ok": False, "error": f"{type(error).__name__}: {error}".strip()}
    return {"ok": True, "vendor": connection.vendor}


def _cjk_font() -> dict:
    # Imported here: the font check lives with the PDFs.
    from tournaments.documents.pdf import CJK_FONT_HINT, installed_cjk_fonts

    fonts = installed_cjk_fonts()
    if fonts:
        return {"ok": True, "fonts": list(fonts)}
    return {
        "ok": False,
        "error": "no Chinese font the PDFs use: Chinese text in them prints as boxes",
        "hint": CJK_FONT_HINT,
    }


@never_cache
@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """For whatever decides to send this app server traffic: each dependency's state, as
    JSON. 200 while the app can serve (the database answers), naming what is degraded — the
    cache (pages are then rendered from the database, slower) or the Chinese font (the PDFs
    print boxes); 503 when the database does not answer."""
    checks = {
        "database": _timed(_database),
        "cache": _timed(cache.status),
        "cjk_font": _timed(_cjk_font),
    }
    degraded = [name for name, check in checks.items() if not check["ok"]]
    ready = checks["database"]["ok"]
    body = {
        "status": ("degraded" if degraded else "ok") if ready else "unavailable",
        "degraded": degraded,
        "checks": checks,
    }
    return JsonResponse(
        body, status=200 if ready else 503, json_dumps_params={"ensure_ascii": False}
    )


@remember
def _service_worker_source() -> bytes:
    return (Path(__file__).resolve().parent.parent / "static" / "js" / "sw.js").read_bytes()


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js`` (static/js/sw.js): from the root, the scope it is registered with (``/``,
    by static/js/table.js) takes in every table page; revalidated on every update check."""
    response = HttpResponse(_service_worker_source(), content_type="text/javascript")
    response["Cache-Control"] = "no-cache"
    return response
