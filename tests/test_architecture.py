"""The house rules of the code, read from its source: imports run down the layers, there is
no import cycle (lazy imports inside functions included), the engines stay pure, no view
module leans on another, and no module outgrows a newcomer's reading.

``docs/architecture.md`` explains the layers; this test is what keeps them.
"""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatch
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APPS = ("guandan_cup", "tournaments", "scoring")
MAX_LINES = 500

# Each layer may import its own layer and the layers below it. First match wins.
LAYERS: list[tuple[int, str, tuple[str, ...]]] = [
    (
        0,
        "engines and pure helpers",
        (
            "scoring.engines",
            "scoring.engines.*",
            "tournaments.draw.rules",
            "tournaments.draw.rules.*",
            "tournaments.standings.rules",
            "tournaments.day.planner",
            "tournaments.day.clashes",
            "tournaments.documents.notice",
            "guandan_cup.inputs",
            "guandan_cup.errors",
        ),
    ),
    (
        0,
        "settings and infrastructure",
        (
            "guandan_cup",
            "guandan_cup.settings",
            "guandan_cup.cache",
            "guandan_cup.middleware",
            "guandan_cup.checks",
            "guandan_cup.wsgi",
            "guandan_cup.asgi",
            "guandan_cup.passwords",
            "guandan_cup.proxies",
            "guandan_cup.throttle",
            "guandan_cup.words",
            "guandan_cup.prepared",
            "guandan_cup.formats",
            "guandan_cup.formats.*",
        ),
    ),
    (
        1,
        "models",
        (
            "tournaments",
            "scoring",
            "tournaments.models",
            "tournaments.models.*",
            "scoring.models",
            "tournaments.live.stamps",
            "tournaments.draw.signals",
            "tournaments.draw",
            "tournaments.live",
            "tournaments.documents",
            "tournaments.links",
            "tournaments.registration",
            "tournaments.manage",
            "tournaments.ops",
            "tournaments.setup",
            "tournaments.standings",
            "tournaments.day",
        ),
    ),
    (
        2,
        "services, selectors and forms",
        (
            "tournaments.access",
            "tournaments.homes",
            "tournaments.draw.*",
            "tournaments.standings.*",
            "tournaments.day.*",
            "tournaments.registration.services",
            "tournaments.registration.forms",
            "tournaments.registration.spreadsheets",
            "tournaments.registration.spreadsheets.*",
            "tournaments.registration.*",
            "tournaments.links.services",
            "tournaments.manage.forms",
            "tournaments.manage.services",
            "tournaments.manage.selectors",
            "tournaments.setup.forms",
            "scoring.services",
            "scoring.services.*",
            "scoring.selectors",
            "scoring.receivers",
            "scoring.entries",
        ),
    ),
    (
        3,
        "live pages and documents",
        (
            "tournaments.live.http",
            "tournaments.live.gzip_splice",
            "tournaments.documents.pdf",
            "tournaments.documents.build",
            "tournaments.documents.*",
            "tournaments.live.*",
            "scoring.templatetags",
            "scoring.templatetags.*",
            "guandan_cup.templatetags",
            "guandan_cup.templatetags.*",
            "scoring.table_page",
        ),
    ),
    (
        4,
        "views",
        (
            "*.views",
            "*.views.*",
            "tournaments.live.screen",
            "guandan_cup.accounts",
        ),
    ),
    (5, "URL confs", ("*.urls",)),
    (
        6,
        "operations, commands and wiring",
        (
            "tournaments.ops.*",
            "*.management.commands.*",
            "*.management",
            "*.management.commands",
            "*.apps",
            "*.admin",
            "tournaments.checks",
        ),
    ),
]
# tournaments' own layers below the pages never reach into scoring (scoring builds on
# tournaments); the pure engines are a library both may use.
DOMAIN_OF_TOURNAMENTS_MAX_LAYER = 2
VIEW_MODULES = ("*.views", "*.views.*", "tournaments.live.screen", "guandan_cup.accounts")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


@cache
def project_modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT).parts
            if "migrations" in rel or "tests" in rel:
                continue
            found[_module_name(path)] = path
    return found


def _is_package(name: str) -> bool:
    return project_modules()[name].name == "__init__.py"


def imports_of(name: str) -> set[str]:
    """Every project module ``name`` imports, at the top or inside a function."""
    modules = project_modules()
    tree = ast.parse(modules[name].read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name if _is_package(name) else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                if f"{base}.{alias.name}" in modules:
                    found.add(f"{base}.{alias.name}")
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def third_party_imports_of(name: str) -> set[str]:
    tree = ast.parse(project_modules()[name].read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def layer_of(name: str) -> tuple[int, str]:
    # Pages, URL confs and operations are named by their last part (…views, …urls) and
    # are matched before the folders they live in.
    for number, label, patterns in sorted(LAYERS, key=lambda layer: layer[0] < 4):
        if any(fnmatch(name, pattern) for pattern in patterns):
            return number, label
    raise AssertionError(f"{name} is in no layer: add it to LAYERS in {__file__}")


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def graph() -> dict[str, set[str]]:
    return {name: imports_of(name) for name in project_modules()}


# ----------------------------------------------------------------------------- the checks


def test_the_graph_helpers_find_what_they_should():
    # The checks below are only as good as these: a cycle through three modules is found,
    # a chain is not a cycle.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []
    assert "tournaments.models" in imports_of("scoring.models")
    assert layer_of("scoring.engines.guandan.play")[0] == 0
    assert layer_of("tournaments.live.views")[0] == 4


def test_no_import_cycle_lazy_imports_included():
    assert cycles(graph()) == []


def test_every_import_runs_down_the_layers():
    upward = []
    for name, targets in graph().items():
        mine, label = layer_of(name)
        for target in targets:
            theirs, their_label = layer_of(target)
            if theirs > mine:
                upward.append(f"{name} ({label}) imports {target} ({their_label})")
    assert upward == []


def test_tournaments_domain_never_imports_scoring():
    reaching = []
    for name, targets in graph().items():
        if not name.startswith("tournaments") or layer_of(name)[0] > (
            DOMAIN_OF_TOURNAMENTS_MAX_LAYER
        ):
            continue
        for target in targets:
            if target.startswith("scoring") and not target.startswith("scoring.engines"):
                reaching.append(f"{name} imports {target}")
    assert reaching == []


def test_engines_are_pure():
    allowed_roots = {"__future__", "collections", "dataclasses", "typing", "math", "random"}
    allowed_roots |= {"heapq", "itertools", "functools", "enum", "re", "json", "unicodedata"}
    allowed_roots |= {"contextlib", "operator", "string", "fractions", "statistics", "bisect"}
    # Text libraries, pure functions of a string: Unicode properties, traditional → simplified.
    allowed_roots |= {"regex", "opencc"}
    impure = []
    for name in project_modules():
        if layer_of(name) != (0, "engines and pure helpers"):
            continue
        roots = third_party_imports_of(name) - {"scoring", "tournaments", "guandan_cup"}
        if roots - allowed_roots:
            impure.append(f"{name} imports {sorted(roots - allowed_roots)}")
        for target in imports_of(name):
            if layer_of(target) != (0, "engines and pure helpers"):
                impure.append(f"{name} imports {target}")
    assert impure == []


def test_no_view_module_imports_another():
    leaning = []
    for name, targets in graph().items():
        if not any(fnmatch(name, p) for p in VIEW_MODULES):
            continue
        for target in targets:
            if any(fnmatch(target, p) for p in VIEW_MODULES):
                leaning.append(f"{name} imports {target}")
    assert leaning == []


def test_every_module_the_rules_name_exists():
    """A row naming a module that is not there checks nothing: each pattern of LAYERS and
    VIEW_MODULES must match a module of the project."""
    names = set(project_modules())
    patterns = [p for _n, _label, ps in LAYERS for p in ps] + list(VIEW_MODULES)
    missing = [p for p in patterns if not any(fnmatch(name, p) for name in names)]
    assert missing == []


def _scripts() -> dict[str, Path]:
    """bench/ and scripts/: Python run as programs, held to the same budget."""
    found = {}
    for path in sorted([*ROOT.glob("bench/*.py"), *ROOT.glob("scripts/*")]):
        if path.is_file() and (
            path.suffix == ".py"
            or path.read_text(encoding="utf-8").startswith("#!/usr/bin/env python")
        ):
            found[str(path.relative_to(ROOT))] = path
    return found


def test_no_module_outgrows_the_line_budget():
    long = {
        name: n
        for name, path in {**project_modules(), **_scripts()}.items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


@pytest.mark.parametrize("name", sorted(project_modules()))
def test_every_module_begins_by_saying_what_it_is(name):
    path = project_modules()[name]
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return  # an empty package marker
    if path.parent.name == "commands" and re.search(r"^\s*help = ", text, re.M):
        return  # a management command says what it is in its help
    if path.name in ("apps.py", "urls.py", "admin.py", "wsgi.py", "asgi.py", "__init__.py"):
        return  # the file's name is what it is
    doc = ast.get_docstring(ast.parse(text))
    assert doc, f"{path.relative_to(ROOT)} has no docstring saying what it is"
