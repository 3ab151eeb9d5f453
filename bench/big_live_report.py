"""bench/big_live.py's figures: what a run measured (LiveRun) and how they are read from
wrk's summary, the tablets' log and nginx's access log — the rows bench/big.py prints among
its own, and the tables of the whole run."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from big_live_load import TABLETS, quantiles_ms, read_access_log
from live_load import percentiles

POLL_SECONDS = 5
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
    verdicts: list = field(default_factory=list)  # (what, figure, target, met)

    def summary(self) -> list[tuple[str, str, str, str]]:
        """The rows of bench/big.py's table: (what, figure, target, met)."""
        return list(self.verdicts)

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
        lines += ["", "targets:"]
        lines += [
            f"  {met:7} {what}: {figure} (target {target})"
            for what, figure, target, met in self.verdicts
            if target != "—"
        ]
        return lines


def report(run, polls, deals, log: Path, base, phones, tables, every, bracket_share, since):
    """Fill ``run``'s rows, facts and verdicts from wrk's summary (``polls``), the tablets'
    ``deals``, nginx's access ``log`` (the requests after ``since``) and the CPU already in
    ``run``."""
    seen = read_access_log(
        log,
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
    ages: dict = {}
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
        ages[kind] = every_copy
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
    phones_row, deal_row = run.rows[0], run.rows[-1]
    hall = tables / every
    other = max(run.machine_cpu - sum(run.cpu.values()), 0.0)

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    run.verdicts += [
        (
            f"live: {phones:,} phones polling every {POLL_SECONDS} s through nginx, p95 (p50, p99)",
            f"{phones_row[3]:.1f} ms ({phones_row[2]:.1f}, {phones_row[4]:.1f})",
            f"< {TARGET_P95_MS} ms",
            met(phones_row[3] < TARGET_P95_MS),
        ),
        (
            "live: … the polls that failed",
            f"{phones_row[5]:,} of {polls['requests']:,}",
            "0",
            met(phones_row[5] == 0),
        ),
        (
            "live: … polls a second (answered from nginx's micro-cache)",
            f"{phones_row[1]:,.0f} ({share:.0f} %)",
            f"≥ {0.95 * phones / POLL_SECONDS:,.0f}",
            met(phones_row[1] >= 0.95 * phones / POLL_SECONDS),
        ),
        (
            f"live: deals from {tables:,} tables at a hall's {hall:.1f}/s, p95 (p50, p99)",
            f"{deal_row[3]:,.0f} ms ({deal_row[2]:,.0f}, {deal_row[4]:,.0f})",
            f"< {TARGET_P95_MS} ms",
            met(deal_row[3] < TARGET_P95_MS),
        ),
        (
            "live: … deals a second, failed",
            f"{deal_row[1]:.1f}, {deal_row[5]:,}",
            f"≥ {0.9 * hall:.1f}, 0",
            met(deal_row[1] >= 0.9 * hall and deal_row[5] == 0),
        ),
        (
            "live: every acknowledged deal in the database exactly once",
            f"{'yes' if run.exactly_once else 'NO'} ({len(deals.acknowledged):,} deals, "
            f"{deals.resends} resends)",
            "yes",
            met(run.exactly_once),
        ),
        (
            "live: how old a copy got: the bracket's (a table's)",
            f"{ages.get('bracket', 0):,.1f} s ({ages.get('table', 0):,.0f} s)",
            "—",
            "—",
        ),
        (
            "live: the load generator's CPU: wrk (the tablets)",
            f"{wrk_cpu / run.seconds:.2f} cores ({run.cpu.get(TABLETS, 0.0) / run.seconds:.2f})",
            "—",
            "—",
        ),
        (
            "live: other work on this machine meanwhile",
            f"{other / run.seconds:.2f} cores",
            "—",
            "—",
        ),
    ]
