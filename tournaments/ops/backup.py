"""Backups of one tournament as a JSON file (``export_tournament`` / ``import_tournament``).

The file holds every row of the ``tournaments`` and ``scoring`` apps that belongs to the
tournament — found generically, so a model or field added later is included without
touching this module — and the user accounts those rows name, by username only (never a
password hash: a backup file must not carry credentials; after a restore into an empty
database the organiser sets new passwords with ``manage.py changepassword``).

Stable identifiers: a row is named by its position among its model's rows of the tournament
(ordered by primary key), never by its database id, so a file imports into a database that
already holds other tournaments, and export → import → export gives the same bytes. Import
inserts the rows in that order, so the new ids keep the old order.

JSON values that hold ids of other rows (the draw's lots and slots, a group stage's groups)
are translated too; :data:`ID_BEARING_JSON` lists them — a new JSON field that stores ids
must be added there.
"""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from collections import deque
from collections.abc import Callable

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.words import listing

FORMAT = "guandan-cup-tournament"
VERSION = 1
APPS = ("tournaments", "scoring")
TOURNAMENT = "tournaments.tournament"


class BackupError(UserError):
    """A file or a request the user can put right (the message says how)."""

    def __init__(self, message: str, code: str = "invalid_backup"):
        super().__init__(code, message)


# --------------------------------------------------------------------------- the models


def label(model) -> str:
    return model._meta.label_lower


def backup_models() -> list[type[models.Model]]:
    """Every model of the backed-up apps, each after the models it points to (self
    references and cycles aside), ties broken by label: the order of the import."""
    found = sorted((m for app in APPS for m in apps.get_app_config(app).get_models()), key=label)
    known = set(found)
    ordered: list = []
    placed: set = set()

    def depends_on(model):
        return sorted(
            {
                f.related_model
                for f in model._meta.concrete_fields
                if f.is_relation and f.related_model in known and f.related_model is not model
            },
            key=label,
        )

    visiting: set = set()

    def place(model):
        if model in placed or model in visiting:
            return  # placed already, or a cycle: the import defers that reference
        visiting.add(model)
        for target in depends_on(model):
            place(target)
        visiting.discard(model)
        placed.add(model)
        ordered.append(model)

    for model in found:
        place(model)
    return ordered


def tournament_path(model) -> str:
    """The lookup from a model to its tournament through required foreign keys, shortest
    first (``match__round__stage__event__tournament``); '' for the tournament itself."""
    tournament = apps.get_model(TOURNAMENT)
    if model is tournament:
        return ""
    queue = deque([(model, "")])
    seen = {model}
    while queue:
        current, path = queue.popleft()
        for f in current._meta.concrete_fields:
            if not f.is_relation or f.null or f.related_model is None:
                continue
            step = f"{path}__{f.name}" if path else f.name
            if f.related_model is tournament:
                return step
            if f.related_model not in seen and label(f.related_model).split(".")[0] in APPS:
                seen.add(f.related_model)
                queue.append((f.related_model, step))
    raise BackupError(
        f"{label(model)} has no required foreign key leading to its tournament; "
        "tournaments.ops.backup cannot tell which tournament its rows belong to."
    )


def rows_of(model, tournament) -> models.QuerySet:
    path = tournament_path(model)
    lookup = {path: tournament} if path else {"pk": tournament.pk}
    return model._base_manager.filter(**lookup).order_by("pk")


# --------------------------------------------------------------------------- JSON with ids


def _map_keys(value, mapping):
    return {str(mapping(int(k))): v for k, v in (value or {}).items()}


def _map_list(value, mapping):
    return [None if v is None else mapping(v) for v in (value or [])]


def _map_groups(value, mapping):
    if not isinstance(value, dict) or "groups" not in value:
        return value
    return {**value, "groups": [[mapping(pk) for pk in group] for group in value["groups"]]}


# (model, field) -> (the model whose ids it holds, how to translate them)
ID_BEARING_JSON: dict[tuple[str, str], tuple[str, Callable]] = {
    ("tournaments.draw", "lots"): ("tournaments.entry", _map_keys),
    ("tournaments.draw", "seeds"): ("tournaments.entry", _map_keys),
    ("tournaments.draw", "slots"): ("tournaments.entry", _map_list),
    ("tournaments.stage", "settings"): ("tournaments.entry", _map_groups),
}


# --------------------------------------------------------------------------- export


def _scalar(value):
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.UTC)
        return value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal | uuid.UUID):
        return str(value)
    if isinstance(value, bytes | memoryview):
        raise BackupError("binary fields are not supported by the backup format")
    return value


def export_data(tournament) -> dict:
    """The whole tournament as plain JSON-ready data (see the module docstring)."""
    User = get_user_model()
    username_field = User.USERNAME_FIELD
    order = backup_models()
    rows = {model: list(rows_of(model, tournament)) for model in order}
    refs = {model: {obj.pk: n for n, obj in enumerate(rows[model], start=1)} for model in order}
    user_ids: set = set()

    def ref_to(model, pk, where: str):
        if pk is None:
            return None
        if model is User:
            user_ids.add(pk)
            return pk  # replaced by the username below
        try:
            return refs[model][pk]
        except KeyError:
            raise BackupError(
                f"{where} points to {label(model)} #{pk}, which is not part of this tournament"
            ) from None

    out: dict[str, list] = {}
    user_slots: list[tuple[dict, str, object]] = []
    for model in order:
        records = []
        for obj in rows[model]:
            where = f"{label(model)} #{obj.pk}"
            record = {"id": refs[model][obj.pk]}
            for f in model._meta.concrete_fields:
                if f.primary_key:
                    continue
                value = getattr(obj, f.attname)
                if f.is_relation:
                    target = f.related_model
                    if target is not User and target not in refs:
                        raise BackupError(f"{where}.{f.name}: unsupported reference")
                    record[f.name] = ref_to(target, value, f"{where}.{f.name}")
                    if target is User and value is not None:
                        user_slots.append((record, f.name, value))
                    continue
                special = ID_BEARING_JSON.get((label(model), f.name))
                if special is not None:
                    target = apps.get_model(special[0])
                    value = special[1](value, lambda pk, t=target, w=where: ref_to(t, pk, w))
                record[f.name] = _scalar(value)
            for f in model._meta.many_to_many:
                ids = [o.pk for o in getattr(obj, f.name).all()]
                if f.related_model is User:
                    user_ids.update(ids)
                    record[f.name] = ("users", ids)  # resolved below
                else:
                    record[f.name] = sorted(ref_to(f.related_model, pk, where) for pk in ids)
            records.append(record)
        out[label(model)] = records

    users = {u.pk: u for u in User._base_manager.filter(pk__in=user_ids)}
    for record, name, pk in user_slots:
        record[name] = getattr(users[pk], username_field)
    for records in out.values():
        for record in records:
            for key, value in record.items():
                if isinstance(value, tuple) and value[0] == "users":
                    record[key] = sorted(getattr(users[pk], username_field) for pk in value[1])
    return {
        "format": FORMAT,
        "version": VERSION,
        "tournament": tournament.slug,
        "models": out,
        "users": sorted((_user_record(u) for u in users.values()), key=lambda r: r[username_field]),
    }


def _user_record(user) -> dict:
    User = type(user)
    record = {User.USERNAME_FIELD: getattr(user, User.USERNAME_FIELD)}
    for name in ("first_name", "last_name", "email", "is_active"):
        if hasattr(user, name):
            record[name] = getattr(user, name)
    return record


def dumps(data: dict) -> str:
    """Sorted keys, one layout: the same data always gives the same bytes."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=1) + "\n"


def export_tournament(tournament) -> str:
    return dumps(export_data(tournament))


# --------------------------------------------------------------------------- import


def loads(text: str) -> dict:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError is a ValueError
        raise BackupError(_("备份文件不是有效的JSON：%(error)s") % {"error": exc}) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(_("这不是掼蛋杯的比赛备份文件。"))
    if data.get("version") != VERSION:
        raise BackupError(
            _("备份文件的格式版本是%(got)s，本程序只能导入第%(want)s版。")
            % {"got": data.get("version"), "want": VERSION}
        )
    return data


@transaction.atomic
def import_data(data: dict, *, replace: bool = False):
    """Create the tournament of ``data`` (from :func:`loads`) with all its rows, in one
    transaction: on any problem nothing is saved. An existing tournament with the same slug
    is refused unless ``replace``, which deletes it first (in the same transaction)."""
    Tournament = apps.get_model(TOURNAMENT)
    User = get_user_model()
    slug = data["tournament"]
    existing = Tournament.objects.filter(slug=slug).first()
    if existing is not None:
        if not replace:
            raise BackupError(
                _("已有标识为“%(slug)s”的比赛；如要用备份覆盖它，请加 --replace。") % {"slug": slug}
            )
        delete_tournament(existing)

    users = _ensure_users(data.get("users", []))
    order = backup_models()
    by_label = {label(m): m for m in order}
    unknown = set(data["models"]) - set(by_label)
    if unknown:
        raise BackupError(
            _("备份文件中有本程序不认识的数据：%(names)s。") % {"names": listing(sorted(unknown))}
        )
    new_pk: dict = {m: {} for m in order}
    deferred: list[tuple[type, int, str, type, int]] = []  # (model, ref, field, target, ref)
    m2m: list[tuple[models.ManyToManyField, int, list]] = []
    auto_times: list[tuple[type, int, dict]] = []
    inserted: set = set()

    def pk_of(target, ref, where):
        if target is User:
            return users[ref].pk
        try:
            return new_pk[target][ref]
        except KeyError:
            raise BackupError(
                _("备份文件有误：%(where)s 指向不存在的 %(target)s #%(ref)s。")
                % {"where": where, "target": label(target), "ref": ref}
            ) from None

    for model in order:
        records = sorted(data["models"].get(label(model), []), key=lambda r: r["id"])
        objects = []
        for record in records:
            where = f"{label(model)} #{record.get('id')}"
            values = {}
            times = {}
            for f in model._meta.concrete_fields:
                if f.primary_key:
                    continue
                if f.name not in record:
                    continue  # a field added after the file was written: its default
                raw = record[f.name]
                if f.is_relation:
                    target = f.related_model
                    if raw is None:
                        values[f.attname] = None
                    elif target is User or target in inserted:
                        values[f.attname] = pk_of(target, raw, where)
                    else:
                        if not f.null:
                            raise BackupError(f"{where}.{f.name}: unsupported reference cycle")
                        values[f.attname] = None
                        deferred.append((model, record["id"], f.attname, target, raw))
                    continue
                special = ID_BEARING_JSON.get((label(model), f.name))
                if special is not None:
                    target = apps.get_model(special[0])
                    raw = special[1](raw, lambda ref, t=target, w=where: pk_of(t, ref, w))
                value = f.to_python(raw)
                if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False):
                    times[f.attname] = value
                values[f.attname] = value
            for f in model._meta.many_to_many:
                if f.name in record:
                    m2m.append((f, record["id"], record[f.name]))
            if times:
                auto_times.append((model, record["id"], times))
            objects.append(model(**values))
        created = model._base_manager.bulk_create(objects)
        for record, obj in zip(records, created, strict=True):
            if obj.pk is None:  # a backend that cannot return ids from a bulk insert
                raise BackupError("the database did not return the new ids")
            new_pk[model][record["id"]] = obj.pk
        inserted.add(model)

    for model, ref, attname, target, target_ref in deferred:
        model._base_manager.filter(pk=new_pk[model][ref]).update(
            **{attname: pk_of(target, target_ref, f"{label(model)} #{ref}")}
        )
    for f, ref, targets in m2m:
        owner = f.model
        through = f.remote_field.through
        source, target_col = f.m2m_field_name(), f.m2m_reverse_field_name()
        through._base_manager.bulk_create(
            [
                through(
                    **{
                        f"{source}_id": new_pk[owner][ref],
                        f"{target_col}_id": pk_of(f.related_model, t, label(owner)),
                    }
                )
                for t in targets
            ]
        )
    # auto_now / auto_now_add would stamp the import's time: put the recorded times back.
    for model, ref, times in auto_times:
        model._base_manager.filter(pk=new_pk[model][ref]).update(**times)
    return Tournament.objects.get(slug=slug)


def _ensure_users(records: list[dict]) -> dict:
    """username -> user; missing accounts are created without a usable password."""
    User = get_user_model()
    field = User.USERNAME_FIELD
    out = {}
    for record in records:
        name = record[field]
        user = User._base_manager.filter(**{field: name}).first()
        if user is None:
            extra = {k: v for k, v in record.items() if k != field and hasattr(User, k)}
            user = User(**{field: name}, **extra)
            user.set_unusable_password()
            user.save()
        out[name] = user
    return out


@transaction.atomic
def delete_tournament(tournament) -> None:
    """Delete every row of the tournament, the rows that point to others first."""
    for model in reversed(backup_models()):
        for f in model._meta.many_to_many:
            f.remote_field.through._base_manager.filter(
                **{f"{f.m2m_field_name()}__in": rows_of(model, tournament)}
            ).delete()
    for model in reversed(backup_models()):
        # Null self references first (Match.winner_to …) so no row blocks another.
        self_refs = {
            f.attname: None
            for f in model._meta.concrete_fields
            if f.is_relation and f.related_model is model and f.null
        }
        if self_refs:
            rows_of(model, tournament).update(**self_refs)
        model._base_manager.filter(
            pk__in=list(rows_of(model, tournament).values_list("pk", flat=True))
        ).delete()


def import_tournament(text: str, *, replace: bool = False):
    return import_data(loads(text), replace=replace)
