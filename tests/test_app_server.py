"""The app server's settings (gunicorn.conf.py) as gunicorn reads them, and two app servers
on one host: each has a control socket of its own (gunicorn's default is one per user)."""

from __future__ import annotations

import http.client
import os
import re
import runpy
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from gunicorn.config import Config
from gunicorn.ctl.client import ControlClient

ROOT = Path(settings.BASE_DIR)
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


@pytest.fixture
def config(monkeypatch):
    """gunicorn.conf.py run afresh with exactly these of its variables set."""

    def run(**env) -> dict:
        for name in ("GUNICORN_BIND", "GUNICORN_CONTROL_SOCKET", "VAR_DIR"):
            monkeypatch.delenv(name, raising=False)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(str(ROOT / "gunicorn.conf.py"))

    return run


def test_each_instance_has_a_control_socket_of_its_own(config, tmp_path):
    assert {"control_socket", "control_socket_disable"} <= set(Config().settings)
    var = str(tmp_path / "var")
    first = config(GUNICORN_BIND="127.0.0.1:8000", VAR_DIR=var)
    second = config(GUNICORN_BIND="127.0.0.1:8001", VAR_DIR=var)
    elsewhere = config(GUNICORN_BIND="127.0.0.1:8000", VAR_DIR=str(tmp_path / "other"))
    paths = {c["control_socket"] for c in (first, second, elsewhere)}
    assert len(paths) == 3
    assert not any(c["control_socket_disable"] for c in (first, second, elsewhere))
    assert Path(first["control_socket"]).parent == tmp_path / "var"
    home = os.path.expanduser("~")
    assert not any(path.startswith(home) for path in paths)  # not gunicorn's per-user default
    # The default bind, and the project's own var dir when VAR_DIR is unset.
    assert Path(config()["control_socket"]) == ROOT / "var" / "gunicorn-127.0.0.1-8000.ctl"


def test_the_control_socket_can_be_named_or_turned_off(config, tmp_path):
    named = config(GUNICORN_CONTROL_SOCKET=str(tmp_path / "cup.ctl"))
    assert named["control_socket"] == str(tmp_path / "cup.ctl")
    assert named["control_socket_disable"] is False
    assert config(GUNICORN_CONTROL_SOCKET="off")["control_socket_disable"] is True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _healthz(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    finally:
        connection.close()


def _stop(server: subprocess.Popen) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _master_pid(path: str) -> int:
    with ControlClient(path, timeout=5) as client:
        return client.send_command("show stats")["pid"]


def test_two_app_servers_on_one_host_each_keep_their_own_control_socket(tmp_path):
    """The fault run: every master took ~/.gunicorn/gunicorn.ctl, the second silently
    taking it from the first, and the first to stop deleted it under the other."""
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DJANGO_SETTINGS_MODULE", "TESTING", "SECRET_KEY", "XDG_RUNTIME_DIR"}
        and not name.startswith("GUNICORN_")
    }
    # A home of its own: were the default back, the masters would collide there, not in
    # the home of whoever runs the tests.
    env.update(
        DEBUG="1",
        HOME=str(tmp_path / "home"),
        VAR_DIR=str(tmp_path / "var"),
        WEB_CONCURRENCY="1",
        GUNICORN_THREADS="1",
        GUNICORN_ACCESS_LOG="",
    )
    servers, logs, ports = [], [], [_free_port(), _free_port()]
    try:
        for port in ports:
            log = tmp_path / f"gunicorn-{port}.log"
            servers.append(
                subprocess.Popen(
                    [GUNICORN, "-c", "gunicorn.conf.py", "guandan_cup.wsgi:application"],
                    cwd=ROOT,
                    env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
                    stdout=subprocess.DEVNULL,
                    stderr=log.open("w"),
                    start_new_session=True,
                )
            )
            logs.append(log)
        deadline = time.monotonic() + 60
        for server, port, log in zip(servers, ports, logs, strict=True):
            while True:
                assert server.poll() is None, log.read_text()
                try:
                    if _healthz(port) == 200 and "Control socket listening" in log.read_text():
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        texts = [log.read_text() for log in logs]
        paths = [re.search(r"Control socket listening at (\S+)", text).group(1) for text in texts]
        assert paths[0] != paths[1]
        for text in texts:
            assert "Failed to start control socket" not in text
            assert "Control server error" not in text
        # Each socket reaches its own master, and outlives the other master's stop.
        assert [_master_pid(path) for path in paths] == [server.pid for server in servers]
        _stop(servers[0])
        assert _healthz(ports[1]) == 200
        assert _master_pid(paths[1]) == servers[1].pid
    finally:
        for server in servers:
            _stop(server)
