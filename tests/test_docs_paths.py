"""The README and the docs name only files that exist: every backticked path into the tree
(``tournaments/live/http.py``, ``bench/live.py``) is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = ("guandan_cup", "tournaments", "scoring", "templates", "static", "bench", "scripts")
TOP += ("tests", "docs", "locale", ".ci")
TOPS = "|".join(re.escape(t) for t in TOP)
PATH = re.compile(rf"`((?:{TOPS})/[\w./-]+)`")


def test_every_path_the_docs_name_exists():
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for found in PATH.findall(doc.read_text(encoding="utf-8")):
            path = found.rstrip(".")
            if not (ROOT / path).exists():
                missing.append(f"{doc.name}: {path}")
    assert missing == []
