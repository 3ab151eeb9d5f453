"""bench/big_live.py's load: 10,000 phones polling through nginx (wrk with a Lua script: one
C process, its threads each a share of the phones, so the generator does not take the cores
it measures), what the processes on the machine spent, and nginx's own account of the
answers (its access log: the micro-cache's hits and its time per request)."""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from front import raise_files_limit
from live_load import WRK_LUA
from live_setup import CSRF_COOKIE, HOST, sessions_cpu_seconds

# Each wrk thread's Lua state is its own: setup() gives each thread its kind of phone and
# how many connections (phones) it has; delay() spreads the first polls over one period
# (the phones did not all open the page in the same second) and then waits a period,
# ±5 %, between a phone's answer and its next poll (htmx's `every 5s`).
PHONES_LUA = r"""
local pages = TABLE_LIST
local made = 0
function setup(thread)
  made = made + 1
  thread:set("kind", made <= BRACKET_THREADS and "bracket" or "tables")
  thread:set("number", made)
end
local polls = 0
function init(args)
  math.randomseed(number * 7919)
  phones = tonumber(args[1])
end
function delay()
  polls = polls + 1
  if polls <= phones then return math.random(0, PERIOD_MS) end
  return math.random(PERIOD_LOW, PERIOD_HIGH)
end
local fragment = {["HX-Request"] = "true", ["Accept-Encoding"] = "gzip, deflate, br",
                  ["Cookie"] = "csrftoken=CSRF"}
local page = {["Accept-Encoding"] = "gzip, deflate, br", ["Cookie"] = "csrftoken=CSRF"}
function request()
  local path = BRACKET
  if kind == "tables" then path = pages[math.random(#pages)] end
  if math.random() < FULL_SHARE then return wrk.format("GET", path, page) end
  return wrk.format("GET", path, fragment)
end
"""


@dataclass
class Phones:
    """The wrk run: its process, its script, and what it was asked for."""

    proc: subprocess.Popen
    script: Path
    phones: int
    seconds: float

    def result(self) -> dict:
        out, err = self.proc.communicate()
        self.script.unlink(missing_ok=True)
        line = next((x for x in out.splitlines() if x.startswith("WRK ")), None)
        if line is None:
            raise RuntimeError(f"wrk gave no summary: {err.strip() or out.strip()}")
        data = json.loads(line[4:])
        data["errors"] = sum(data[k] for k in ("connect", "read", "write", "timeout", "status"))
        data["rps"] = data["requests"] / (data["duration_us"] / 1e6)
        return data


def start_phones(
    *,
    port: int,
    bracket: str,
    tables: list[str],
    phones: int,
    bracket_share: float,
    seconds: float,
    period: float,
    full_share: float,
    threads: int = 5,
) -> Phones:
    """wrk with ``phones`` connections over ``threads`` threads, ``bracket_share`` of the
    threads on the bracket and the others each poll on a random table's page; every poll
    an htmx fragment, but ``full_share`` of them the full page (a phone opening it)."""
    bracket_threads = max(1, min(threads - 1, round(threads * bracket_share)))
    per_thread = phones // threads
    lua = (
        PHONES_LUA.replace("BRACKET_THREADS", str(bracket_threads))
        .replace("PERIOD_MS", str(int(period * 1000)))
        .replace("PERIOD_LOW", str(int(period * 950)))
        .replace("PERIOD_HIGH", str(int(period * 1050)))
        .replace("FULL_SHARE", repr(full_share))
        .replace("CSRF", CSRF_COOKIE)
        .replace("TABLE_LIST", "{" + ",".join(f'"{t}"' for t in tables) + "}")
        .replace("BRACKET", f'"{bracket}"')
    )
    script = Path(tempfile.mkstemp(prefix="gc-phones-", suffix=".lua")[1])
    script.write_text(lua + WRK_LUA)
    args = ["wrk", f"-t{threads}", f"-c{per_thread * threads}", f"-d{int(seconds)}s"]
    args += ["--timeout", "10s", "-s", str(script), f"http://{HOST}:{port}/", "--"]
    proc = subprocess.Popen(
        [*args, str(per_thread)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=raise_files_limit,
    )
    return Phones(proc, script, per_thread * threads, seconds)


# --------------------------------------------------------------------------- CPU


def _named_cpu_seconds(names: tuple[str, ...]) -> dict[str, float]:
    """CPU time so far of every process called one of ``names`` (PostgreSQL's backends,
    Redis): theirs for all databases on this machine, not only the bench's."""
    ticks = dict.fromkeys(names, 0)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                text = f.read()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        if name in ticks:
            # With the reaped children's time: PostgreSQL's backends end with their
            # connections, and their time goes to the postmaster's account.
            ticks[name] += sum(int(v) for v in text.rsplit(")", 1)[1].split()[11:15])
    return {n: t / os.sysconf("SC_CLK_TCK") for n, t in ticks.items()}


TABLETS = "this process (the referees' tablets)"


@dataclass
class CpuMeter:
    """CPU seconds spent between start() and stop(), per part of the machine."""

    sessions: dict  # label -> session id (a process started with start_new_session)
    before: dict = field(default_factory=dict)
    spent: dict = field(default_factory=dict)

    def _now(self) -> dict:
        by_session = sessions_cpu_seconds(self.sessions.values())
        now = {label: by_session.get(sid, 0.0) for label, sid in self.sessions.items()}
        own = resource.getrusage(resource.RUSAGE_SELF)
        now[TABLETS] = own.ru_utime + own.ru_stime
        named = _named_cpu_seconds(("postgres", "redis-server"))
        now["PostgreSQL (every database here)"] = named["postgres"]
        now["Redis (every database here)"] = named["redis-server"]
        return now

    def start(self) -> None:
        self.before = self._now()

    def add(self, label: str, session: int) -> None:
        self.sessions[label] = session
        self.before.setdefault(label, 0.0)

    def stop(self) -> dict:
        after = self._now()
        self.spent = {k: after[k] - self.before.get(k, 0.0) for k in after}
        return self.spent

    def add_spent(self, label: str, seconds: float) -> None:
        """A process that ended during the run (wrk): its own account."""
        self.spent[label] = seconds


def machine_cpu_seconds() -> float:
    """All the machine's CPU time so far (every core), from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds() -> float:
    """CPU of this process's reaped children (wrk, once waited for)."""
    own = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime


# --------------------------------------------------------------------------- nginx's log


def read_access_log(path: Path, kinds: dict, since: float) -> dict:
    """{kind: {"statuses": {cache status: n}, "codes": {HTTP status: n}, "times": [s],
    "servers": {app server: n}, "refreshes": n, "held": n}} from bench/front.py's log
    format: the requests that ended after ``since`` (a Unix time), sorted by ``kinds``
    (name -> predicate on the URI); "refreshes" counts what the micro-cache fetched from
    the app, "held" the fetches their pool's limit turned back."""
    seen: dict = {}
    if not path.exists():
        return seen
    for line in path.read_text().splitlines():
        parts = line.split(" ", 5)
        if len(parts) != 6 or float(parts[0]) < since:
            continue
        _when, cache, status, took, uri, server = parts
        kind = next((k for k, test in kinds.items() if test(uri)), "other")
        entry = seen.setdefault(
            kind,
            {"statuses": {}, "codes": {}, "times": [], "servers": {}, "refreshes": 0, "held": 0},
        )
        if server != "-":
            entry["servers"][server] = entry["servers"].get(server, 0) + 1
        # A fetch into the micro-cache that never reached an app server: every connection
        # nginx allows its pool (app_live, app_tables) was busy (logged with the pool's name).
        held = server in ("app_live", "app_tables")
        if cache == "EXPIRED":
            # A background refresh of an expired copy (its poll was answered STALE or
            # UPDATING and is logged apart): the app's work, not a phone's wait.
            entry["held" if held else "refreshes"] += 1
            continue
        entry["refreshes"] += cache == "MISS" and not held
        entry["statuses"][cache] = entry["statuses"].get(cache, 0) + 1
        entry["codes"][status] = entry["codes"].get(status, 0) + 1
        entry["times"].append(float(took))
    return seen


def quantiles_ms(times: list[float]) -> tuple[float, float, float]:
    if len(times) < 2:
        return (times[0] * 1000,) * 3 if times else (0.0, 0.0, 0.0)
    q = statistics.quantiles(times, n=100, method="inclusive")
    return q[49] * 1000, q[94] * 1000, q[98] * 1000
