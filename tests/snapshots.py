"""Every row of the tournaments and scoring apps (and every account), to show that a refused
or failed request changed nothing at all."""

from __future__ import annotations

from django.apps import apps
from django.contrib.auth import get_user_model

from tournaments.ops import backup


def app_models():
    return [m for app in backup.APPS for m in apps.get_app_config(app).get_models()]


def snapshot() -> dict:
    """{model label: {pk: row as a dict}} for both apps, their many-to-many links and users."""
    out = {}
    for model in app_models():
        out[backup.label(model)] = {
            row["id"]: row for row in model._base_manager.order_by("pk").values()
        }
        for f in model._meta.many_to_many:
            through = f.remote_field.through
            out[backup.label(through)] = {
                row["id"]: row for row in through._base_manager.order_by("pk").values()
            }
    out["auth.user"] = {
        row["id"]: row
        for row in get_user_model()
        .objects.order_by("pk")
        .values("id", "username", "password", "is_active", "is_staff", "is_superuser")
    }
    return out


def changes(before: dict, after: dict) -> list[tuple[str, int, dict | None, dict | None]]:
    """(label, pk, old row, new row) for every row added, removed or changed."""
    out = []
    for name in before.keys() | after.keys():
        old, new = before.get(name, {}), after.get(name, {})
        for pk in old.keys() | new.keys():
            if old.get(pk) != new.get(pk):
                out.append((name, pk, old.get(pk), new.get(pk)))
    return sorted(out, key=lambda c: (c[0], c[1]))
