"""Event version stamps for the live pages: what a poll compares, kept in the shared cache.

Every event has a version that grows with every change (``Event.bump_version``). Its
*stamp* — the event's id, version, the time of that change and whether the tournament is
public — is kept in the shared cache under the event's slugs for a couple of seconds, so a
phone asking "anything new?" is answered 304 from the cache, without the database, on
whichever app server it reaches. A writer forgets the stamp when it bumps the version, and
again when its transaction commits, so a reader that raced it keeps an old stamp for at
most ``STAMP_SECONDS``.

This module imports no models, so the models announce a change through it
(``forget_stamp``); reading a stamp from the database is ``live.http.get_stamp``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

STAMP_SECONDS = 2


@dataclass(frozen=True)
class Stamp:
    event_id: int
    version: int
    changed_at: float  # Unix time of the last bump
    public: bool
    # The version at the last change that was not one table's own (Event.wide_version);
    # None in a stamp from before it was kept: every version then counts as one.
    wide: int | None = None

    @property
    def token(self) -> str:
        """Names one version of one event. The time of the change is part of it, so a
        database that is reset and refilled never meets an old fragment under a new name."""
        return f"{self.event_id}.{self.version}.{int(self.changed_at * 1_000_000):x}"

    @property
    def last_modified(self) -> int:
        return int(self.changed_at)


def stamp_key(slug: str, event_slug: str) -> str:
    return f"stamp:{slug}:{event_slug}"


def stamp_of(event) -> Stamp:
    """The stamp of an event row already loaded (with its tournament)."""
    return Stamp(
        event.pk,
        event.version,
        event.changed_at.timestamp(),
        event.tournament.is_public,
        event.wide_version,
    )


# Each process may remember a stamp it read from the shared cache for up to this long
# (settings.LIVE_STAMP_MEMO_SECONDS): a 304 is then answered without even a round trip to
# Redis. It is a copy of shared state, not state: every server sees a new version within
# this time, and the process that made the change at once.
_memo: dict[str, tuple[float, tuple]] = {}


def _memo_seconds() -> float:
    return getattr(settings, "LIVE_STAMP_MEMO_SECONDS", 0)


def remember_stamp(key: str, raw) -> None:
    """Keep a stamp read from the cache or the database for LIVE_STAMP_MEMO_SECONDS."""
    if _memo_seconds() > 0:
        _memo[key] = (time.monotonic() + _memo_seconds(), tuple(raw))


def clear_memo() -> None:
    """Forget every remembered stamp (tests start each with an empty cache)."""
    _memo.clear()


def memoised_stamp(slug: str, event_slug: str):
    """The raw stamp this process read less than LIVE_STAMP_MEMO_SECONDS ago, else None."""
    found = _memo.get(stamp_key(slug, event_slug))
    if found is not None and found[0] > time.monotonic():
        return found[1]
    return None


def forget_stamp(slug: str, event_slug: str) -> None:
    """Called by whatever bumps a version: now, and once more when the transaction commits
    (a reader may have cached the old version in between)."""
    key = stamp_key(slug, event_slug)

    def forget():
        cache.delete(key)
        _memo.pop(key, None)

    forget()
    if transaction.get_connection().in_atomic_block:
        transaction.on_commit(forget)
