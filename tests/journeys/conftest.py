"""The journeys wait longer than a single page's test: under ``make test`` every core runs a
test, and a PDF or a tie's decision may take a few seconds to reach a polled page."""

import pytest
from playwright.sync_api import expect

SLOW_MACHINE_MS = 15_000


@pytest.fixture(autouse=True)
def _patient_expect():
    expect.set_options(timeout=SLOW_MACHINE_MS)
    yield
    expect.set_options(timeout=5_000)  # Playwright's default, for the tests after these
