"""The big day's live run: ``run_live()``, which bench/big.py (`make bench-big`) calls on its
event, or on its own: ``.venv/bin/python bench/big_live.py`` (an event of its own).

Two app servers as docker-compose.yml runs them with ``--scale web=2``, on this machine
without containers: two gunicorn servers (gunicorn.conf.py, WEB_CONCURRENCY=2 each, ports
8104 and 8105) on one PostgreSQL and one Redis, nginx in front with the deployment's own
proxy rules and micro-cache (deploy/nginx/cup-http.inc, cup-proxy.inc, through
bench/front.py; plain HTTP on port 8106). The event: bench/big.py's (2,048 pairs, 掼蛋双人,
one table a match, seven Swiss rounds; the live run is its round 7, left to be played), or
on its own 2,048 pairs drawn as a Swiss, its first round in play: 1,024 tables. For the run:

- the round's deals entered at all 1,024 tables at a real hall's rate — the round played
  over 20 minutes: 1,024 × the mean deals of a table / 1,200 s, about 12 deals a second —
  each table's referee tablet sending its next deal every 1,200 s / mean deals (89 s) from a
  random start, through nginx; the window may be shorter than the round
  (BENCH_BIG_LIVE_SECONDS), the rate is the hall's;
- meanwhile 10,000 phones poll the live pages through nginx every 5 s (2,000 polls a
  second): 80 % on the bracket (the round's pairings and standings), the others each on a
  table's page, 1 % of the polls a full page (a phone opening or reloading it). wrk with a
  Lua script does it (bench/big_live_load.py): one C process, not Python, so the generator
  does not take the cores it measures — its own CPU is reported;

then every acknowledged deal must be in the database exactly once (bench/live_load.py's
exactly_once). Reported: the phones' p50/p95/p99 as wrk saw them (target p95 < 100 ms),
errors, nginx's own account (micro-cache hits, its time per request by page), the deals'
latency, and the CPU each part of the machine spent.

Environment: BENCH_BIG_LIVE_DATABASE_URL (on its own only:
postgres://postgres@127.0.0.1:5432/gc_bench_big_live, dropped and made afresh; bench/big.py
names its own), BENCH_BIG_LIVE_REDIS_URL (redis://127.0.0.1:6379/11; only keys under
gc-bench-big are touched), BENCH_BIG_LIVE_PORTS (8104,8105,8106: the app servers, then
nginx), BENCH_BIG_LIVE_SECONDS (300), BENCH_BIG_LIVE_PHONES (10000), BENCH_BIG_PAIRS (2048,
on its own), and the phones' mix: BENCH_BIG_LIVE_BRACKET_SHARE (0.8),
BENCH_BIG_LIVE_FULL_SHARE (0.01).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import front  # noqa: E402
from big_live_load import (  # noqa: E402
    CpuMeter,
    children_cpu_seconds,
    machine_cpu_seconds,
    start_phones,
)
from big_live_report import POLL_SECONDS, LiveRun, report  # noqa: E402
from live_load import VERSION_RE, Conn, DealLog, referee_loop  # noqa: E402
from live_setup import (  # noqa: E402
    PY,
    ROOT,
    Referee,
    clear_bench_keys,
    fresh_database,
    http_get,
    preflight,
    start_server,
    stop_server,
)

DATABASE_URL = os.environ.get(
    "BENCH_BIG_LIVE_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_bench_big_live"
)
REDIS_URL = os.environ.get("BENCH_BIG_LIVE_REDIS_URL", "redis://127.0.0.1:6379/11")
PREFIX = "gc-bench-big"
*APP_PORTS, NGINX_PORT = (
    int(p) for p in os.environ.get("BENCH_BIG_LIVE_PORTS", "8104,8105,8106").split(",")
)
SECONDS = float(os.environ.get("BENCH_BIG_LIVE_SECONDS", "300"))
PHONES = int(os.environ.get("BENCH_BIG_LIVE_PHONES", "10000"))
PAIRS = int(os.environ.get("BENCH_BIG_PAIRS", "2048"))
HALL_SECONDS = 1200  # the round's results come in over 20 minutes
BRACKET_SHARE = float(os.environ.get("BENCH_BIG_LIVE_BRACKET_SHARE", "0.8"))
FULL_SHARE = float(os.environ.get("BENCH_BIG_LIVE_FULL_SHARE", "0.01"))
WORKERS = 2  # per app server: two servers × 2 on two cores


def _child(step: str, directory: Path, database_url: str, *args: str) -> None:
    env = {
        **os.environ,
        **_server_env(database_url),
        "VAR_DIR": str(directory / "var"),
        "DJANGO_SETTINGS_MODULE": "guandan_cup.settings",
    }
    subprocess.run(
        [PY, str(Path(__file__).with_name("big_live_setup.py")), step, str(directory), *args],
        cwd=ROOT,
        env=env,
        check=True,
    )


def _server_env(database_url: str) -> dict:
    from live_setup import SERVER_ENV

    return {
        **SERVER_ENV,
        "DATABASE_URL": database_url,
        "CACHE_URL": REDIS_URL,
        "CACHE_KEY_PREFIX": PREFIX,
        "WEB_CONCURRENCY": str(WORKERS),
        # The proxy this deployment names: nginx, on the loopback.
        "TRUSTED_PROXIES": "127.0.0.1",
        "FORWARDED_ALLOW_IPS": "127.0.0.1",
        "PROXY_COUNT": "1",
    }


async def _open_pages(referees: list[Referee], event, at_once: int = 8) -> list[dict]:
    """Each tablet opens its table's page (as a referee does before the first deal), a few
    at a time, before the run: the versions its first deals name."""
    gate = asyncio.Semaphore(at_once)

    async def one(ref: Referee) -> dict:
        async with gate:
            conn, seen = Conn(NGINX_PORT), {}
            headers = {"Cookie": f"sessionid={ref.session}; csrftoken={ref.csrf}"}
            for table in ref.tables:
                page = f"/t/{event[0]}/{event[1]}/tables/{table}/"
                found = VERSION_RE.search((await conn.request("GET", page, headers))[2])
                if found:
                    seen[table] = int(found.group(1))
            await conn.close()
            return seen

    return await asyncio.gather(*(one(r) for r in referees))


async def _tablets(referees, seen: list[dict], seconds: float, every: float, event) -> DealLog:
    log = DealLog()
    until = time.perf_counter() + seconds
    rng = random.Random(2048)
    await asyncio.gather(
        *(
            referee_loop(
                r,
                log,
                until,
                random.Random(rng.random()),
                every=every,
                port=NGINX_PORT,
                event=event,
                versions=versions,
            )
            for r, versions in zip(referees, seen, strict=True)
        )
    )
    return log


def _warm(base: str, tables: list[str]) -> tuple[int, int]:
    """Every worker's templates and the cache, straight to each app server, then nginx's
    micro-cache (the phones have been polling before the window opens); returns the
    bracket fragment's size, plain and gzip."""
    fragment, packed = {"HX-Request": "true"}, {"HX-Request": "true", "Accept-Encoding": "gzip"}
    for port in APP_PORTS:
        for _ in range(3 * WORKERS):
            http_get(f"{base}/bracket/", fragment, port=port)
            http_get(f"{base}/bracket/", packed, port=port)
            http_get(f"{base}/bracket/", port=port)
            for path in tables[:3]:
                http_get(path, fragment, port=port)
    for path in [f"{base}/bracket/", *tables]:
        http_get(path, packed, port=NGINX_PORT)
    raw = http_get(f"{base}/bracket/", fragment, port=NGINX_PORT)[2]
    return len(raw), len(http_get(f"{base}/bracket/", packed, port=NGINX_PORT)[2])


def run_live(
    *,
    database_url: str,
    tournament: str,
    event: str,
    round_number: int,
    say=print,
    **options,
) -> list[tuple[str, str, str, str]]:
    """bench/big.py's live part on its event: round ``round_number`` of ``tournament`` /
    ``event`` in ``database_url`` (left to be played) entered at its tables while the
    phones poll. Prints the run's tables (:meth:`LiveRun.markdown`) and returns the rows
    ``(what, figure, target, met)`` of bench/big.py's table. ``options``: measure_live's."""
    run = measure_live(
        database_url=database_url, existing=(tournament, event, round_number), say=say, **options
    )
    say()
    for line in run.markdown():
        say(line)
    return run.summary()


def measure_live(
    *,
    database_url: str | None = None,
    existing: tuple[str, str, int] | None = None,
    seconds: float = SECONDS,
    phones: int = PHONES,
    pairs: int = PAIRS,
    bracket_share: float = BRACKET_SHARE,
    say=print,
) -> LiveRun:
    """The big day's live run (this module's docstring) on ``existing`` (tournament, event,
    round number) in ``database_url``, or on an event of ``pairs`` of its own in a database
    of its own (DATABASE_URL, made afresh); returns its figures."""
    own = existing is None
    database_url = DATABASE_URL if own else database_url
    preflight(database_url, REDIS_URL, nginx=True)
    if own:
        fresh_database(database_url)
    clear_bench_keys(REDIS_URL, PREFIX)
    directory = Path(tempfile.mkdtemp(prefix="gc-big-live-"))
    try:
        return _measure(
            directory, database_url, existing, seconds, phones, pairs, bracket_share, say
        )
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _measure(directory, database_url, existing, seconds, phones, pairs, bracket_share, say):
    own = existing is None
    (directory / "var").mkdir()
    say(f"big live: {os.cpu_count()} CPUs; PostgreSQL {database_url}; Redis {REDIS_URL}")
    if own:
        _child("setup", directory, database_url, str(pairs))
    else:
        _child("existing", directory, database_url, *map(str, existing))
    made = json.loads((directory / "setup.json").read_text())
    pairs = made["pairs"]
    for what, took in made["timings"].items():
        say(f"setup: {what}: {took:.1f} s")
    referees = [Referee(r["session"], r["csrf"], r["tables"]) for r in made["referees"]]
    tables = [t for r in referees for t in r.tables]
    base = f"/t/{made['tournament']}/{made['event']}"
    table_pages = [f"{base}/tables/{t}/" for t in tables]
    every = HALL_SECONDS / made["mean_deals"]
    run = LiveRun(seconds=seconds)
    servers, nginx, phones_run = [], None, None
    try:
        for port in APP_PORTS:
            env = _server_env(database_url)
            servers.append(start_server(str(directory / "var"), port=port, env=env))
        front.write_config(
            directory / "nginx",
            port=NGINX_PORT,
            upstreams=[f"127.0.0.1:{p}" for p in APP_PORTS],
            workers=2,
            connections=4 * phones + 1024,
            access_log=True,
        )
        nginx = front.start(directory / "nginx", NGINX_PORT)
        raw, packed = _warm(base, table_pages)
        slugs = (made["tournament"], made["event"])
        seen = asyncio.run(_open_pages(referees, slugs))
        run.facts.append(
            f"one version of the bracket renders in {made['bracket_render_seconds']:.2f} s "
            "(one core; every deal makes a new version)"
        )
        say(
            f"{pairs} pairs, round {made['round']}: {len(tables)} tables; bracket fragment "
            f"{raw / 1024:,.0f} KB "
            f"({packed / 1024:,.0f} KB gzip); {len(APP_PORTS)} app servers × {WORKERS} workers; "
            f"a table's next deal every {every:.0f} s ({len(tables) / every:.1f} deals/s)"
        )
        meter = CpuMeter(
            {
                f"app server {i + 1} (:{p})": s.pid
                for i, (p, s) in enumerate(zip(APP_PORTS, servers, strict=True))
            }
            | {"nginx": nginx.pid}
        )
        meter.start()
        machine_before, children_before = machine_cpu_seconds(), children_cpu_seconds()
        started, wall_start = time.perf_counter(), time.time()
        phones_run = start_phones(
            port=NGINX_PORT,
            bracket=f"{base}/bracket/",
            tables=table_pages,
            phones=phones,
            bracket_share=bracket_share,
            seconds=seconds,
            period=POLL_SECONDS,
            full_share=FULL_SHARE,
        )
        say(f"run: {phones} phones and {len(tables)} tablets for {seconds:.0f} s …")
        deals = asyncio.run(_tablets(referees, seen, seconds, every, slugs))
        polls = phones_run.result()
        elapsed = time.perf_counter() - started
        run.seconds = elapsed
        run.cpu = meter.stop()
        run.cpu["wrk (the phones)"] = children_cpu_seconds() - children_before
        run.machine_cpu = machine_cpu_seconds() - machine_before
    finally:
        if phones_run is not None and phones_run.proc.poll() is None:
            phones_run.proc.kill()
        if nginx is not None:
            front.stop(nginx)
        for server in servers:
            stop_server(server)
    (directory / "acknowledged.json").write_text(
        json.dumps({"acknowledged": list(deals.acknowledged), "resends": deals.resends})
    )
    _child("check", directory, database_url)
    check = json.loads((directory / "check.json").read_text())
    run.exactly_once, run.exactly_once_detail = check["ok"], check["detail"]
    log = directory / "nginx" / "access.log"
    report(run, polls, deals, log, base, phones, len(tables), every, bracket_share, wall_start)
    return run


def main() -> None:
    run = measure_live()
    print()
    for line in run.markdown():
        print(line)
    print()
    print("| measurement | figure | target | |")
    print("|---|---:|---|---|")
    for what, figure, target, met in run.summary():
        print(f"| {what} | {figure} | {target} | {met} |")
    if not run.exactly_once:
        sys.exit(1)


if __name__ == "__main__":
    main()
