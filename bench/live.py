"""`make bench`: the live pages under load, on this machine, in one run.

Starts the app under gunicorn (gunicorn.conf.py, DEBUG off, hashed static files) against
PostgreSQL and Redis with a 256-team guandan event (768 tables) drawn and played halfway,
then measures, on the same server and in this order:

- the trivial view (/healthz: the framework's floor, every middleware, no database),
- the bracket page, bracket.json, the 304 paths (the htmx poll's and bracket.json's, with
  an ETag that still matches), with wrk;
- 1,000 phones polling the bracket every 5 s (200 requests/s, open loop) while referees
  keep recording deals, so the version keeps changing under them;
- deal submissions from 50 referees at once (closed loop: each sends its next deal when the
  last is answered), with some resends of the same deal as after a dropped connection;
  afterwards every acknowledged deal must be in the database exactly once;

and then the draw of 4,096 entries, the pairing of a 1,000-team Swiss round and the 64-entry
bracket PDF (bench/draws.py, bench/pdfs.py). Prints requests/s, p50/p95/p99 and errors for
each, as a ratio to the trivial view, the server's CPU time per request (all its processes,
from /proc: what a request costs, which other work on a shared machine moves far less than
the rate), and which targets are met — among them that every 304 (bracket.json's, the
htmx poll's) is as cheap as the poll's and no dearer than its own 200.

    make bench                      # or: .venv/bin/python bench/live.py
    BENCH_SECONDS=20 make bench     # longer runs

Environment: BENCH_DATABASE_URL (postgres://postgres@127.0.0.1:5432/gc_bench, dropped and
created afresh), BENCH_REDIS_URL (redis://127.0.0.1:6379/9; only keys under the prefix
gc-bench are touched), BENCH_PORT (8765), BENCH_SECONDS (10 per wrk run; the phones run
3×, the referees 2×). Measurements, not tests: nothing here fails on a slow machine,
except a broken exactly-once check.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile

from live_load import (  # noqa: E402
    DealLog,
    Result,
    exactly_once,
    percentiles,
    phones_run,
    referees_run,
    run_script,
    wrk,
)
from live_setup import (  # noqa: E402
    CSRF_COOKIE,
    DATABASE_URL,
    DEAL_EVERY,
    PHONES,
    POLL_SECONDS,
    REDIS_URL,
    ROOT,
    ROUNDS,
    SECONDS,
    WRK_CONNECTIONS,
    WRK_THREADS,
    E,
    T,
    build_event,
    clear_bench_keys,
    fresh_database,
    http_get,
    load,
    preflight,
    say,
    start_server,
    stop_server,
)


def main() -> None:
    preflight()
    say(f"bench: {os.cpu_count()} CPUs; PostgreSQL {DATABASE_URL}; Redis {REDIS_URL}")
    fresh_database()
    clear_bench_keys()
    var_dir = tempfile.mkdtemp(prefix="gc-bench-")
    setup = build_event(var_dir)
    for what, seconds in setup.timings.items():
        say(f"setup: {what}: {seconds:.1f} s")
    server = start_server(var_dir)
    results: list[Result] = []
    import runpy

    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    say(f"gunicorn: {conf['workers']} {conf['worker_class']} workers × {conf['threads']} threads")
    try:
        bracket = f"/t/{T}/{E}/bracket/"
        bracket_json = f"/t/{T}/{E}/bracket.json"
        # Warm every worker's templates and the cache.
        for _ in range(20):
            http_get(bracket)
            http_get(bracket, {"HX-Request": "true"})
            http_get(bracket_json)
        status, headers, body = http_get(bracket, {"HX-Request": "true"})
        etag = headers["ETag"]
        status304, _h, _b = http_get(bracket, {"HX-Request": "true", "If-None-Match": etag})
        assert status304 == 304, f"the 304 path answered {status304}"
        json_etag = http_get(bracket_json)[1]["ETag"]
        json304 = http_get(bracket_json, {"If-None-Match": json_etag})[0]
        assert json304 == 304, f"bracket.json's 304 path answered {json304}"
        say(
            f"bracket fragment: {len(body) / 1024:.0f} KB, page {len(http_get(bracket)[2]) / 1024:.0f} KB"
        )

        scenarios = [
            ("trivial view (/healthz)", "/healthz", {}),
            # Phones and browsers always ask for gzip, and send back the CSRF cookie the
            # page set on their first visit.
            (
                "bracket page (full, 256 teams)",
                bracket,
                {"Accept-Encoding": "gzip, deflate", "Cookie": f"csrftoken={CSRF_COOKIE}"},
            ),
            ("bracket page, uncompressed", bracket, {}),
            (
                "bracket poll, changed (htmx, gzip)",
                bracket,
                {"HX-Request": "true", "Accept-Encoding": "gzip"},
            ),
            ("bracket.json", bracket_json, {}),
            ("bracket.json (gzip)", bracket_json, {"Accept-Encoding": "gzip"}),
            (
                "304 path (bracket poll, ETag matches)",
                bracket,
                {"HX-Request": "true", "If-None-Match": etag},
            ),
            ("bracket.json 304 (ETag matches)", bracket_json, {"If-None-Match": json_etag}),
        ]
        # Other work on a shared machine comes and goes: every load runs in each of several
        # rounds, interleaved, and the median round counts.
        runs: dict[str, list[Result]] = {name: [] for name, _p, _h in scenarios}
        for number in range(1, ROUNDS + 1):
            say(
                f"wrk round {number}/{ROUNDS}: {WRK_THREADS} threads, {WRK_CONNECTIONS} "
                f"connections, {SECONDS} s per load; {load()}"
            )
            for name, path, headers in scenarios:
                runs[name].append(wrk(name, path, headers))
        floor_runs = runs[scenarios[0][0]]
        for name, _p, _h in scenarios:
            ordered = sorted(runs[name], key=lambda r: r.rps)
            middle = ordered[len(ordered) // 2]
            # Each round's load is compared with the trivial view measured seconds before
            # it; the median of those ratios is the figure (steadier than a ratio of medians
            # when other work on the machine comes and goes between rounds).
            ratios = sorted(r.rps / t.rps for r, t in zip(runs[name], floor_runs, strict=True))
            middle.ratio = ratios[len(ratios) // 2]
            # The server's CPU per request, as the trivial view's over this load's: what a
            # request costs, whatever else the machine is doing (the rate above is not).
            cpus = [r.cpu_us for r in runs[name] if r.cpu_us]
            middle.cpu_us = statistics.median(cpus) if cpus else None
            middle.note += "; rounds " + " / ".join(f"{r.rps:,.0f}" for r in runs[name])
            results.append(middle)

        say(
            f"phones: {PHONES} polling every {POLL_SECONDS} s for {3 * SECONDS} s, referees "
            f"recording deals meanwhile; {load()}"
        )
        polls, hall, seconds = asyncio.run(phones_run(setup, 3 * SECONDS))
        p50, p95, p99 = percentiles(polls.latencies)
        done = sum(polls.statuses.values())
        results.append(
            Result(
                f"{PHONES} phones polling (open loop)",
                done / seconds,
                p50 * 1000,
                p95 * 1000,
                p99 * 1000,
                polls.errors,
                done,
                f"{polls.statuses.get(304, 0) * 100 / max(done, 1):.0f}% 304; "
                f"{len(hall.acknowledged)} deals recorded meanwhile",
            )
        )

        say(
            f"referees: {len(setup.referees)} each recording a deal every {DEAL_EVERY:g} s "
            f"for {2 * SECONDS} s; {load()}"
        )
        paced, seconds = asyncio.run(referees_run(setup, 2 * SECONDS, every=DEAL_EVERY))
        p50, p95, p99 = percentiles(paced.latencies)
        results.append(
            Result(
                f"deals, {len(setup.referees)} referees, one each every {DEAL_EVERY:g} s",
                len(paced.latencies) / seconds,
                p50 * 1000,
                p95 * 1000,
                p99 * 1000,
                paced.errors,
                len(paced.latencies),
                f"{paced.refused} refused as stale (422); {paced.resends} resends",
            )
        )
        say(f"referees: {len(setup.referees)} as fast as answered for {2 * SECONDS} s; {load()}")
        deals, seconds = asyncio.run(referees_run(setup, 2 * SECONDS))
        p50, p95, p99 = percentiles(deals.latencies)
        results.append(
            Result(
                f"deals, {len(setup.referees)} referees as fast as answered",
                len(deals.latencies) / seconds,
                p50 * 1000,
                p95 * 1000,
                p99 * 1000,
                deals.errors,
                len(deals.latencies),
                f"{deals.refused} refused as stale (422); {deals.resends} resends",
            )
        )
        both = DealLog(acknowledged={**paced.acknowledged, **deals.acknowledged})
        both.resends = paced.resends + deals.resends
        ok, detail = exactly_once(setup, both)
    finally:
        stop_server(server)

    say()
    say(
        "| load | requests/s | p50 ms | p95 ms | p99 ms | errors | × trivial | "
        "server CPU µs/request | × trivial (CPU) | note |"
    )
    say("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    floor = results[0].rps
    floor_cpu = results[0].cpu_us
    for r in results:
        cpu = f"{r.cpu_us:,.0f}" if r.cpu_us else "—"
        by_cpu = f"{floor_cpu / r.cpu_us:.2f}" if r.cpu_us and floor_cpu else "—"
        say(
            f"| {r.name} | {r.rps:,.0f} | {r.p50:.1f} | {r.p95:.1f} | {r.p99:.1f} | "
            f"{r.errors} | {(r.ratio if r.ratio is not None else r.rps / floor):.2f} | "
            f"{cpu} | {by_cpu} | {r.note} |"
        )
    say()
    say(f"exactly once: {'yes' if ok else 'NO'} — {detail}")
    say(f"after the load: {load()} (other work on this machine shares its two cores)")

    say()
    say("offline figures:")
    bench_env = {"DATABASE_URL": DATABASE_URL.rsplit("/", 1)[0] + "/gc_bench_draws", "DEBUG": "1"}
    for line in run_script(["bench/draws.py"], bench_env):
        say(f"  {line}")
    for line in run_script(["bench/pdfs.py", "--bracket-only"], {"DEBUG": "1"}):
        say(f"  {line}")

    by = {r.name: r for r in results}
    phones, referees, flat_out = results[-3], results[-2], results[-1]

    def by_cpu(name: str) -> float:
        """The trivial view's server CPU per request over this load's (1.0: as cheap)."""
        cpu, floor = by[name].cpu_us, results[0].cpu_us
        return floor / cpu if cpu and floor else 0.0

    # Compared by the server's CPU per request, which the other work on a shared machine
    # moves far less than the rate.
    targets = [
        (
            "bracket page as phones fetch it (gzip) ≥ 0.9 × trivial (CPU)",
            by_cpu("bracket page (full, 256 teams)"),
            0.9,
        ),
        (
            "htmx poll 304 ≥ 0.95 × trivial (CPU)",
            by_cpu("304 path (bracket poll, ETag matches)"),
            0.95,
        ),
        (
            "bracket.json 304 ≥ 0.95 × trivial (CPU)",
            by_cpu("bracket.json 304 (ETag matches)"),
            0.95,
        ),
        (
            "bracket page, uncompressed, as close as can be (CPU)",
            by_cpu("bracket page, uncompressed"),
            0.5,
        ),
        (
            "htmx poll, changed, as close as can be (CPU)",
            by_cpu("bracket poll, changed (htmx, gzip)"),
            0.5,
        ),
    ]
    say()
    say("targets:")
    for what, got, need in targets:
        say(f"  {'met    ' if got >= need else 'NOT met'} {what}: {got:.2f}")
    met = phones.p95 < 100 and phones.errors == 0 and phones.rps >= 0.95 * PHONES / POLL_SECONDS
    say(
        f"  {'met    ' if met else 'NOT met'} {PHONES} phones at {PHONES // POLL_SECONDS}/s: "
        f"{phones.rps:.0f}/s, p95 {phones.p95:.1f} ms, {phones.errors} errors"
    )
    say(
        f"  {'met    ' if referees.p95 < 100 and referees.errors == 0 else 'NOT met'} deals from "
        f"{len(setup.referees)} referees at once, each every {DEAL_EVERY:g} s: p95 "
        f"{referees.p95:.1f} ms, {referees.errors} errors"
    )
    say(
        f"  {'met    ' if flat_out.p95 < 100 and flat_out.errors == 0 else 'NOT met'} deals from "
        f"{len(setup.referees)} referees each sending the next as soon as answered: p95 "
        f"{flat_out.p95:.1f} ms at {flat_out.rps:.0f} deals/s, {flat_out.errors} errors"
    )
    say(f"  {'met    ' if ok else 'NOT met'} every acknowledged deal in the database exactly once")
    shutil.rmtree(var_dir, ignore_errors=True)
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
