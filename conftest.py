"""Shared pytest fixtures: test actors built in code, and Playwright on Debian's Chromium."""

import os
import shutil

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


@pytest.fixture
def phone_page(page):
    page.set_viewport_size({"width": 390, "height": 844})
    return page
