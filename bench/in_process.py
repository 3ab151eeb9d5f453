"""CPU per request through Django's WSGI handler in this process, without a server or a
network: what each live path costs on its own, and with --profile where the time goes.

    .venv/bin/python bench/in_process.py                 # every path, CPU µs per request
    .venv/bin/python bench/in_process.py page-gz --profile   # cProfile of one path
    .venv/bin/python bench/in_process.py --build         # (re)build the 256-team event first

PostgreSQL (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/gc_in_process,
created if missing) and Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379/10; keys under
gc-in-process). N (2000) requests per path; SORT (tottime) orders the profile. Measurements,
not tests: the same paths `make bench` measures through gunicorn, minus the server's share.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATABASE_URL = os.environ.get(
    "BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_in_process"
)
T, E = "in-process", "guandan"


def setup(build: bool):
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)
    os.environ.update(
        DATABASE_URL=DATABASE_URL,
        CACHE_URL=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/10"),
        CACHE_KEY_PREFIX="gc-in-process",
        DEBUG="0",
        TESTING="0",
        SECRET_KEY="in-process-" + "x" * 50,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SESSION_COOKIE_SECURE="0",
        CSRF_COOKIE_SECURE="0",
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="WARNING",
        VAR_DIR=os.environ.get("VAR_DIR", "/tmp/gc-in-process"),
        DJANGO_SETTINGS_MODULE="guandan_cup.settings",
    )
    name = DATABASE_URL.rsplit("/", 1)[1]
    server = DATABASE_URL.rsplit("/", 1)[0]
    subprocess.run(
        ["psql", server + "/postgres", "-qc", f"create database {name}"], capture_output=True
    )
    import django

    django.setup()
    from django.core.management import call_command

    from tournaments.models import Event, Tournament

    call_command("migrate", verbosity=0)
    if build or not Event.objects.filter(tournament__slug=T, slug=E).exists():
        from tournaments.draw import make as draw_make
        from tournaments.ops import synthetic

        Tournament.objects.filter(slug=T).delete()
        call_command("collectstatic", verbosity=0, interactive=False)
        event = synthetic.create_event(tournament_slug=T, event_slug=E, entries=256)
        Tournament.objects.filter(slug=T).update(status=Tournament.Status.RUNNING)
        draw_make.draw_event(event=event, seed=2026)
        synthetic.play_event(event, seed=2026, until=0.5)
    from django.core.cache import cache

    cache.clear()
    from django.core.handlers.wsgi import WSGIHandler

    return WSGIHandler()


def caller(handler):
    def call(path, headers=None):
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "HTTP_HOST": "127.0.0.1:8000",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": sys.stderr,
            "REMOTE_ADDR": "127.0.0.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
        }
        for key, value in (headers or {}).items():
            environ["HTTP_" + key.upper().replace("-", "_")] = value
        answer = {}

        def start(status, response_headers, exc_info=None):
            answer.update(status=status, headers=dict(response_headers))

        body = handler(environ, start)
        content = b"".join(body)
        body.close()
        return answer["status"], answer["headers"], content

    return call


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    call = caller(setup("--build" in sys.argv))
    bracket, bracket_json = f"/t/{T}/{E}/bracket/", f"/t/{T}/{E}/bracket.json"
    for _ in range(5):
        call(bracket), call(bracket, {"HX-Request": "true"}), call(bracket_json)
    etag = call(bracket, {"HX-Request": "true"})[1]["ETag"]
    json_etag = call(bracket_json)[1]["ETag"]
    paths = {
        "healthz": ("/healthz", {}),
        "page-gz": (
            bracket,
            {"Accept-Encoding": "gzip, deflate", "Cookie": "csrftoken=" + "a" * 32},
        ),
        "page-raw": (bracket, {}),
        "poll-changed": (bracket, {"HX-Request": "true", "Accept-Encoding": "gzip"}),
        "poll-304": (bracket, {"HX-Request": "true", "If-None-Match": etag}),
        "json": (bracket_json, {}),
        "json-304": (bracket_json, {"If-None-Match": json_etag}),
    }
    n = int(os.environ.get("N", "2000"))
    floor = None
    print(f"{'path':14} {'status':16} {'bytes':>8} {'CPU µs':>8} {'× trivial':>9}")
    for name, (path, headers) in paths.items():
        if args and name not in args and name != "healthz":
            continue
        status, _h, content = call(path, headers)
        for _ in range(50):
            call(path, headers)
        started = time.process_time()
        for _ in range(n):
            call(path, headers)
        cpu = (time.process_time() - started) / n * 1e6
        floor = floor or cpu
        print(f"{name:14} {status:16} {len(content):8,} {cpu:8.1f} {floor / cpu:9.2f}")
    if "--profile" in sys.argv:
        name = args[0] if args else "page-gz"
        path, headers = paths[name]
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(n):
            call(path, headers)
        profile.disable()
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats(os.environ.get("SORT", "tottime")).print_stats(
            40
        )
        print(out.getvalue())


if __name__ == "__main__":
    main()
