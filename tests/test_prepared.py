"""guandan_cup.prepared: statements made once. A prepared queryset gives the instances the
queryset gives — fields, select_related objects, annotations, the database's conversions —
compiling its SQL once per shape; ``insert`` is ``save()`` for a new row, ``update_where`` a
compare-and-set of one row."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Count, signals
from django.db.models.sql.compiler import SQLCompiler
from django.utils import timezone

from guandan_cup.prepared import Prepared, insert, update_where
from scoring.models import AuditEntry, TableEvent, TableMatch
from tournaments.models import Pair, Tournament

RELATED = ("match__round__stage__event__tournament", "home_pair__first", "away_pair__second")


def _tables(pk):
    return (
        TableMatch.objects.select_related(*RELATED)
        .annotate(events_recorded=Count("events"))
        .filter(pk=pk)
    )


def _fields(obj) -> dict:
    return {k: v for k, v in obj.__dict__.items() if k != "_state"}


def _same(a, b, path: str = "") -> None:
    assert type(a) is type(b), path
    assert _fields(a) == _fields(b), path
    for name, cached in b._state.fields_cache.items():
        assert name in a._state.fields_cache, f"{path}.{name} not loaded"
        if cached is None:
            assert a._state.fields_cache[name] is None
        else:
            _same(a._state.fields_cache[name], cached, f"{path}.{name}")


def test_a_prepared_queryset_gives_the_instances_the_queryset_gives(demo):
    from scoring.services.tables import record_event

    load = Prepared(lambda pk: _tables(pk))
    table = TableMatch.objects.filter(home_pair__isnull=False).order_by("pk").first()
    record_event(table=table, event={"order": list("AABB")}, key="k")
    for row in TableMatch.objects.order_by("pk")[:6]:
        [prepared] = load(pk=row.pk)
        [plain] = list(_tables(row.pk))
        _same(prepared, plain)
        assert prepared._state.adding is False and prepared._state.db == "default"
    [played] = load(pk=table.pk)
    assert played.events_recorded == 1 and played.state["levels"] == {"A": "5", "B": "2"}
    assert isinstance(played.match.round.stage.event.tournament.starts_on, dt.date)


def test_each_shape_is_compiled_once(demo, monkeypatch):
    load = Prepared(lambda pk: _tables(pk))
    ids = list(TableMatch.objects.order_by("pk").values_list("pk", flat=True)[:3])
    load(pk=ids[0])
    compiled = []
    as_sql = SQLCompiler.as_sql

    def counting(self, *args, **kwargs):
        compiled.append(self.query.model)
        return as_sql(self, *args, **kwargs)

    monkeypatch.setattr(SQLCompiler, "as_sql", counting)
    assert [t.pk for t in load(pk=ids[1])] == [ids[1]]
    assert [t.pk for t in load(pk=ids[2])] == [ids[2]]
    assert compiled == []


def test_a_list_of_ids_is_a_shape_by_its_length(demo):
    pairs = Prepared(lambda ids: Pair.objects.filter(pk__in=ids).order_by("pk"))
    ids = list(Pair.objects.order_by("pk").values_list("pk", flat=True)[:3])
    assert [p.pk for p in pairs(ids=ids[:2])] == ids[:2]
    assert [p.pk for p in pairs(ids=ids)] == ids
    assert [p.pk for p in pairs(ids=[ids[2], ids[0]])] == [ids[0], ids[2]]
    assert pairs(ids=[-1]) == []


def test_a_value_the_sql_does_not_take_unchanged_is_refused(db):
    contains = Prepared(lambda name: Tournament.objects.filter(name__contains=name))
    with pytest.raises(ImproperlyConfigured, match="does not reach the SQL unchanged"):
        contains(name="杯")
    with pytest.raises(ImproperlyConfigured):
        Prepared(lambda flag: Tournament.objects.filter(one_event_per_person=flag))(flag=True)


def test_insert_saves_a_new_row_as_save_does(demo):
    table = TableMatch.objects.order_by("pk").first()
    seen = []

    def saw(sender, instance, **kwargs):
        seen.append((kwargs.get("created"), instance.pk is not None))

    signals.pre_save.connect(saw, sender=TableEvent)
    signals.post_save.connect(saw, sender=TableEvent)
    try:
        event = TableEvent(table=table, seq=1, payload={"order": list("ABAB")}, key="k1")
        insert(event)
    finally:
        signals.pre_save.disconnect(saw, sender=TableEvent)
        signals.post_save.disconnect(saw, sender=TableEvent)
    assert seen == [(None, False), (True, True)]
    assert event.pk and event._state.adding is False
    stored = TableEvent.objects.get(pk=event.pk)
    assert stored.payload == {"order": list("ABAB")} and stored.key == "k1"
    assert stored.created_at == event.created_at and stored.undone_at is None
    entry = AuditEntry(tournament=table.match.round.stage.event.tournament, action="event")
    insert(entry)
    assert AuditEntry.objects.get(pk=entry.pk).words is None


def test_update_where_sets_a_row_only_while_it_is_as_read(demo):
    table = TableMatch.objects.order_by("pk").first()
    where = {"version": 0, "time_called_at": None}
    assert update_where(TableMatch, pk=table.pk, where=where, values={"version": 1, "winner": "A"})
    assert not update_where(TableMatch, pk=table.pk, where=where, values={"version": 9})
    now = timezone.now()
    TableMatch.objects.filter(pk=table.pk).update(time_called_at=now)
    assert not update_where(
        TableMatch, pk=table.pk, where={"version": 1, "time_called_at": None}, values={"version": 2}
    )
    assert update_where(
        TableMatch,
        pk=table.pk,
        where={"version": 1, "time_called_at": now},
        values={"version": 2, "state": {"levels": {"A": "3", "B": "2"}}},
    )
    table = TableMatch.objects.get(pk=table.pk)
    assert (table.version, table.winner) == (2, "A")
    assert table.state == {"levels": {"A": "3", "B": "2"}}


def test_a_prepared_values_list_gives_its_rows(demo):
    from scoring.services.tables import record_event

    table = TableMatch.objects.order_by("pk").first()
    record_event(table=table, event={"order": list("AABB")}, key="k1")
    record_event(table=table, event={"order": list("BBAA")}, key="k2")
    record = Prepared(
        lambda table_id: (
            TableEvent.objects.filter(table_id=table_id)
            .order_by("seq")
            .values_list("seq", "key", "payload", "created_at")
        )
    )
    plain = list(
        TableEvent.objects.filter(table_id=table.pk)
        .order_by("seq")
        .values_list("seq", "key", "payload", "created_at")
    )
    assert record(table_id=table.pk) == plain
    assert [row[1] for row in plain] == ["k1", "k2"] and plain[0][3].tzinfo is not None


def test_only_instances_and_values_list_rows_are_prepared(db):
    with pytest.raises(ImproperlyConfigured, match="values_list"):
        Prepared(lambda pk: Tournament.objects.filter(pk=pk).values("name"))(pk=1)
