"""Two app servers as users run them: docker-compose.yml scales `web` (nothing fixes its
name, port or address), nginx's configuration (deploy/nginx/) parses, and its micro-cache
of the live polls never shares what belongs to one visitor: a logged-in user's page, a page
with a CSRF token, an answer that sets a cookie or says it is private."""

from __future__ import annotations

import http.client
import http.server
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve

ROOT = Path(settings.BASE_DIR)
NGINX_DIR = ROOT / "deploy" / "nginx"
sys.path.insert(0, str(ROOT / "bench"))
import front  # noqa: E402  (bench/front.py: nginx as the bench runs it)

COMPOSE_ENV = {"SECRET_KEY": "placeholder", "PATH": "/usr/bin:/bin"}
needs_compose = pytest.mark.skipif(
    not shutil.which("docker-compose"), reason="docker-compose not installed"
)
needs_nginx = pytest.mark.skipif(front.version() is None, reason="nginx not installed")


def _service(compose: str, name: str) -> str:
    """One service's lines of a compose file as `docker-compose config` writes it."""
    match = re.search(rf"^  {name}:\n((?:    .*\n|\s*\n)+)", compose, re.M)
    assert match, name
    return match.group(1)


# --------------------------------------------------------------------------- compose


@needs_compose
def test_compose_runs_web_scaled_to_two_behind_the_proxy(tmp_path):
    scaled = tmp_path / "scale.yml"
    scaled.write_text("services:\n  web:\n    scale: 2\n")
    result = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "-f", str(scaled), "config"],
        cwd=ROOT,
        env=COMPOSE_ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    web = _service(result.stdout, "web")
    assert "scale: 2" in web
    # What would stop a second replica: a fixed name, a host port, a fixed address.
    assert "container_name" not in web
    assert "ports:" not in web and "published" not in web
    assert "ipv4_address" not in web and "ipv6_address" not in web
    assert re.search(r"^    expose:\n    - '?8000'?$", web, re.M)
    # Replicas never race to migrate: the one-shot migrate service runs first.
    assert re.search(r"MIGRATE: '?0'?$", web, re.M)
    assert re.search(r"migrate:\n        condition: service_completed_successfully", web)
    assert "manage.py" in _service(result.stdout, "migrate")
    # nginx reads its configuration from the repository, read-only.
    proxy = _service(result.stdout, "proxy")
    # (docker-compose 1.x writes the short form; compose v2 the long one)
    short = re.search(r"- \S+/deploy/nginx:/etc/nginx/conf\.d:ro$", proxy, re.M)
    long = re.search(
        r"source: \S+/deploy/nginx\n\s+target: /etc/nginx/conf\.d\n(\s+\w+: .*\n)*?\s+read_only: true",
        proxy,
    )
    assert short or long, proxy
    assert "NGINX_CONF" not in result.stdout


def test_the_proxy_trusted_by_the_app_is_the_one_compose_names():
    compose = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    web, proxy = _service(compose, "web"), _service(compose, "proxy")
    address = re.search(r"ipv4_address: ([\d.]+)", proxy).group(1)
    for name in ("TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS"):
        assert re.search(rf"{name}: \"?{re.escape(address)}\"?$", web, re.M), name


def test_nginx_resolves_every_replica_of_web_again_and_again():
    site = (NGINX_DIR / "cup.conf").read_text()
    assert re.search(r"^resolver 127\.0\.0\.11 valid=10s\b", site, re.M)
    for name in front.POOLS:
        upstream = re.search(rf"upstream {name} \{{(.*?)\}}", site, re.S).group(1)
        assert re.search(rf"^\s*zone {name} \d+k;", upstream, re.M), name
        assert re.search(r"^\s*server web:8000 resolve[ ;]", upstream, re.M), name
        # The polls' fetches leave every app server threads for the writes and pages.
        limited = re.search(r"server web:8000 resolve max_conns=\d+;", upstream)
        assert bool(limited) == (name != "app"), name
    # TLS, and port 80 only redirects.
    assert "listen 443 ssl;" in site and "return 301 https://$host$request_uri;" in site
    proxy = (NGINX_DIR / "cup-proxy.inc").read_text()
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in proxy
    for path in NGINX_DIR.iterdir():
        assert "proxy_add_x_forwarded_for" not in path.read_text(), path.name


# --------------------------------------------------------------------------- nginx -t


def _site_for_this_nginx(tmp_path: Path) -> Path:
    """deploy/nginx copied under ``tmp_path``/conf.d with a wrapper nginx.conf like the
    image's (the site included inside http {}), a throwaway certificate and cache path.
    An nginx older than the image's (1.27) is told less: no ``http2 on`` (1.25.1) and no
    ``resolve`` (1.27.3), and `web` named by an address, as it cannot resolve it here."""
    if not shutil.which("openssl"):
        pytest.skip("openssl not installed")
    version = front.version()
    conf = tmp_path / "conf.d"
    conf.mkdir()
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-keyout",
            str(tmp_path / "cup.key"),
            "-out",
            str(tmp_path / "cup.crt"),
        ],
        check=True,
        capture_output=True,
    )
    for path in NGINX_DIR.iterdir():
        text = path.read_text()
        text = text.replace("/etc/nginx/certs/", f"{tmp_path}/").replace(
            "/var/cache/nginx/cup", f"{tmp_path}/cache"
        )
        if version < (1, 25, 1):
            text = text.replace("    http2 on;\n", "")
        if version < (1, 27, 3):
            text = text.replace("server web:8000 resolve", "server 127.0.0.1:8000")
        (conf / path.name).write_text(text)
    user = "user root;\n" if front.os.geteuid() == 0 else ""
    (tmp_path / "nginx.conf").write_text(
        f"{user}pid {tmp_path}/nginx.pid;\nevents {{}}\nhttp {{\n"
        f"    proxy_temp_path {tmp_path}/proxy;\n    client_body_temp_path {tmp_path}/body;\n"
        "    include conf.d/*.conf;\n}\n"
    )
    return tmp_path


@needs_nginx
def test_the_compose_site_parses(tmp_path):
    result = front.check(_site_for_this_nginx(tmp_path))
    assert result.returncode == 0, result.stderr


@needs_nginx
def test_the_bench_runs_the_same_rules(tmp_path):
    front.write_config(tmp_path, port=free_port(), upstreams=["127.0.0.1:1", "127.0.0.1:2"])
    result = front.check(tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "nginx.conf").read_text()
    assert "include conf.d/cup-http.inc;" in text and "include conf.d/cup-proxy.inc;" in text
    assert (tmp_path / "conf.d").resolve() == NGINX_DIR.resolve()


# --------------------------------------------------------------------------- the micro-cache


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Upstream(http.server.ThreadingHTTPServer):
    """An app stand-in that answers as the live views do (ETag, Cache-Control: no-cache,
    Vary) and counts what reaches it; ``?set-cookie`` and ``?cc=…`` change its answer."""

    daemon_threads = True

    def __init__(self):
        self.hits = 0
        self.failing = False
        super().__init__(("127.0.0.1", 0), UpstreamHandler)


class UpstreamHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.server.hits += 1
        if self.server.failing:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = f"answer {self.server.hits} for cookie={self.headers.get('Cookie')}".encode()
        self.send_response(200)
        self.send_header("ETag", '"v1"')
        # One header, as Django sends it.
        control = (
            self.path.split("cc=", 1)[1].replace("+", " ") if "cc=" in self.path else "no-cache"
        )
        self.send_header("Cache-Control", control)
        self.send_header("Vary", "HX-Request, Cookie, Accept-Encoding")
        if "set-cookie" in self.path:
            self.send_header("Set-Cookie", "csrftoken=abc; Path=/")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def proxied(tmp_path_factory):
    """nginx with the shared rules in front of :class:`Upstream`: get(path, headers); each
    of its upstreams (front.POOLS) a stand-in of its own, ``get.pools[name]``."""
    if front.version() is None:
        pytest.skip("nginx not installed")
    pools = {name: Upstream() for name in front.POOLS}
    for server in pools.values():
        threading.Thread(target=server.serve_forever, daemon=True).start()
    directory = tmp_path_factory.mktemp("nginx")
    port = free_port()
    front.write_config(
        directory,
        port=port,
        upstreams=[],
        pools={name: [f"127.0.0.1:{s.server_port}"] for name, s in pools.items()},
        access_log=True,
        # Room for the phones' test's first polls of pages nginx has no copy of yet.
        limits={"app_live": 64, "app_tables": 64},
    )
    proc = front.start(directory, port)

    def get(path, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        body = response.read().decode()
        conn.close()
        return response.status, response.headers, body

    get.upstream, get.pools = _All(*pools.values()), pools
    get.port, get.log = port, directory / "access.log"
    yield get
    front.stop(proc)
    for server in pools.values():
        server.shutdown()


class _All:
    """The stand-ins as one app: what reached any."""

    def __init__(self, *servers):
        self.servers = servers

    @property
    def hits(self) -> int:
        return sum(s.hits for s in self.servers)

    @property
    def failing(self) -> bool:
        return self.servers[0].failing

    @failing.setter
    def failing(self, value: bool) -> None:
        for s in self.servers:
            s.failing = value


HX = {"HX-Request": "true"}
_paths = iter(range(1, 10_000))


def live_path(tail="bracket/"):
    """A live page's address not asked for yet (each test its own copies)."""
    return f"/t/cup{next(_paths)}/pairs/{tail}"


def reaches_app(proxied, path, headers) -> int:
    before = proxied.upstream.hits
    proxied(path, headers)
    return proxied.upstream.hits - before


def test_a_fragment_is_answered_once_a_second_and_its_304_by_nginx(proxied):
    path = live_path()
    status, headers, first = proxied(path, HX)
    assert status == 200 and headers["X-Cache"] == "MISS"
    status, headers, again = proxied(path, HX)
    assert (status, headers["X-Cache"], again) == (200, "HIT", first)
    assert headers["ETag"] == '"v1"'
    assert reaches_app(proxied, path, {**HX, "If-None-Match": '"v1"'}) == 0
    assert proxied(path, {**HX, "If-None-Match": '"v1"'})[0] == 304
    time.sleep(1.2)
    # Stale after a second: the next answer comes from the app again.
    proxied(path, HX)
    deadline = time.time() + 5
    while proxied(path, HX)[2] == first and time.time() < deadline:
        time.sleep(0.1)
    assert proxied(path, HX)[2] != first


def test_when_the_app_fails_the_phones_get_the_copy_nginx_has(proxied):
    path = live_path()
    first = proxied(path, HX)[2]
    proxied.upstream.failing = True
    try:
        time.sleep(1.2)
        # Expired, the app answering 503: the copy, until the app answers again.
        seen = set()
        for _ in range(3):
            status, headers, body = proxied(path, HX)
            assert (status, body) == (200, first)
            seen.add(headers["X-Cache"])
            time.sleep(0.6)
        assert seen & {"STALE", "UPDATING"}, seen
        # A page nginx has no copy of: the app's own answer.
        assert proxied(live_path(), HX)[0] == 503
    finally:
        proxied.upstream.failing = False


def test_json_is_micro_cached_too(proxied):
    path = live_path("bracket.json")
    proxied(path)
    assert proxied(path)[1]["X-Cache"] == "HIT"
    path = live_path("matches/7.json")
    proxied(path)
    assert proxied(path)[1]["X-Cache"] == "HIT"


@pytest.mark.parametrize(
    "cookie",
    ["sessionid=s3cret", "csrftoken=x; sessionid=s3cret", "sessionid=", "messages=abc"],
)
def test_a_logged_in_users_page_is_never_cached(proxied, cookie):
    for tail in ("bracket/", "tables/3/", "bracket.json"):
        path = live_path(tail)
        status, headers, body = proxied(path, {**HX, "Cookie": cookie})
        assert headers["X-Cache"] == "BYPASS" and cookie in body
        # Not stored either: the next visitor without a session gets the app's own answer,
        # and a second request with the session goes to the app again.
        status, headers, anonymous = proxied(path, HX)
        assert headers["X-Cache"] == "MISS" and cookie not in anonymous
        assert reaches_app(proxied, path, {**HX, "Cookie": cookie}) == 1


def test_full_pages_are_never_cached_they_carry_the_visitors_csrf_token(proxied):
    path = live_path()
    for _ in range(2):
        assert proxied(path)[1]["X-Cache"] == "BYPASS"
    assert reaches_app(proxied, path, {}) == 1
    assert reaches_app(proxied, path, {"HX-Request": "false"}) == 1


@pytest.mark.parametrize(
    "query", ["set-cookie", "cc=private", "cc=no-store", "cc=max-age=0,+private"]
)
def test_answers_that_set_a_cookie_or_are_private_are_never_stored(proxied, query):
    path = f"{live_path()}?{query}"
    proxied(path, HX)
    assert reaches_app(proxied, path, HX) == 1


def test_the_copies_differ_by_language_htmx_and_gzip(proxied):
    path = live_path()
    proxied(path, HX)
    assert reaches_app(proxied, path, {**HX, "Cookie": "django_language=en"}) == 1
    assert reaches_app(proxied, path, {**HX, "Cookie": "django_language=en"}) == 0
    assert reaches_app(proxied, path, {**HX, "Accept-Encoding": "gzip, br"}) == 1
    assert reaches_app(proxied, path, {**HX, "Accept-Encoding": "br, gzip"}) == 0
    # Another visitor's CSRF cookie changes nothing the fragment says.
    assert reaches_app(proxied, path, {**HX, "Cookie": "csrftoken=other"}) == 0


def test_the_caches_fetches_go_through_the_few_connections_of_their_pool(proxied):
    """A visitor's own page (a session, a full page) goes to the app servers as any page
    does, never turned away because the polls' fetches used their share; the fetches of
    the pages thousands share and of a tie's or a table's each have a pool of their own."""
    cases = [
        ("bracket/", HX, "app_live"),
        ("bracket.json", {}, "app_live"),
        ("screen/", HX, "app_live"),
        ("tables/3/", HX, "app_tables"),
        ("matches/5/", HX, "app_tables"),
        ("matches/5.json", {}, "app_tables"),
        ("tables/3/", {}, "app"),
        ("bracket/", {}, "app"),
        ("tables/3/", {**HX, "Cookie": "sessionid=s3cret"}, "app"),
        ("bracket/", {**HX, "Cookie": "messages=abc"}, "app"),
        ("bracket.json", {"Authorization": "Basic eDp5"}, "app"),
    ]
    for tail, headers, where in cases:
        before = {name: s.hits for name, s in proxied.pools.items()}
        proxied(live_path(tail), headers)
        reached = {name for name, s in proxied.pools.items() if s.hits != before[name]}
        assert reached == {where}, (tail, headers)


def test_other_addresses_are_not_cached(proxied):
    for path in ("/t/cup/pairs/tables/3/deal/", "/accounts/login/", "/t/cup/", "/healthz"):
        proxied(path, HX)
        assert reaches_app(proxied, path, HX) == 1, path
        assert "X-Cache" not in proxied(path, HX)[1]


# --------------------------------------------------------------------------- what nginx may share


def _live_location() -> re.Pattern:
    text = (NGINX_DIR / "cup-proxy.inc").read_text()
    return re.compile(
        re.search(r"^location ~ (\S+) \{\n(?:.*\n)*?    proxy_cache ", text, re.M).group(1)
    )


def _live_response_wrapped(view) -> bool:
    while view is not None:
        if view.__code__.co_qualname == "live_response.<locals>.decorate.<locals>.wrapper":
            return True
        view = getattr(view, "__wrapped__", None)
    return False


def _sample_paths(patterns=None, prefix=""):
    """(path with sample arguments, view) of every URL of the project."""
    for p in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(p.pattern)
        if isinstance(p, URLResolver):
            yield from _sample_paths(p.url_patterns, route)
        elif isinstance(p, URLPattern):
            path = re.sub(r"<int:\w+>", "7", re.sub(r"<(slug:)?\w+>", "x", route))
            yield "/" + path.lstrip("^").rstrip("$"), p.callback


def test_nginx_caches_only_what_the_app_renders_alike_for_everyone():
    """Every address the micro-cache covers is a live_response view (one copy per version,
    language and htmx-or-not, the same for every visitor); every such view but the PNG is
    covered."""
    location = _live_location()
    covered = {path for path, _view in _sample_paths() if location.match(path)}
    assert covered, "the micro-cache covers no URL"
    for path in covered:
        assert _live_response_wrapped(resolve(path).func), path
    live = {path for path, view in _sample_paths() if _live_response_wrapped(view)}
    assert live - covered == {"/t/x/x/bracket.png"}


@pytest.mark.django_db
def test_what_nginx_shares_carries_no_visitors_token_nor_sets_a_cookie():
    """The htmx fragments and JSON of the live pages, asked by two visitors with their own
    CSRF cookies, are the same bytes and set no cookie: a shared copy is nobody's."""
    from tournaments.live.tests.test_http import make_event, open_tables, play_table

    event = make_event(8)
    table = play_table(open_tables(event)[0], deals=1)
    base = f"/t/{event.tournament.slug}/{event.slug}"
    paths = [
        (f"{base}/bracket/", True),
        (f"{base}/screen/", True),
        (f"{base}/matches/{table.match_id}/", True),
        (f"{base}/tables/{table.pk}/", True),
        (f"{base}/bracket.json", False),
        (f"{base}/matches/{table.match_id}.json", False),
    ]
    location = _live_location()
    for path, htmx in paths:
        assert location.match(path), path
        answers = []
        for token in ("a" * 32, "b" * 32):
            client = Client()
            client.cookies["csrftoken"] = token
            response = client.get(path, **({"HTTP_HX_REQUEST": "true"} if htmx else {}))
            assert response.status_code == 200, path
            assert "Set-Cookie" not in response.headers, path
            assert not response.cookies, path
            assert "csrfmiddlewaretoken" not in response.content.decode(), path
            answers.append(response.content)
        assert answers[0] == answers[1], path


# --------------------------------------------------------------------------- the bench's phones


def test_the_phones_poll_the_bracket_and_the_tables_at_their_pace(proxied):
    """bench/big_live.py's wrk script: its phones' polls at the period asked, the threads'
    shares on the bracket and on the tables' pages, some polls full pages."""
    import big_live_load

    if not shutil.which("wrk"):
        pytest.skip("wrk not installed")
    since = time.time()
    tables = [f"/t/cup/pairs/tables/{n}/" for n in range(1, 9)]
    phones = big_live_load.start_phones(
        port=proxied.port,
        bracket="/t/cup/pairs/bracket/",
        tables=tables,
        phones=40,
        bracket_share=0.6,
        seconds=4,
        period=0.5,
        full_share=0.25,
        threads=5,
    )
    result = phones.result()
    assert result["errors"] == 0, {
        k: result[k] for k in ("connect", "read", "write", "timeout", "status")
    }
    # 40 phones every 0.5 s, the first polls spread over the first period: ~70 a second.
    assert 0.6 * 80 < result["rps"] < 1.2 * 80, result
    time.sleep(1.5)  # nginx writes its log within a second (flush=1s)
    seen = big_live_load.read_access_log(
        proxied.log,
        {"bracket": lambda uri: uri.endswith("/bracket/"), "table": lambda uri: "/tables/" in uri},
        since,
    )
    bracket, table = (sum(seen[k]["statuses"].values()) for k in ("bracket", "table"))
    # 3 of the 5 threads (24 phones) on the bracket, 2 (16) each poll on a random table.
    assert 0.45 < bracket / (bracket + table) < 0.75
    full = seen["bracket"]["statuses"].get("BYPASS", 0) + seen["table"]["statuses"].get("BYPASS", 0)
    assert 0.1 < full / (bracket + table) < 0.4


def test_the_bench_reads_nginxs_log_apart_from_its_refreshes(tmp_path):
    import big_live_load

    log = tmp_path / "access.log"
    log.write_text(
        "100.0 MISS 200 0.010 /t/a/b/bracket/ 127.0.0.1:8104\n"  # before the window
        "200.0 MISS 200 0.020 /t/a/b/bracket/ 127.0.0.1:8104\n"
        "200.1 HIT 200 0.000 /t/a/b/bracket/ -\n"
        "201.2 EXPIRED 200 0.400 /t/a/b/bracket/ 127.0.0.1:8105\n"  # a background refresh
        "201.2 STALE 200 0.001 /t/a/b/bracket/ -\n"
        "202.3 EXPIRED 502 0.000 /t/a/b/tables/3/ app_tables\n"  # held back: pool busy
        "202.3 STALE 200 0.001 /t/a/b/tables/3/ -\n"
        "202.4 BYPASS 200 0.050 /t/a/b/bracket/ 127.0.0.1:8104, 127.0.0.1:8105\n"
    )
    seen = big_live_load.read_access_log(
        log, {"bracket": lambda u: u.endswith("/bracket/"), "table": lambda u: "/tables/" in u}, 150
    )
    assert seen["bracket"]["statuses"] == {"MISS": 1, "HIT": 1, "STALE": 1, "BYPASS": 1}
    assert seen["bracket"]["refreshes"] == 2 and seen["bracket"]["held"] == 0
    assert seen["bracket"]["times"] == [0.02, 0.0, 0.001, 0.05]
    assert seen["table"] == {
        "statuses": {"STALE": 1},
        "codes": {"200": 1},
        "times": [0.001],
        "servers": {"app_tables": 1},
        "refreshes": 0,
        "held": 1,
    }


def test_the_live_run_answers_bench_bigs_call_with_its_rows(tmp_path):
    """bench/big.py calls run_live(database_url=…, tournament=…, event=…, round_number=…)
    and prints the rows it returns, (what, figure, target, met); the verdicts follow the
    figures."""
    import inspect

    import big_live
    from big_live_report import LiveRun, report
    from live_load import DealLog

    inspect.signature(big_live.run_live).bind(
        database_url="postgres://x/y", tournament="big-day", event="pairs", round_number=7
    )
    log = tmp_path / "access.log"
    log.write_text(
        "1.0 HIT 200 0.000 /t/a/b/bracket/ -\n"
        "1.1 EXPIRED 200 0.400 /t/a/b/bracket/ 127.0.0.1:8104\n"
        "1.2 STALE 200 0.001 /t/a/b/tables/3/ -\n"
        "1.3 - 200 0.030 /t/a/b/tables/3/deal/ 127.0.0.1:8105\n"
    )

    def rows(p95_ms, poll_errors, rps, deal_seconds, deals_made, once):
        polls = {"requests": 20_000, "rps": rps, "p50": 5_000, "p95": p95_ms * 1000}
        polls |= {"p99": 2 * p95_ms * 1000, "errors": poll_errors, "timeout": poll_errors}
        polls |= {"status": 0, "connect": 0, "read": 0, "write": 0}
        deals = DealLog(latencies=[deal_seconds] * deals_made, acknowledged={(3, "k"): True})
        run = LiveRun(seconds=10.0, cpu={"wrk (the phones)": 2.0}, machine_cpu=15.0)
        run.exactly_once = once
        report(run, polls, deals, log, "/t/a/b", 10_000, 1024, 85.0, 0.8, 0.0)
        summary = run.summary()
        assert all(len(r) == 4 and all(isinstance(x, str) for x in r) for r in summary)
        assert "exactly once" in "\n".join(run.markdown())
        return {what: met for what, _figure, _target, met in summary}

    good = rows(30, poll_errors=0, rps=2_000, deal_seconds=0.05, deals_made=120, once=True)
    assert [met for met in good.values() if met != "—"] == ["met"] * 6
    bad = rows(300, poll_errors=5, rps=1_500, deal_seconds=0.5, deals_made=60, once=False)
    assert [met for met in bad.values() if met != "—"] == ["NOT met"] * 6
