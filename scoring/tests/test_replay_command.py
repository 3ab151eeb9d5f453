"""`manage.py guandan_replay` as docs/interfaces.md describes it: the acceptance checks call it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

# The engine's public examples, kept in the repository so every clone runs them.
VECTORS = Path(__file__).resolve().parent / "data" / "guandan-vectors.json"


def _replay(ruleset: str, events, *, via_stdin: bool, tmp_path) -> subprocess.CompletedProcess:
    args = [sys.executable, "manage.py", "guandan_replay", "--ruleset", ruleset]
    text = json.dumps(events, ensure_ascii=False)
    if via_stdin:
        return subprocess.run(
            args + ["-"],
            input=text,
            capture_output=True,
            text=True,
            cwd=settings.BASE_DIR,
            timeout=60,
        )
    path = tmp_path / "events.json"
    path.write_text(text, encoding="utf-8")
    return subprocess.run(
        args + [str(path)], capture_output=True, text=True, cwd=settings.BASE_DIR, timeout=60
    )


def _vectors():
    # Read at collection: a missing or broken file is an error, never a skip.
    data = json.loads(VECTORS.read_text(encoding="utf-8"))
    return [pytest.param(v, id=v["id"]) for v in data["vectors"]]


@pytest.mark.parametrize("vector", _vectors())
def test_the_command_reproduces_every_public_vector(vector, tmp_path):
    # Half the vectors go through a file, half through stdin.
    result = _replay(
        vector["ruleset"], vector["deals"], via_stdin=len(vector["id"]) % 2 == 0, tmp_path=tmp_path
    )
    output = json.loads(result.stdout)
    expected = vector["expected"]
    assert result.returncode == (1 if "error" in expected else 0), result.stderr
    for key, value in expected.items():
        assert output[key] == value, key


def test_it_prints_a_hand_computed_anhui_state(tmp_path):
    # 5/3/1 promotion: A takes 上游 with partner 三游 (2 -> 5), then B 双上 (2 -> 7).
    events = [{"order": ["A", "B", "A", "B"]}, {"order": ["B", "B", "A", "A"]}]
    result = _replay("anhui2021", events, via_stdin=True, tmp_path=tmp_path)
    assert result.returncode == 0
    state = json.loads(result.stdout)
    assert state["levels"] == {"A": "5", "B": "7"}
    assert state["declarer"] == "B"
    assert state["a_failures"] == {"A": 0, "B": 0}
    assert state["sudden_death"] is False


def test_it_reports_the_index_of_the_event_a_referee_must_fix(tmp_path):
    events = [{"order": ["A", "A", "B", "B"]}, {"time_up": True}, {"order": ["A", "B", "B", "B"]}]
    result = _replay("nantong2014", events, via_stdin=False, tmp_path=tmp_path)
    assert result.returncode == 1
    assert json.loads(result.stdout) == {"error": "match_over", "event_index": 2}


def test_it_refuses_an_unknown_ruleset_and_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    base = [sys.executable, "manage.py", "guandan_replay"]
    unknown = subprocess.run(
        base + ["--ruleset", "shanghai", str(bad)],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=60,
    )
    assert unknown.returncode != 0
    assert "invalid choice" in unknown.stderr
    not_json = subprocess.run(
        base + ["--ruleset", "anhui2021", str(bad)],
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=60,
    )
    assert not_json.returncode != 0
    assert "is not JSON" in not_json.stderr
