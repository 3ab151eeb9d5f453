"""The big day's live run: ``run_live()`` (bench/big.py, `make bench-big`, prints its rows),
or on its own: ``.venv/bin/python bench/big_live.py``.

Two app servers as docker-compose.yml runs them with ``--scale web=2``, on this machine
without containers: two gunicorn servers (gunicorn.conf.py, WEB_CONCURRENCY=2 each, ports
8104 and 8105) on one PostgreSQL and one Redis, nginx in front with the deployment's own
proxy rules and micro-cache (deploy/nginx/cup-http.inc, cup-proxy.inc, through
bench/front.py; plain HTTP on port 8106). The event: 2,048 pairs (掼蛋双人, one table a
match) drawn as a Swiss, its first round in play: 1,024 tables. For the run:

- the round's deals entered at all 1,024 tables at a real hall's rate — the round played
  over 20 minutes: 1,024 × the mean deals of a table / 1,200 s, about 12 deals a second —
  each table's referee tablet sending its next deal every 1,200 s / mean deals (89 s) from a
  random start, through nginx; the window may be shorter than the round (BENCH_BIG_SECONDS),
  the rate is the hall's;
- meanwhile 10,000 phones poll the live pages through nginx every 5 s (2,000 polls a
  second): 80 % on the bracket (the round's pairings and standings), the others each on a
  table's page, 1 % of the polls a full page (a phone opening or reloading it). wrk with a
  Lua script does it (bench/big_live_load.py): one C process, not Python, so the generator
  does not take the cores it measures — its own CPU is reported;

then every acknowledged deal must be in the database exactly once (bench/live_load.py's
exactly_once). Reported: the phones' p50/p95/p99 as wrk saw them (target p95 < 100 ms),
errors, nginx's own account (micro-cache hits, its time per request by page), the deals'
latency, and the CPU each part of the machine spent.

Environment: BENCH_BIG_DATABASE_URL (postgres://postgres@127.0.0.1:5432/gc_bench_big_live,
dropped and made afresh), BENCH_BIG_REDIS_URL (redis://127.0.0.1:6379/11; only keys under
gc-bench-big are touched), BENCH_BIG_PORTS (8104,8105,8106: the app servers, then nginx),
BENCH_BIG_SECONDS (300), BENCH_BIG_PHONES (10000), BENCH_BIG_PAIRS (2048), and the phones'
mix: BENCH_BIG_BRACKET_SHARE (0.8), BENCH_BIG_FULL_SHARE (0.01).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import front  # noqa: E402
from big_live_load import (  # noqa: E402
    TABLETS,
    CpuMeter,
    children_cpu_seconds,
    machine_cpu_seconds,
    quantiles_ms,
    read_access_log,
    start_phones,
)
from live_load import VERSION_RE, Conn, DealLog, percentiles, referee_loop  # noqa: E402
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
    "BENCH_BIG_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/gc_bench_big_live"
)
REDIS_URL = os.environ.get("BENCH_BIG_REDIS_URL", "redis://127.0.0.1:6379/11")
PREFIX = "gc-bench-big"
*APP_PORTS, NGINX_PORT = (
    int(p) for p in os.environ.get("BENCH_BIG_PORTS", "8104,8105,8106").split(",")
)
SECONDS = float(os.environ.get("BENCH_BIG_SECONDS", "300"))
PHONES = int(os.environ.get("BENCH_BIG_PHONES", "10000"))
PAIRS = int(os.environ.get("BENCH_BIG_PAIRS", "2048"))
HALL_SECONDS = 1200  # the round's results come in over 20 minutes
POLL_SECONDS = 5
BRACKET_SHARE = float(os.environ.get("BENCH_BIG_BRACKET_SHARE", "0.8"))
FULL_SHARE = float(os.environ.get("BENCH_BIG_FULL_SHARE", "0.01"))
WORKERS = 2  # per app server: two servers × 2 on two cores
TARGET_P95_MS = 100


@dataclass
class LiveRun:
    """What run_live() measured: ``rows`` of the main table (name, requests/s, p50, p95,
    p99, errors, note), ``cpu`` (part -> CPU seconds), the exactly-once verdict."""

    seconds: float
    rows: list = field(default_factory=list)
    cpu: dict = field(default_factory=dict)
    machine_cpu: float = 0.0
    exactly_once: bool = False
    exactly_once_detail: str = ""
    facts: list = field(default_factory=list)
    targets: list = field(default_factory=list)

    def markdown(self) -> list[str]:
        lines = ["| load | requests/s | p50 ms | p95 ms | p99 ms | errors | note |"]
        lines.append("|---|---:|---:|---:|---:|---:|---|")
        for name, rps, p50, p95, p99, errors, note in self.rows:
            lines.append(
                f"| {name} | {rps:,.0f} | {p50:.1f} | {p95:.1f} | {p99:.1f} | {errors} | {note} |"
            )
        lines += ["", "| part of the machine | CPU s | cores busy |", "|---|---:|---:|"]
        ours = 0.0
        for part, spent in sorted(self.cpu.items(), key=lambda kv: -kv[1]):
            ours += spent
            lines.append(f"| {part} | {spent:,.1f} | {spent / self.seconds:.2f} |")
        other = max(self.machine_cpu - ours, 0.0)
        lines.append(f"| other work on this machine | {other:,.1f} | {other / self.seconds:.2f} |")
        lines.append(
            f"| the whole machine ({os.cpu_count()} cores) | {self.machine_cpu:,.1f} | "
            f"{self.machine_cpu / self.seconds:.2f} |"
        )
        lines += ["", *self.facts, ""]
        lines.append(
            f"exactly once: {'yes' if self.exactly_once else 'NO'} — {self.exactly_once_detail}"
        )
        lines += ["", "targets:", *(f"  {line}" for line in self.targets)]
        return lines


def _child(step: str, directory: Path, *args: str) -> None:
    env = {
        **os.environ,
        **_server_env(),
        "VAR_DIR": str(directory / "var"),
        "DJANGO_SETTINGS_MODULE": "guandan_cup.settings",
    }
    subprocess.run(
        [PY, str(Path(__file__).with_name("big_live_setup.py")), step, str(directory), *args],
        cwd=ROOT,
        env=env,
        check=True,
    )


def _server_env() -> dict:
    from live_setup import SERVER_ENV

    return {
        **SERVER_ENV,
        "DATABASE_URL": DATABASE_URL,
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
    seconds: float = SECONDS,
    phones: int = PHONES,
    pairs: int = PAIRS,
    bracket_share: float = BRACKET_SHARE,
    say=print,
) -> LiveRun:
    """The big day's live run (this module's docstring); returns its figures."""
    preflight(DATABASE_URL, REDIS_URL, nginx=True)
    fresh_database(DATABASE_URL)
    clear_bench_keys(REDIS_URL, PREFIX)
    directory = Path(tempfile.mkdtemp(prefix="gc-big-live-"))
    (directory / "var").mkdir()
    say(f"big live: {os.cpu_count()} CPUs; PostgreSQL {DATABASE_URL}; Redis {REDIS_URL}")
    _child("setup", directory, str(pairs))
    made = json.loads((directory / "setup.json").read_text())
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
            servers.append(start_server(str(directory / "var"), port=port, env=_server_env()))
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
            f"{pairs} pairs, {len(tables)} tables; bracket fragment {raw / 1024:,.0f} KB "
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
    _child("check", directory)
    check = json.loads((directory / "check.json").read_text())
    run.exactly_once, run.exactly_once_detail = check["ok"], check["detail"]
    _report(
        run, polls, deals, directory, base, phones, len(tables), every, bracket_share, wall_start
    )
    import shutil

    shutil.rmtree(directory, ignore_errors=True)
    return run


def _report(run, polls, deals, directory, base, phones, tables, every, bracket_share, since):
    seen = read_access_log(
        directory / "nginx" / "access.log",
        {
            "deal": lambda uri: uri.endswith("/deal/"),
            "bracket": lambda uri: uri == f"{base}/bracket/",
            "table": lambda uri: "/tables/" in uri,
        },
        since,
    )
    polled = sum(sum(seen.get(k, {}).get("statuses", {}).values()) for k in ("bracket", "table"))
    from_cache = sum(
        n
        for k in ("bracket", "table")
        for status, n in seen.get(k, {}).get("statuses", {}).items()
        if status in ("HIT", "UPDATING", "STALE")
    )
    share = from_cache * 100 / max(polled, 1)
    run.rows.append(
        (
            f"{phones:,} phones polling every {POLL_SECONDS} s through nginx (wrk)",
            polls["rps"],
            polls["p50"] / 1000,
            polls["p95"] / 1000,
            polls["p99"] / 1000,
            polls["errors"],
            f"{polls['requests']:,} polls, {share:.0f} % answered from nginx's micro-cache; "
            f"errors: {polls['timeout']} timeouts, {polls['status']} non-2xx/3xx, "
            f"{polls['connect'] + polls['read'] + polls['write']} socket",
        )
    )
    labels = {
        "bracket": f"… on the bracket ({bracket_share:.0%} of the phones), nginx's time",
        "table": "… on a table's page, nginx's time",
    }
    for kind, label in labels.items():
        entry = seen.get(kind)
        if not entry:
            continue
        p50, p95, p99 = quantiles_ms(entry["times"])
        bad = sum(n for code, n in entry["codes"].items() if not code.startswith(("2", "3")))
        statuses = ", ".join(f"{n:,} {s}" for s, n in sorted(entry["statuses"].items()))
        pages = entry["statuses"].get("BYPASS", 0)
        fetched = entry["refreshes"]
        # How old a copy could get: the time between two fetches of the same page.
        copies = 1 if kind == "bracket" else tables
        every_copy = copies * run.seconds / fetched if fetched else float("inf")
        run.rows.append(
            (
                label,
                len(entry["times"]) / run.seconds,
                p50,
                p95,
                p99,
                bad,
                f"cache: {statuses}; copies fetched from the app {fetched / run.seconds:.1f}/s "
                f"(each page's every {every_copy:,.1f} s on average; "
                f"{entry['held'] / run.seconds:.0f}/s more held back: its pool busy); full "
                f"pages (BYPASS) {pages / run.seconds:.1f}/s",
            )
        )
    p50, p95, p99 = percentiles(deals.latencies)
    run.rows.append(
        (
            f"deals from {tables:,} tables' tablets through nginx",
            len(deals.latencies) / run.seconds,
            p50 * 1000,
            p95 * 1000,
            p99 * 1000,
            deals.errors,
            f"{len(deals.acknowledged):,} acknowledged at a hall's {tables / every:.1f}/s; "
            f"{deals.refused} refused as stale (422), {deals.resends} resends"
            + "".join(f"; {n} × {what}" for what, n in sorted(deals.failed.items(), key=str)),
        )
    )
    answered: dict = {}
    for entry in seen.values():
        for server, n in entry["servers"].items():
            answered[server] = answered.get(server, 0) + n
    run.facts.append(
        "the app servers answered nginx: "
        + ", ".join(f"{server} {n:,}" for server, n in sorted(answered.items()))
    )
    wrk_cpu = run.cpu.get("wrk (the phones)", 0.0)
    run.facts.append(
        f"the load generator: wrk {wrk_cpu / run.seconds:.2f} cores for {polls['rps']:,.0f} polls/s "
        f"({wrk_cpu * 1e6 / max(polls['requests'], 1):,.0f} µs a poll); the tablets (Python) "
        f"{run.cpu.get(TABLETS, 0.0) / run.seconds:.2f} cores"
    )
    phones_row = run.rows[0]
    met = phones_row[3] < TARGET_P95_MS and phones_row[5] == 0
    run.targets.append(
        f"{'met    ' if met else 'NOT met'} {phones:,} phones every {POLL_SECONDS} s: "
        f"p95 {phones_row[3]:.1f} ms (< {TARGET_P95_MS}), {phones_row[5]} errors, "
        f"{phones_row[1]:,.0f}/s of {phones / POLL_SECONDS:,.0f}/s"
    )
    deal_row = run.rows[-1]
    enough = deal_row[1] >= 0.9 * tables / every
    met = enough and deal_row[3] < TARGET_P95_MS and deal_row[5] == 0
    run.targets.append(
        f"{'met    ' if met else 'NOT met'} deals at the hall's rate: {deal_row[1]:.1f}/s of "
        f"{tables / every:.1f}/s, p95 {deal_row[3]:.1f} ms (< {TARGET_P95_MS}), "
        f"{deal_row[5]} errors"
    )
    run.targets.append(
        f"{'met    ' if run.exactly_once else 'NOT met'} every acknowledged deal in the "
        "database exactly once"
    )


def main() -> None:
    run = run_live()
    print()
    for line in run.markdown():
        print(line)
    if not run.exactly_once:
        sys.exit(1)


if __name__ == "__main__":
    main()
