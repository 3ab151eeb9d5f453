"""Statements made once, for what a hot request does every time (a referee's deal reads its
table, pairs and record and writes its event, the table's row and the audit on every tap).

Compiling a queryset — its joins, its columns, a select_related's model tree — costs the
ORM more than running it: a table with its match, event and tournament takes about four
times as long to compile as to fetch. ``Prepared(build)`` keeps, per thread and database,
the SQL the ORM wrote for ``build(**values)`` and runs it again with each call's values;
the rows become model instances exactly as the queryset builds them (its select_related
objects, annotations and the database's converters), or a ``values_list()``'s tuples. The ORM still writes the SQL: only
the compiling is not repeated.

Each value must reach the SQL unchanged — an ``=`` or ``__in`` comparison with an int, a
string or a list of ints — which is checked when the shape is first compiled (the query
is built once with stand-in values and each must be found among its parameters).

The writes are the ORM's in one statement each, their SQL made from the model once:
``insert(obj)`` is ``obj.save()`` for a new row, ``update_where`` a compare-and-set of one
row (``QuerySet.filter(…).update(…)``).
"""

from __future__ import annotations

import threading
from itertools import count

from django.core.exceptions import ImproperlyConfigured
from django.db import connections, router
from django.db.models import signals
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

_stand_ins = count(1)


def _stand_in(value):
    """A value of the same kind as ``value`` that no query holds otherwise."""
    if isinstance(value, bool) or value is None:
        raise ImproperlyConfigured("Prepared: a value must be an int, a string or a list of ints.")
    if isinstance(value, int):
        return -(10**12) - next(_stand_ins)
    if isinstance(value, str):
        return f"\x00prepared-{next(_stand_ins)}\x00"
    if isinstance(value, (list, tuple)):
        return [_stand_in(item) for item in value]
    raise ImproperlyConfigured(
        f"Prepared: a value must be an int, a string or a list, not {value!r}."
    )


def _kind(value):
    """What decides the SQL's shape: a list's length, else the value's type."""
    return ("list", len(value)) if isinstance(value, (list, tuple)) else type(value).__name__


class _Shape:
    """One compiled shape: its SQL, where each value goes among its parameters, and what
    turns its rows into model instances."""

    def __init__(self, queryset, stand_ins: dict):
        self.db = queryset.db
        compiler = queryset.query.get_compiler(using=self.db)
        self.sql, params = compiler.as_sql()
        self.params = list(params)
        where = {}
        for name, stand_in in stand_ins.items():
            for item, path in _flat(stand_in, name):
                places = [
                    i for i, p in enumerate(self.params) if type(p) is type(item) and p == item
                ]
                if not places:
                    raise ImproperlyConfigured(
                        f"Prepared: the value {name!r} does not reach the SQL unchanged."
                    )
                for place in places:
                    where[place] = path
        self.where = sorted(where.items())
        self.compiler = compiler
        fields = [s[0] for s in compiler.select[0 : compiler.col_count]]
        self.converters = compiler.get_converters(fields)
        if queryset._iterable_class is ValuesListIterable:  # values_list(): rows as tuples
            self.model = None
            return
        if queryset._iterable_class is not ModelIterable:
            raise ImproperlyConfigured("Prepared: model instances or values_list() rows only.")
        klass_info = compiler.klass_info
        self.model = klass_info["model"]
        self.fetch_mode = queryset._fetch_mode
        first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        self.own = slice(first, last)
        self.init_list = [f[0].target.attname for f in compiler.select[first:last]]
        self.populators = get_related_populators(
            klass_info, compiler.select, self.db, self.fetch_mode
        )
        self.annotations = list(compiler.annotation_col_map.items())

    def run(self, values: dict) -> list:
        params = list(self.params)
        for place, (name, index) in self.where:
            value = values[name]
            params[place] = value[index] if index is not None else value
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        if self.converters:
            rows = self.compiler.apply_converters(rows, self.converters)
        if self.model is None:
            return [tuple(row) for row in rows]
        found = []
        for row in rows:
            obj = self.model.from_db(
                self.db, self.init_list, row[self.own], fetch_mode=self.fetch_mode
            )
            for populator in self.populators:
                populator.populate(row, obj)
            for name, column in self.annotations:
                setattr(obj, name, row[column])
            found.append(obj)
        return found


def _flat(stand_in, name):
    if isinstance(stand_in, list):
        return [(item, (name, i)) for i, item in enumerate(stand_in)]
    return [(stand_in, (name, None))]


class Prepared:
    """``build(**values)`` -> a queryset of model instances, compiled once per thread,
    database and shape (the kinds of the values: a list's length, else its type); calling
    it with values gives that queryset's instances."""

    def __init__(self, build):
        self.build = build
        self.local = threading.local()

    def __call__(self, **values) -> list:
        key = tuple(sorted((name, _kind(value)) for name, value in values.items()))
        shapes = self.local.__dict__.setdefault("shapes", {})
        shape = shapes.get(key)
        if shape is None:
            stand_ins = {name: _stand_in(value) for name, value in values.items()}
            shape = shapes[key] = _Shape(self.build(**stand_ins), stand_ins)
        return shape.run(values)


# --------------------------------------------------------------------------- writes

_statements: dict = {}


def _statement(key, make):
    """A statement's SQL, made once per process for ``key`` (its database's vendor first)."""
    sql = _statements.get(key)
    if sql is None:
        sql = _statements[key] = make()
    return sql


def insert(obj) -> None:
    """Save the new ``obj`` as ``obj.save()`` does — its fields' defaults and pre-save values,
    the model's save signals, the id the database gives it — in one INSERT … RETURNING whose
    SQL is made once per model. For models without parents; the database must return
    columns from an INSERT (PostgreSQL, SQLite 3.35+), else it is ``obj.save()``."""
    model = type(obj)
    meta = model._meta
    db = router.db_for_write(model, instance=obj)
    connection = connections[db]
    if meta.parents or not connection.features.can_return_columns_from_insert:
        obj.save(using=db)
        return
    fields = [f for f in meta.local_concrete_fields if not f.generated]
    if obj.pk is None:
        fields = [f for f in fields if f is not meta.pk]
    returning = meta.db_returning_fields

    def make():
        quote = connection.ops.quote_name
        columns = ", ".join(quote(f.column) for f in fields)
        places = ", ".join(["%s"] * len(fields))
        back = ", ".join(quote(f.column) for f in returning)
        return f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({places}) RETURNING {back}"

    sql = _statement((connection.vendor, "insert", model, tuple(f.attname for f in fields)), make)
    signals.pre_save.send(sender=model, instance=obj, raw=False, using=db, update_fields=None)
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    for field, value in zip(returning, row, strict=True):
        setattr(obj, field.attname, value)
    obj._state.adding = False
    obj._state.db = db
    signals.post_save.send(
        sender=model, instance=obj, created=True, update_fields=None, raw=False, using=db
    )


def update_where(model, *, pk, where: dict, values: dict) -> int:
    """UPDATE the row ``pk`` of ``model`` to ``values`` where each field in ``where`` is as
    given (None: IS NULL); how many rows changed (0 or 1). Its SQL is made once per model and
    shape. A compare-and-set: no signals, as ``QuerySet.update``."""
    meta = model._meta
    db = router.db_for_write(model)
    connection = connections[db]
    setting = [meta.get_field(name) for name in values]
    checks = [(meta.get_field(name), value) for name, value in where.items()]
    shape = tuple(f.attname for f in setting), tuple((f.attname, v is None) for f, v in checks)

    def make():
        quote = connection.ops.quote_name
        sets = ", ".join(f"{quote(f.column)} = %s" for f in setting)
        conditions = [f"{quote(meta.pk.column)} = %s"] + [
            f"{quote(f.column)} IS NULL" if v is None else f"{quote(f.column)} = %s"
            for f, v in checks
        ]
        return f"UPDATE {quote(meta.db_table)} SET {sets} WHERE {' AND '.join(conditions)}"

    sql = _statement((connection.vendor, "update", model, shape), make)
    params = [f.get_db_prep_save(values[f.name], connection) for f in setting]
    params.append(meta.pk.get_db_prep_value(pk, connection))
    params += [f.get_db_prep_value(v, connection) for f, v in checks if v is not None]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount
