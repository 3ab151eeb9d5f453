"""nginx in front of app servers on this machine, as docker-compose.yml runs it: the same
proxy rules (deploy/nginx/cup-http.inc, cup-proxy.inc), without containers, TLS or Docker's
DNS. bench/big_live.py runs its two-server day through it; tests/test_deploy.py checks the
rules with it.

The directory it is given holds everything nginx writes (pid, logs, temporary files, the
micro-cache), and ``conf.d`` links to deploy/nginx, so the includes are found by the same
relative names as in the container (/etc/nginx/conf.d/…).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE = ROOT / "deploy" / "nginx"

CONFIG = """\
{user}worker_processes {workers};
worker_rlimit_nofile {files};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{
    worker_connections {connections};
}}
http {{
    {access_log}
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include conf.d/cup-http.inc;
    proxy_cache_path {dir}/cache levels=1:2 keys_zone=cup_micro:10m max_size=256m inactive=10m use_temp_path=off;
{upstreams}
    server {{
        listen {host}:{port} backlog=16384;
        include conf.d/cup-proxy.inc;
    }}
}}
"""
# The upstreams cup-http.inc names, and the connections each of the polls' pools may have
# to one app server here: a quarter and an eighth of the bench's 2 workers × 4 threads.
POOLS = ("app", "app_live", "app_tables")
LIMITS = {"app_live": 2, "app_tables": 1}
# What the bench reads back from the access log: when, the cache's answer, nginx's own time
# and which app server answered (nothing when the cache did).
LOG_FORMAT = "'$msec $upstream_cache_status $status $request_time $uri $upstream_addr'"


def nginx() -> str | None:
    """The nginx binary (Debian puts it in /usr/sbin, outside a user's PATH), or None."""
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None
    )


def version() -> tuple[int, ...] | None:
    """The installed nginx's version, or None when there is none."""
    binary = nginx()
    if binary is None:
        return None
    out = subprocess.run([binary, "-v"], capture_output=True, text=True).stderr
    found = re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", out)
    return tuple(int(n) for n in found.groups()) if found else None


def write_config(
    directory: Path,
    *,
    port: int,
    upstreams: list[str],
    host: str = "127.0.0.1",
    workers: int = 1,
    connections: int = 4096,
    access_log: bool = False,
    limits: dict | None = None,
    pools: dict | None = None,
) -> Path:
    """``directory``/nginx.conf: the shared rules, listening on ``host``:``port`` (plain
    HTTP), passing to ``upstreams`` (host:port each): the upstreams cup-http.inc names,
    app_live and app_tables with at most ``limits`` connections to each server (as
    deploy/nginx/cup.conf says why); ``pools`` gives one of them other servers (tests)."""
    limits = {**LIMITS, **(limits or {})}
    blocks = []
    for name in POOLS:
        limit = f" max_conns={limits[name]}" if name in limits else ""
        servers = "".join(
            f"\n        server {u}{limit};" for u in (pools or {}).get(name, upstreams)
        )
        keepalive = 4 * limits[name] if name in limits else 32
        blocks.append(
            f"    upstream {name} {{\n        zone {name} 64k;{servers}\n"
            f"        keepalive {keepalive};\n    }}"
        )
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    link = directory / "conf.d"
    if not link.exists():
        link.symlink_to(SITE, target_is_directory=True)
    # The micro-cache's background refreshes are subrequests: logged too (as EXPIRED).
    log = (
        f"log_format cup {LOG_FORMAT};\n    access_log {directory}/access.log cup buffer=256k flush=1s;"
        "\n    log_subrequest on;"
        if access_log
        else "access_log off;"
    )
    text = CONFIG.format(
        # As root the workers would run as nobody, who cannot enter a private temp dir.
        user="user root;\n" if os.geteuid() == 0 else "",
        workers=workers,
        files=max(2 * connections + 64, 1024),
        connections=connections,
        dir=directory,
        access_log=log,
        upstreams="\n".join(blocks),
        host=host,
        port=port,
    )
    path = directory / "nginx.conf"
    path.write_text(text)
    return path


def check(directory: Path) -> subprocess.CompletedProcess:
    """``nginx -t`` on ``directory``/nginx.conf."""
    return subprocess.run([*_nginx(directory), "-t"], capture_output=True, text=True)


def _nginx(directory: Path) -> list[str]:
    """nginx with ``directory`` as its prefix, its configuration and its error log."""
    return [
        nginx(),
        "-p",
        f"{directory}/",
        "-c",
        f"{directory}/nginx.conf",
        "-e",
        f"{directory}/error.log",
    ]


def raise_files_limit() -> None:
    """As many open files as the hard limit allows (up to 65,536): a connection a phone."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def start(directory: Path, port: int, host: str = "127.0.0.1") -> subprocess.Popen:
    """Run nginx on ``directory``/nginx.conf in the foreground (its own session, so its
    CPU can be counted apart) until :func:`stop`; returns once it accepts connections."""
    import socket

    proc = subprocess.Popen(
        [*_nginx(directory), "-g", "daemon off;"],
        start_new_session=True,
        preexec_fn=raise_files_limit,
    )
    deadline = time.time() + 10
    while time.time() < deadline:
        if proc.poll() is not None:
            log = Path(directory, "error.log")
            raise RuntimeError(f"nginx exited: {log.read_text() if log.exists() else ''}")
        try:
            socket.create_connection((host, port), timeout=0.5).close()
            return proc
        except OSError:
            time.sleep(0.05)
    stop(proc)
    raise RuntimeError("nginx did not listen within 10 s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGQUIT)  # graceful: the access log's buffer is written
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
