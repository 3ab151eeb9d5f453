"""The errors people read share one base (``guandan_cup.errors.UserError``) carrying a code
and a message; the pure engines keep their own (``EngineError`` for a table's input,
``RuleSetError`` for a rule set that cannot be used)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from guandan_cup.errors import UserError
from scoring.engines.common import EngineError, RuleSetError

PACKAGES = ("guandan_cup", "tournaments", "scoring")


def _error_classes() -> dict[str, type]:
    found = {}
    for root in PACKAGES:
        package = importlib.import_module(root)
        for info in pkgutil.walk_packages(package.__path__, f"{root}."):
            if ".tests" in info.name or ".migrations" in info.name:
                continue
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and issubclass(value, Exception)
                    and value.__module__ == info.name
                ):
                    found[f"{info.name}.{name}"] = value
    return found


@pytest.mark.django_db
def test_every_error_of_the_project_is_a_user_error_or_the_engines_own():
    classes = _error_classes()
    # The classes people read today; a new one is found by the scan below.
    for name in (
        "tournaments.draw.rules.common.DrawError",
        "tournaments.draw.rules.swiss.PairingError",
        "tournaments.draw.plan.ResultError",
        "tournaments.ops.backup.BackupError",
        "tournaments.registration.services.RegistrationError",
        "tournaments.manage.services.SetupError",
        "tournaments.links.services.LoginLinkError",
        "scoring.services.common.TableError",
        "tournaments.draw.status.StatusError",
    ):
        assert issubclass(classes[name], UserError), name
    stray = [
        name
        for name, cls in classes.items()
        if not issubclass(cls, (UserError, EngineError, RuleSetError)) and cls is not UserError
    ]
    assert stray == []


def test_a_user_error_carries_its_code_and_message():
    from scoring.services.common import TableError
    from tournaments.ops.backup import BackupError

    err = TableError("stale", "请刷新页面")
    assert (err.code, err.message, str(err)) == ("stale", "请刷新页面", "请刷新页面")
    assert BackupError("文件不是备份").code == "invalid_backup"


def test_a_pure_rules_message_is_worded_in_the_readers_language_when_read():
    """The draw's rules know no Django: they raise their Chinese message and its values, and
    the message is put into the reader's language each time it is read."""
    import re

    from django.utils import translation

    from tournaments.draw.rules import knockout
    from tournaments.draw.rules.common import DrawError

    try:
        knockout.physical_draw({"甲": 1, "乙": 1})
    except DrawError as err:
        caught = err
    with translation.override("zh-hans"):
        assert caught.message == "1号签被'甲'和'乙'重复使用。"
    with translation.override("en"):
        assert caught.message == "Lot 1 was drawn by both '甲' and '乙'."
        assert not re.search(r"[\u4e00-\u9fff]", caught.message.replace("甲", "").replace("乙", ""))
    assert caught.code == "duplicate_lot"
