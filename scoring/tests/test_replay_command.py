"""`manage.py guandan_replay` as docs/interfaces.md describes it: the acceptance checks call it."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.core.exceptions import ValidationError

from tournaments.models import Event

# The engine's public examples, kept in the repository so every clone runs them.
# The engine's public examples, kept beside its tests.
VECTORS = (
    Path(__file__).resolve().parents[1] / "engines" / "tests" / "data" / "guandan-vectors.json"
)


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


# ------------------------------------------------------------------ --ruleset-file

NANTONG_KEYS = {"id": "club-nantong", "name": "南通规则的变体", "promotion": [3, 2, 1]}
# A reaches A in four 双上 and declares; B takes 上游 (A's own A fails, no limit in
# Nantong); then A takes 双上 in B's deal - at A, but not A's own A deal.
A_AT_A_IN_THE_OPPONENTS_DEAL = [{"order": ["A", "A", "B", "B"]}] * 4 + [
    {"order": ["B", "B", "A", "A"]},
    {"order": ["A", "A", "B", "B"]},
]


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "guandan_replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=60,
    )


def _replay_custom(rules_text: str, events, tmp_path) -> subprocess.CompletedProcess:
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(rules_text, encoding="utf-8")
    return _run("--ruleset-file", str(rules_file), "-", stdin=json.dumps(events))


def _event_refusal(config: dict) -> str:
    """What the event itself says about ``config`` as its custom rule set."""
    event = Event(discipline=Event.Discipline.GUANDAN_PAIRS, ruleset_config=config)
    with pytest.raises(ValidationError) as excinfo:
        event.clean()
    return " ".join(excinfo.value.messages)


def test_a_custom_rule_set_where_a_is_passed_in_any_deal_ends_the_match(tmp_path):
    strict = _replay("nantong2014", A_AT_A_IN_THE_OPPONENTS_DEAL, via_stdin=True, tmp_path=tmp_path)
    assert json.loads(strict.stdout)["match_over"] is False  # strict: A must declare first
    lenient = {**NANTONG_KEYS, "id": "lenient", "a_win_requires_declarer": False}
    result = _replay_custom(json.dumps(lenient), A_AT_A_IN_THE_OPPONENTS_DEAL, tmp_path)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["match_over"] is True and state["winner"] == "A"
    assert state["decided_by"] == "passed_A"
    assert "a_failures" not in state  # no failure limit, no sudden death: Nantong's keys


def test_a_custom_failure_limit_sends_a_team_back_to_k_and_shows_the_count(tmp_path):
    club = {**NANTONG_KEYS, "id": "club", "a_fail_limit": 2, "a_fail_reset_to": 13}
    # A reaches A in four 双上, then fails its own A twice (上游, partner 末游).
    events = [{"order": ["A", "A", "B", "B"]}] * 4 + [{"order": ["A", "B", "B", "A"]}] * 2
    result = _replay_custom(json.dumps(club), events, tmp_path)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state["levels"] == {"A": "K", "B": "2"}
    assert state["a_failures"] == {"A": 0, "B": 0}
    assert state["declarer"] == "A"


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({**NANTONG_KEYS, "promotion": [3, 2]}, id="two_promotions"),
        pytest.param({**NANTONG_KEYS, "colour": "red"}, id="unknown_key"),
        pytest.param({**NANTONG_KEYS, "games_to_win": 2}, id="levels_rule_with_best_of_3"),
        pytest.param({"id": "x", "name": "x"}, id="no_promotion"),
    ],
)
def test_an_invalid_custom_rule_set_gets_the_events_own_message(config, tmp_path):
    result = _replay_custom(json.dumps(config), [{"order": ["A", "A", "B", "B"]}], tmp_path)
    assert result.returncode != 0
    assert result.stdout == ""
    message = _event_refusal(config)
    assert message.startswith("自定义规则参数有误：")
    assert message in result.stderr


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param("{not json", "is not JSON", id="not_json"),
        pytest.param("[3, 2, 1]", "must hold a JSON object", id="a_list"),
        pytest.param('"nantong2014"', "must hold a JSON object", id="a_string"),
    ],
)
def test_a_rule_set_file_that_is_not_a_json_object_is_refused(text, says, tmp_path):
    result = _replay_custom(text, [{"order": ["A", "A", "B", "B"]}], tmp_path)
    assert result.returncode != 0
    assert result.stdout == ""
    assert says in result.stderr and "rules.json" in result.stderr


def test_it_takes_exactly_one_of_a_preset_and_a_rule_set_file(tmp_path):
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(NANTONG_KEYS), encoding="utf-8")
    both = _run("--ruleset", "anhui2021", "--ruleset-file", str(rules_file), "-", stdin="[]")
    assert both.returncode != 0 and "not allowed with" in both.stderr
    neither = _run("-", stdin="[]")
    assert neither.returncode != 0 and "--ruleset-file" in neither.stderr
