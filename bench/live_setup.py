"""`make bench` (bench/live.py): its settings, the database and event it builds, the server it
starts and stops."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_bench")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/9")
PORT = int(os.environ.get("BENCH_PORT", "8765"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "10"))
HOST = "127.0.0.1"
BASE = f"http://{HOST}:{PORT}"
PREFIX = "gc-bench"
TEAMS = 256
REFEREES = 50
PHONES = 1000
POLL_SECONDS = 5
WRK_THREADS, WRK_CONNECTIONS = 2, 32
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
# A real table plays a deal in two or three minutes; every 5 s is a hall 30× as busy.
DEAL_EVERY = float(os.environ.get("BENCH_DEAL_EVERY", "5"))
T, E = "bench-cup", "teams"
CSRF_COOKIE = uuid.uuid4().hex  # a returning phone's (any 32 letters and digits)

SERVER_ENV = {
    "DATABASE_URL": DATABASE_URL,
    "CACHE_URL": REDIS_URL,
    "CACHE_KEY_PREFIX": PREFIX,
    "DEBUG": "0",
    "TESTING": "0",
    "SECRET_KEY": "bench-" + uuid.uuid4().hex + uuid.uuid4().hex,
    "ALLOWED_HOSTS": f"{HOST},localhost",
    # Plain HTTP on the loopback: no TLS redirect, cookies without the Secure flag.
    "SECURE_SSL_REDIRECT": "0",
    "SESSION_COOKIE_SECURE": "0",
    "CSRF_COOKIE_SECURE": "0",
    "SECURE_HSTS_SECONDS": "0",
    "GUNICORN_BIND": f"{HOST}:{PORT}",
    # The access log would be written by the same two cores; a proxy in front logs anyway.
    "GUNICORN_ACCESS_LOG": "",
    "GUNICORN_LOG_LEVEL": "warning",
    # No worker recycling in the middle of a measured load (production recycles every
    # 20,000 requests, which a 10 s wrk run reaches).
    "GUNICORN_MAX_REQUESTS": "0",
    "LOG_LEVEL": "WARNING",
}


def say(text: str = "") -> None:
    print(text, flush=True)


def load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f})"


# --------------------------------------------------------------------------- preflight


def preflight(database_url: str = DATABASE_URL, redis_url: str = REDIS_URL, nginx=False) -> None:
    problems = []
    if nginx and not (shutil.which("nginx") or os.access("/usr/sbin/nginx", os.X_OK)):
        problems.append("nginx is not installed: sudo apt-get install nginx-light")
    if not shutil.which("wrk"):
        problems.append(
            "wrk is not installed: sudo apt-get install wrk   (Debian/Ubuntu; `make bench` "
            "installs it itself when run as root)"
        )
    try:
        import psycopg

        parts = urllib.parse.urlsplit(database_url)
        psycopg.connect(
            host=parts.hostname,
            port=parts.port or 5432,
            user=parts.username or "postgres",
            password=parts.password or None,
            dbname="postgres",
            connect_timeout=3,
        ).close()
    except Exception as err:  # noqa: BLE001 - any reason is reported as is
        problems.append(
            f"PostgreSQL is not reachable at {database_url} ({err}); start it with "
            "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start"
        )
    try:
        import redis

        redis.Redis.from_url(redis_url, socket_connect_timeout=2).ping()
    except Exception as err:  # noqa: BLE001
        problems.append(
            f"Redis is not reachable at {redis_url} ({err}); start it with "
            "redis-server --daemonize yes --save ''"
        )
    if problems:
        for p in problems:
            say(f"bench: {p}")
        sys.exit(2)


def fresh_database(url: str = DATABASE_URL) -> None:
    import psycopg

    parts = urllib.parse.urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(
        host=parts.hostname,
        port=parts.port or 5432,
        user=parts.username or "postgres",
        password=parts.password or None,
        dbname="postgres",
        autocommit=True,
        connect_timeout=5,
    ) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def clear_bench_keys(url: str = REDIS_URL, prefix: str = PREFIX) -> None:
    import redis

    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"{prefix}:*", count=1000):
        client.delete(key)


# --------------------------------------------------------------------------- the event


@dataclass
class Referee:
    session: str
    csrf: str
    tables: list[int]


@dataclass
class Setup:
    event_id: int
    referees: list[Referee]
    writer: Referee
    timings: dict = field(default_factory=dict)


def migrate_and_collect() -> dict[str, float]:
    """Migrate and collect the static files (Django set up already); their time."""
    from django.core.management import call_command

    start = time.perf_counter()
    call_command("migrate", verbosity=0)
    call_command("collectstatic", verbosity=0, interactive=False)
    return {"migrate + collectstatic": time.perf_counter() - start}


def build_event(var_dir: str) -> Setup:
    """Django in this process, with the server's settings: migrate, collect the static
    files, generate the event and play half of it, make the referees' sessions."""
    os.environ.update(SERVER_ENV, VAR_DIR=var_dir, DJANGO_SETTINGS_MODULE="guandan_cup.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.backends.cached_db import SessionStore
    from django.utils.crypto import get_random_string

    from scoring.models import TableMatch
    from tournaments.draw import make as draw_make
    from tournaments.models import Match, Official, Tournament
    from tournaments.ops import synthetic

    timings = migrate_and_collect()
    start = time.perf_counter()
    event = synthetic.create_event(tournament_slug=T, event_slug=E, entries=TEAMS)
    Tournament.objects.filter(slug=T).update(status=Tournament.Status.RUNNING)
    draw_make.draw_event(event=event, seed=2026)
    played = synthetic.play_event(event, seed=2026, until=0.5)
    timings[f"generate {TEAMS} teams, draw, play {played} ties"] = time.perf_counter() - start
    tables = TableMatch.objects.filter(match__round__stage__event=event).count()
    say(f"event: {TEAMS} teams, {tables} tables, {played} ties played")

    User = get_user_model()
    tournament = Tournament.objects.get(slug=T)
    users = [User.objects.create_user(f"referee{i:02d}") for i in range(REFEREES + 1)]
    officials = Official.objects.bulk_create(
        Official(tournament=tournament, name=f"裁判{i:02d}", role=Official.Role.REFEREE, user=u)
        for i, u in enumerate(users)
    )
    ties = list(
        Match.objects.filter(round__stage__event=event, status=Match.Status.PENDING)
        .exclude(home=None)
        .exclude(away=None)
        .order_by("round__number", "index")
    )
    # The hall's referee records on the last eight ties; the 50 share the others.
    hall, shared = ties[-8:], ties[:-8]
    referees = []
    for i, user in enumerate(users):
        mine = shared[i::REFEREES] if i < REFEREES else hall
        Match.objects.filter(pk__in=[m.pk for m in mine]).update(referee=officials[i])
        store = SessionStore()
        store["_auth_user_id"] = str(user.pk)
        store["_auth_user_backend"] = "django.contrib.auth.backends.ModelBackend"
        store["_auth_user_hash"] = user.get_session_auth_hash()
        store.create()
        table_ids = list(
            TableMatch.objects.filter(match__in=mine)
            .order_by("match_id", "number")
            .values_list("pk", flat=True)
        )
        referees.append(Referee(store.session_key, get_random_string(32), table_ids))
    # The last login records deals while the phones poll (the "hall"), on its own tables.
    writer = referees.pop()
    from django.db import connection

    connection.close()
    return Setup(event.pk, referees, writer, timings)


# --------------------------------------------------------------------------- the server


_server_sessions: list[int] = []


def sessions_cpu_seconds(sessions) -> dict[int, float]:
    """CPU time used so far by every process of each of ``sessions`` (a session id: the
    pid of a process started with start_new_session), with their reaped children's time
    (a gunicorn master's workers), from /proc; empty where there is no /proc."""
    if not os.path.isdir("/proc"):
        return {}
    wanted = set(sessions)
    ticks = dict.fromkeys(wanted, 0)
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        # After the name: state ppid pgrp session … utime(12) stime(13) cutime(14) cstime(15)
        if int(fields[3]) in wanted:
            ticks[int(fields[3])] += sum(int(v) for v in fields[11:15])
    return {sid: t / os.sysconf("SC_CLK_TCK") for sid, t in ticks.items()}


def server_cpu_seconds() -> float | None:
    """CPU time used so far by the app servers started here (the gunicorn masters and their
    workers, with the workers already reaped). None where there is no /proc."""
    if not _server_sessions or not os.path.isdir("/proc"):
        return None
    return sum(sessions_cpu_seconds(_server_sessions).values())


def start_server(var_dir: str, port: int = PORT, env: dict | None = None) -> subprocess.Popen:
    """gunicorn (gunicorn.conf.py) with the bench's settings, ``env`` over them, listening
    on ``port``; returns once /healthz answers."""
    env = {**os.environ, **SERVER_ENV, "VAR_DIR": var_dir, **(env or {})}
    env["GUNICORN_BIND"] = f"{HOST}:{port}"
    env.pop("DJANGO_SETTINGS_MODULE", None)
    gunicorn = str(Path(PY).with_name("gunicorn"))
    proc = subprocess.Popen(
        [gunicorn, "-c", "gunicorn.conf.py", "guandan_cup.wsgi:application"],
        cwd=ROOT,
        env=env,
        start_new_session=True,
    )
    _server_sessions.append(proc.pid)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            status, _h, _b = http_get("/healthz", port=port)
            if status == 200:
                return proc
        except OSError:
            pass
        if proc.poll() is not None:
            raise SystemExit("gunicorn exited at start")
        time.sleep(0.3)
    stop_server(proc)
    raise SystemExit("gunicorn did not answer /healthz within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if proc.pid in _server_sessions:
        _server_sessions.remove(proc.pid)


def http_get(path: str, headers: dict | None = None, port: int = PORT):
    import http.client

    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, dict(response.getheaders()), body


# --------------------------------------------------------------------------- wrk
