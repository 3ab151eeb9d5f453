"""Gunicorn settings for production and the benchmarks:

    gunicorn -c gunicorn.conf.py guandan_cup.wsgi

Workers default to two per CPU plus one, each with a few threads (the gthread worker keeps
phones' connections alive between polls and overlaps database waits). Every value can be
set from the environment; nothing here is machine-specific.
"""

import os
import re


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Loopback unless told: a proxy on this host reaches it, nobody else does. The Docker image
# sets 0.0.0.0:8000 (the compose network, no published port); a second server binds its
# private address, with a firewall that lets only the proxy in (README).
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY") or 2 * _cpus() + 1)
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Phones poll every 5 s: a connection kept open a little longer than that is reused.
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "6"))
# The largest printed document (a 256-entry bracket) takes a few seconds to render.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 30
# Recycle workers now and then, staggered, so no slow leak ever matters on a long day.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "20000"))
max_requests_jitter = max_requests // 10
# Load the app once, then fork: less memory, faster restarts. Django opens no database
# connection at import, so none is shared between workers.
preload_app = True
# Heartbeat files on tmpfs: a slow disk never makes the arbiter kill a healthy worker.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = os.environ.get("GUNICORN_ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
# The proxies whose X-Forwarded-Proto gunicorn believes (as TRUSTED_PROXIES for the app):
# none unless named, not even loopback (gunicorn's own default). docker-compose.yml names
# its nginx.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "")

# gunicorn 25.1+ opens a control socket (for `gunicornc`: show workers, add or remove them,
# reload) at one path per user, $XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl,
# whatever the instance: a second master on the host silently takes it over, `gunicornc`
# then steers the wrong one, and the first to stop deletes the other's socket. (In the
# image ~ is /app, which the app user cannot write.) So each instance has its own, in its
# var dir and named after the address it listens on; GUNICORN_CONTROL_SOCKET names another
# path (a Unix socket path has 107 bytes at most), or "off" for none.
_var_dir = os.environ.get("VAR_DIR") or os.path.join(os.path.dirname(__file__), "var")
_control = os.environ.get("GUNICORN_CONTROL_SOCKET", "").strip()
control_socket_disable = _control.lower() == "off"
control_socket = os.path.abspath(
    _control
    if _control and not control_socket_disable
    else os.path.join(_var_dir, "gunicorn-" + re.sub(r"[^\w.\[\]-]", "-", bind) + ".ctl")
)
