"""Fixtures shared by the scoring pages' tests: the cast of people around one table."""

from scoring.tests.test_table_views import cast  # noqa: F401 (a fixture)
