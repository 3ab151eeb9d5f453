"""Every installed package is pinned: the locks name each one with its hashes, agree with
the pins in requirements*.txt, and the running venv holds exactly what the lock names."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)")


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line.strip())
        if match:
            pins[_name(match.group(1))] = match.group(2)
    return pins


def _lock(path: Path) -> dict[str, tuple[str, int]]:
    """name -> (version, number of hashes)."""
    entries, current = {}, None
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            current = _name(match.group(1))
            entries[current] = (match.group(2), 0)
        elif current and line.strip().startswith("--hash=sha256:"):
            version, hashes = entries[current]
            entries[current] = (version, hashes + 1)
    return entries


@pytest.mark.parametrize(
    ("lock", "sources"),
    [
        ("requirements.lock", ["requirements.txt"]),
        ("requirements-dev.lock", ["requirements.txt", "requirements-dev.txt"]),
    ],
)
def test_the_lock_pins_every_requirement_with_hashes(lock, sources):
    entries = _lock(ROOT / lock)
    assert entries, lock
    for source in sources:
        for name, version in _pins(ROOT / source).items():
            assert entries.get(name, (None,))[0] == version, f"{name}=={version} not in {lock}"
    unhashed = [name for name, (_v, hashes) in entries.items() if hashes == 0]
    assert not unhashed, f"no hash in {lock}: {unhashed}"


def test_both_locks_agree_on_the_runtime_packages():
    runtime, dev = _lock(ROOT / "requirements.lock"), _lock(ROOT / "requirements-dev.lock")
    assert {name: v for name, (v, _h) in runtime.items()} == {
        name: dev[name][0] for name in runtime
    }


@pytest.mark.skipif(
    Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
    reason="not running in the project's .venv",
)
def test_the_venv_holds_exactly_what_the_lock_names():
    locked = {
        name: version for name, (version, _h) in _lock(ROOT / "requirements-dev.lock").items()
    }
    installed = {_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    assert installed == locked
