"""Shared pytest fixtures: test actors built in code, and Playwright on Debian's Chromium."""

import datetime as dt
import json
import os
import shutil
import sys

import pytest

# live_server + Playwright's sync API touch the ORM from the test thread's event loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM_PATH = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def _chromium_available() -> bool:
    return os.path.exists(CHROMIUM_PATH) and os.access(CHROMIUM_PATH, os.X_OK)


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not _chromium_available():
        message = f"Chromium not found at {CHROMIUM_PATH} (apt-get install chromium)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: browser tests must run in CI")
        pytest.skip(message)
    return {**browser_type_launch_args, "executable_path": CHROMIUM_PATH, "args": CHROMIUM_ARGS}


@pytest.fixture(autouse=True)
def _empty_cache():
    """Each test starts with an empty cache: rows rolled back by one test come back with the
    same ids in the next, and live pages cache by event id and version."""
    from django.core.cache import cache

    from tournaments.live import http, stamps

    cache.clear()
    stamps.clear_memo()
    http.clear_local()
    yield


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    """Service workers blocked in the browser tests' pages: a page a worker keeps goes on
    polling and resending after its context closes, into the next test's server. The tests
    of opening a page offline allow them in a context of their own."""
    return {**browser_context_args, "service_workers": "block"}


@pytest.fixture
def phone_page(page):
    page.set_viewport_size({"width": 390, "height": 844})
    return page


@pytest.fixture
def demo(db):
    """Both seed tournaments, loaded and drawn, keyed by slug."""
    from tournaments.ops.demo import load_demo

    return {t.slug: t for t in load_demo()}


@pytest.fixture
def make_tournament(db):
    from tournaments.models import Tournament

    def make(slug="test-cup", **fields):
        defaults = dict(
            name="测试杯",
            organiser_name="测试工会",
            notice_title="关于举行测试杯的通知",
            notice_text="一、比赛时间\n时间：某日",
            starts_on=dt.date(2026, 12, 1),
            status=Tournament.Status.REGISTRATION_OPEN,
        )
        defaults.update(fields)
        return Tournament.objects.create(slug=slug, **defaults)

    return make


# --------------------------------------------------------------------------- fuzz figures
# tests/test_bad_input.py counts the examples it ran per URL (RESULTS). Each xdist worker
# sends its counts to the controller, which prints one line at the end of the run.
_FUZZ: dict[str, dict[str, int]] = {}


def _merge_fuzz(results: dict) -> None:
    for name, counts in results.items():
        total = _FUZZ.setdefault(name, {"examples": 0, "refused": 0})
        total["examples"] += counts["examples"]
        total["refused"] += counts["refused"]


def pytest_sessionfinish(session):
    module = sys.modules.get("tests.test_bad_input")
    results = getattr(module, "RESULTS", {}) if module else {}
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["fuzz"] = json.dumps(results)
    else:
        _merge_fuzz(results)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    data = getattr(node, "workeroutput", {}).get("fuzz")
    if data:
        _merge_fuzz(json.loads(data))


def pytest_terminal_summary(terminalreporter):
    if not _FUZZ:
        return
    if os.environ.get("FUZZ_REPORT"):
        for name, counts in sorted(_FUZZ.items()):
            terminalreporter.write_line(
                f"{name}: {counts['examples']} examples, {counts['refused']} refused"
            )
    total = sum(c["examples"] for c in _FUZZ.values())
    refused = sum(c["refused"] for c in _FUZZ.values())
    terminalreporter.write_line(f"fuzz: {total} examples over {len(_FUZZ)} URLs, {refused} refused")
