"""Fixtures shared by the registration pages' tests: the Nantong cup reopened for
registration, its leaders and its organiser."""

from tournaments.registration.tests.test_pages import nantong, organiser  # noqa: F401
