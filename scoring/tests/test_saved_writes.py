"""A saved write is answered as saved. With the database connection cut after a table
write committed — PostgreSQL's connections dropped during a burst of deals — the answer is
read on a new connection, or, with none to be had, says plainly that the write is saved and
the page reloads: never a server error for something that was saved. A resend of the same
tap afterwards records nothing twice.

On PostgreSQL the connection's socket is closed (a new connection then works); the SQLite
test database lives in memory and keeps its one connection, which is made unusable the way
a lost file makes it (every use: ``disk I/O error``), so there the plain answer is given."""

from __future__ import annotations

import sqlite3

import pytest
from django.db import connection, transaction

from scoring.models import TableEvent, TableMatch
from scoring.services import common
from scoring.services import tables as table_services
from scoring.tests.test_table_views import HTMX, play_out, table_url

pytestmark = pytest.mark.django_db(transaction=True)
SAVED = "已记录。与服务器数据库的连接中断，页面正在重新载入……"


class _LostFile:
    """A SQLite connection whose database cannot be reached any more."""

    def cursor(self, *args, **kwargs):
        raise sqlite3.OperationalError("disk I/O error")

    def commit(self):
        raise sqlite3.OperationalError("disk I/O error")

    def rollback(self):
        raise sqlite3.OperationalError("disk I/O error")

    def close(self):
        pass


class Cut:
    """``now()`` breaks the database connection as a dropped connection does, ``back()``
    gives the test a working one again (on SQLite the one it had: the database is back)."""

    def __init__(self):
        self.kept = None

    def now(self):
        if connection.vendor == "postgresql":
            connection.connection.close()
        else:
            self.kept = connection.connection
            connection.connection = _LostFile()

    def back(self):
        if connection.vendor == "postgresql":
            # As the next request does (CONN_HEALTH_CHECKS): a dead connection is replaced.
            if not connection.is_usable():
                connection.close()
            return
        if self.kept is not None:
            if self.kept.in_transaction:  # cut before its commit: nothing of it is kept
                self.kept.rollback()
            connection.connection, self.kept = self.kept, None


@pytest.fixture
def cut():
    broken = Cut()
    yield broken
    broken.back()


def _cut_after(monkeypatch, where: str, cut) -> None:
    """Cut the connection right after the write's commit ("commit": before the event's
    version is announced and anything is read for the answer), or once the write has
    returned ("write": between the write and its answer)."""
    if where == "commit":
        audit = common.audit

        def audit_then_cut(*args, **kwargs):
            audit(*args, **kwargs)
            transaction.on_commit(cut.now)

        monkeypatch.setattr(common, "audit", audit_then_cut)
        return
    for name in ("record_event", "undo_last", "submit_table", "confirm_table"):
        service = getattr(table_services, name)

        def then_cut(*args, service=service, **kwargs):
            result = service(*args, **kwargs)
            cut.now()
            return result

        monkeypatch.setattr(table_services, name, then_cut)


def _post(client, name, table, data):
    version = TableMatch.objects.get(pk=table.pk).version
    return client.post(table_url(name, table), {"version": str(version), **data}, **HTMX)


def _ready(cast, action: str):
    """The table ready for ``action``; (who posts it, the URL name, the form)."""
    t = cast.table
    if action in ("deal", "penalty"):
        data = {"deal": "A2", "key": "k1"}
        if action == "penalty":
            data = {"team": "B", "kind": "levels", "levels": "1", "reason": "出错牌", "key": "k1"}
        return cast.referee, f"scoring:{action}", data
    if action == "undo":
        table_services.record_event(
            table=t, event={"order": list("AABB")}, user=cast.referee, key="d"
        )
        return cast.referee, "scoring:undo", {}
    if action == "time-up":  # the deal that ends the match: answered with the whole panel
        table_services.record_event(
            table=t, event={"order": list("AABB")}, user=cast.referee, key="d"
        )
        return cast.referee, "scoring:time-up", {"key": "k1"}
    play_out(t, "A", cast.referee)
    if action == "submit":
        return cast.referee, "scoring:submit", {}
    table_services.submit_table(table=TableMatch.objects.get(pk=t.pk), user=cast.submitter)
    return cast.chief, "scoring:confirm", {}  # confirm


ACTIONS = ["deal", "penalty", "undo", "time-up", "submit", "confirm"]


IN_PART = ("deal",)  # a table's first deal is answered with its parts
# A record's answer is made whole from what the write read and replayed (and the counts
# read with the table): nothing is read after it either.
WHOLE_FROM_THE_WRITE = ("penalty", "time-up")


@pytest.mark.parametrize("where", ["commit", "write"])
@pytest.mark.parametrize("action", ACTIONS)
def test_a_write_saved_before_the_connection_was_lost_is_answered_as_saved(
    client, cast, monkeypatch, cut, action, where
):
    user, name, data = _ready(cast, action)
    client.force_login(user)
    before = TableMatch.objects.get(pk=cast.table.pk)
    _cut_after(monkeypatch, where, cut)
    response = _post(client, name, cast.table, data)
    monkeypatch.undo()
    cut.back()
    assert response.status_code == 200, response.content[:300]
    html = response.content.decode()
    after = TableMatch.objects.get(pk=cast.table.pk)
    assert after.version == before.version + 1  # saved, once
    assert f'data-version="{after.version}"' in html
    if "key" in data:
        assert TableEvent.objects.filter(table=cast.table, key=data["key"]).count() == 1
    if action in IN_PART:
        # Made of what the write left: nothing to read, connection or not.
        assert "data-follows" in html and SAVED not in html
    elif action in WHOLE_FROM_THE_WRITE or connection.vendor == "postgresql":
        # Read again on a new connection: the whole panel as the write left it.
        assert 'id="table-history"' in html and SAVED not in html
    else:
        # No connection to be had: saved, and the panel loads itself again.
        assert SAVED in html and "data-saved" in html
        assert f'hx-get="{table_url("scoring:table", cast.table)}"' in html


@pytest.mark.parametrize("where", ["commit", "write"])
def test_a_resend_of_a_deal_saved_before_the_connection_was_lost_records_nothing(
    client, cast, monkeypatch, cut, where
):
    client.force_login(cast.referee)
    _cut_after(monkeypatch, where, cut)
    first = _post(client, "scoring:deal", cast.table, {"deal": "B3", "key": "lost"})
    monkeypatch.undo()
    cut.back()
    assert first.status_code == 200
    # The phone did not get the answer and sends the tap again, with the version it had.
    again = client.post(
        table_url("scoring:deal", cast.table), {"deal": "B3", "key": "lost", "version": "0"}, **HTMX
    )
    assert again.status_code == 200
    assert "已记录过，未重复记录" in again.content.decode()
    assert TableEvent.objects.filter(table=cast.table).count() == 1
    assert TableMatch.objects.get(pk=cast.table.pk).version == 1


def test_a_write_that_lost_its_connection_before_its_commit_is_a_server_error(
    client, cast, monkeypatch, cut
):
    # Nothing saved: the server's error stands, and the phone's queue sends the tap again.
    client.force_login(cast.referee)
    monkeypatch.setattr(common, "save_state", lambda *a, **k: cut.now() or connection.cursor())
    with pytest.raises(Exception) as lost:
        _post(client, "scoring:deal", cast.table, {"deal": "A2", "key": "k1"})
    monkeypatch.undo()
    cut.back()
    assert type(lost.value).__name__ in ("OperationalError", "InterfaceError")
    assert not TableEvent.objects.filter(table=cast.table).exists()
