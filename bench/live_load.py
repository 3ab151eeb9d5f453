"""`make bench` (bench/live.py): the load it puts on the server — wrk, the phones' polls, the
referees' deals — and the checks of what was recorded."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from live_setup import (  # noqa: E402
    BASE,
    HOST,
    PHONES,
    POLL_SECONDS,
    PORT,
    PY,
    ROOT,
    SECONDS,
    WRK_CONNECTIONS,
    WRK_THREADS,
    E,
    Referee,
    Setup,
    T,
    server_cpu_seconds,
)

WRK_LUA = r"""
function done(summary, latency, requests)
  io.write(string.format(
    'WRK {"requests":%d,"duration_us":%d,"bytes":%d,"p50":%d,"p95":%d,"p99":%d,' ..
    '"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}\n',
    summary.requests, summary.duration, summary.bytes,
    latency:percentile(50), latency:percentile(95), latency:percentile(99),
    summary.errors.connect, summary.errors.read, summary.errors.write,
    summary.errors.timeout, summary.errors.status))
end
"""


@dataclass
class Result:
    name: str
    rps: float
    p50: float  # ms
    p95: float
    p99: float
    errors: int
    requests: int
    note: str = ""
    ratio: float | None = None  # to the trivial view, from the same rounds
    cpu_us: float | None = None  # the server's CPU time per request, in microseconds


def wrk(name: str, path: str, headers: dict | None = None, seconds: int = SECONDS) -> Result:
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(WRK_LUA)
    args = ["wrk", f"-t{WRK_THREADS}", f"-c{WRK_CONNECTIONS}", f"-d{seconds}s", "--timeout", "10s"]
    for k, v in (headers or {}).items():
        args += ["-H", f"{k}: {v}"]
    cpu_before = server_cpu_seconds()
    out = subprocess.run(
        [*args, "-s", str(script), BASE + path], capture_output=True, text=True, check=True
    ).stdout
    cpu_after = server_cpu_seconds()
    script.unlink()
    data = json.loads(next(line[4:] for line in out.splitlines() if line.startswith("WRK ")))
    errors = sum(data[k] for k in ("connect", "read", "write", "timeout", "status"))
    return Result(
        name,
        data["requests"] / (data["duration_us"] / 1e6),
        data["p50"] / 1000,
        data["p95"] / 1000,
        data["p99"] / 1000,
        errors,
        data["requests"],
        f"{data['bytes'] / max(data['requests'], 1) / 1024:.1f} KB/response",
        cpu_us=(
            (cpu_after - cpu_before) * 1e6 / data["requests"]
            if cpu_before is not None and data["requests"]
            else None
        ),
    )


# --------------------------------------------------------------------------- a small HTTP client


class Conn:
    """One keep-alive HTTP/1.1 connection (a phone, a referee's tablet) to ``port``."""

    def __init__(self, port: int = PORT):
        self.reader = self.writer = None
        self.port = port

    async def close(self):
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None

    async def request(self, method: str, path: str, headers: dict, body: bytes = b""):
        for attempt in (1, 2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
            head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{self.port}\r\n"
            head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            head += f"Content-Length: {len(body)}\r\n\r\n"
            try:
                self.writer.write(head.encode("latin-1") + body)
                await self.writer.drain()
                return await self._read()
            except (ConnectionError, asyncio.IncompleteReadError, ValueError):
                # The server closed an idle keep-alive connection: open a new one and send
                # again (a deal carries its idempotency key: a resend is recorded once).
                await self.close()
                if attempt == 2:
                    raise

    async def _read(self):
        line = await self.reader.readline()
        if not line:
            raise ConnectionError("closed")
        status = int(line.split()[1])
        headers = {}
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            k, v = line.decode("latin-1").split(":", 1)
            headers[k.strip().lower()] = v.strip()
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while True:
                size = int((await self.reader.readline()).strip(), 16)
                if size == 0:
                    await self.reader.readline()
                    break
                body += await self.reader.readexactly(size)
                await self.reader.readline()
        else:
            body = await self.reader.readexactly(int(headers.get("content-length", 0)))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return status, headers, body


def percentiles(latencies: list[float]) -> tuple[float, float, float]:
    if not latencies:
        return 0.0, 0.0, 0.0
    q = statistics.quantiles(latencies, n=100, method="inclusive")
    return q[49], q[94], q[98]


VERSION_RE = re.compile(rb'id="table-panel"[^>]*data-version="(\d+)" data-over="([01])"')


@dataclass
class DealLog:
    latencies: list = field(default_factory=list)
    acknowledged: dict = field(default_factory=dict)  # (table, key) -> acknowledged
    resends: int = 0
    errors: int = 0
    refused: int = 0  # 422: the table version moved (another device), told to reload
    failed: dict = field(default_factory=dict)  # what the errors were: HTTP status or "socket"


def _deal_headers(ref: Referee) -> dict:
    return {
        "Cookie": f"sessionid={ref.session}; csrftoken={ref.csrf}",
        "X-CSRFToken": ref.csrf,
        "HX-Request": "true",
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept-Encoding": "identity",
    }


async def referee_loop(
    ref: Referee,
    log: DealLog,
    until: float,
    rng: random.Random,
    pace=0.0,
    every=0.0,
    port: int = PORT,
    event: tuple[str, str] = (T, E),
    versions: dict | None = None,
):
    """Record deals on the referee's tables until time is up: one tap, wait for the answer,
    next tap (after ``pace`` seconds, or at the next multiple of ``every`` seconds from a
    random start — then latency counts from that moment, even if the last answer was
    late). Now and then the same deal is sent again, as a phone does when the answer to a
    deal was lost. ``port``: where to send (the app, or a proxy in front); ``event``: the
    tournament's and event's slugs; ``versions``: the tables' versions the tablet has seen
    (their pages open), else its first deal on a table is refused and tells it."""
    conn = Conn(port)
    headers = _deal_headers(ref)
    tables = list(ref.tables)
    versions = dict(versions or {})
    due = time.perf_counter() + rng.uniform(0, every) if every else 0.0
    while tables and time.perf_counter() < until:
        if every:
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
        table = tables[0]
        key = uuid.uuid4().hex
        choice = rng.choice(["A2", "A3", "A4", "B2", "B3", "B4"])
        form = {"deal": choice, "key": key}
        if table in versions:
            form["version"] = str(versions[table])
        body = urllib.parse.urlencode(form).encode()
        path = f"/t/{event[0]}/{event[1]}/tables/{table}/deal/"
        sends = 2 if rng.random() < 0.05 else 1
        for send in range(sends):
            started = due if every and not send else time.perf_counter()
            try:
                status, _h, content = await conn.request("POST", path, headers, body)
            except (OSError, asyncio.IncompleteReadError, ValueError):
                log.errors += 1
                log.failed["socket"] = log.failed.get("socket", 0) + 1
                await conn.close()
                continue
            log.latencies.append(time.perf_counter() - started)
            if send:
                log.resends += 1
            found = VERSION_RE.search(content)
            if status == 200 and found:
                log.acknowledged[(table, key)] = True
                versions[table] = int(found.group(1))
                if found.group(2) == b"1":
                    tables.pop(0)  # the table is over: on to the referee's next one
                    break
            elif status == 422:
                log.refused += 1
                versions.pop(table, None)
                if found:
                    versions[table] = int(found.group(1))
                    if found.group(2) == b"1":
                        tables.pop(0)
                        break
            else:
                log.errors += 1
                log.failed[status] = log.failed.get(status, 0) + 1
        if pace:
            await asyncio.sleep(pace)
        due += every
    await conn.close()


async def referees_run(setup: Setup, seconds: float, every: float = 0.0):
    log = DealLog()
    until = time.perf_counter() + seconds
    rng = random.Random(7 if every else 8)
    start = time.perf_counter()
    await asyncio.gather(
        *(
            referee_loop(r, log, until, random.Random(rng.random()), every=every)
            for r in setup.referees
        )
    )
    return log, time.perf_counter() - start


@dataclass
class PollLog:
    latencies: list = field(default_factory=list)
    statuses: dict = field(default_factory=dict)
    errors: int = 0
    late: int = 0


async def phone(path: str, offset: float, end: float, log: PollLog, t0: float):
    """A phone on the bracket page: polls every 5 s with the ETag of its last answer."""
    conn = Conn()
    etag = None
    when = t0 + offset
    while when < end:
        delay = when - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        else:
            log.late += 1
        headers = {"HX-Request": "true", "Accept-Encoding": "gzip, deflate, br"}
        if etag:
            headers["If-None-Match"] = etag
        try:
            status, h, _body = await conn.request("GET", path, headers)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            log.errors += 1
            await conn.close()
        else:
            # From the moment the poll was due: a slow client counts against the server.
            log.latencies.append(time.perf_counter() - when)
            log.statuses[status] = log.statuses.get(status, 0) + 1
            if status not in (200, 304):
                log.errors += 1
            etag = h.get("etag", etag)
        when += POLL_SECONDS
    await conn.close()


async def phones_run(setup: Setup, seconds: float) -> tuple[PollLog, DealLog, float]:
    log = PollLog()
    hall = DealLog()
    t0 = time.perf_counter() + 1
    end = t0 + seconds
    rng = random.Random(11)
    path = f"/t/{T}/{E}/bracket/"
    tasks = [phone(path, rng.uniform(0, POLL_SECONDS), end, log, t0) for _ in range(PHONES)]
    # Referees keep recording deals in the hall meanwhile (about two a second), so the
    # bracket's version keeps changing under the phones.
    tasks.append(referee_loop(setup.writer, hall, end, random.Random(3), pace=0.5))
    await asyncio.gather(*tasks)
    return log, hall, seconds


# --------------------------------------------------------------------------- checks


def exactly_once(setup: Setup, log: DealLog) -> tuple[bool, str]:
    """Every deal the server acknowledged is in the database once; none twice."""
    import django  # noqa: F401 - set up by build_event
    from django.db import connection
    from django.db.models import Count

    from scoring.models import TableEvent

    connection.close()
    tables = {t for r in setup.referees for t in r.tables}
    rows = TableEvent.objects.filter(table_id__in=tables)
    stored = {(t, k) for t, k in rows.values_list("table_id", "key")}
    missing = [k for k in log.acknowledged if k not in stored]
    twice = list(rows.values("table_id", "key").annotate(n=Count("id")).filter(n__gt=1)[:5])
    extra = len(stored) - len(set(log.acknowledged) & stored)
    ok = not missing and not twice
    return ok, (
        f"{len(log.acknowledged)} deals acknowledged, {len(stored)} stored for these tables, "
        f"{len(missing)} missing, {len(twice)} stored twice, {extra} stored without an answer "
        f"(a resend's first copy answered late counts here), {log.resends} resends"
    )


# --------------------------------------------------------------------------- main


def run_script(args: list[str], env: dict) -> list[str]:
    out = subprocess.run(
        [PY, *args], cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True
    )
    if out.returncode != 0:
        return [f"{args[0]} failed: {out.stderr.strip().splitlines()[-1:]}"]
    return [line for line in out.stdout.splitlines() if line.strip()]
