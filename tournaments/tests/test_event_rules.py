import pytest
from django.core.exceptions import ValidationError

from scoring.engines.guandan.play import ANHUI_2021, NANTONG_2014
from tournaments.models import Event


@pytest.fixture
def tournament(make_tournament):
    return make_tournament()


def _event(tournament, **fields) -> Event:
    defaults = dict(slug="guandan", name="掼蛋", discipline=Event.Discipline.GUANDAN_PAIRS)
    return Event(tournament=tournament, **{**defaults, **fields})


def test_a_guandan_event_uses_its_preset(tournament):
    assert _event(tournament, ruleset="anhui2021").scorer().rules == ANHUI_2021
    assert _event(tournament, ruleset="nantong2014").scorer().rules == NANTONG_2014


def test_an_organiser_can_build_a_custom_rule_set(tournament):
    config = {
        **NANTONG_2014.to_dict(),
        "id": "club",
        "name": "俱乐部规则",
        "a_fail_limit": 3,
        "a_fail_reset_to": 13,
        "a_win_partner_places": [2],
    }
    event = _event(tournament, ruleset_config=config)
    event.full_clean()
    rules = event.scorer().rules
    assert rules.a_fail_limit == 3
    assert rules.a_fail_reset_to == 13
    assert rules.a_win_partner_places == frozenset({2})


def test_a_broken_custom_rule_set_is_refused_with_the_reason(tournament):
    event = _event(tournament, ruleset_config={"id": "x", "name": "x", "promotion": [3, 2]})
    with pytest.raises(ValidationError) as excinfo:
        event.full_clean()
    assert "自定义规则参数有误" in str(excinfo.value)


@pytest.mark.parametrize("config", [[1], 5, "anhui2021", True])
@pytest.mark.parametrize("discipline", [Event.Discipline.GUANDAN_PAIRS, Event.Discipline.XIANGQI])
def test_a_custom_rule_set_that_is_not_an_object_is_refused_in_words(
    tournament, config, discipline
):
    event = _event(tournament, discipline=discipline, ruleset_config=config)
    with pytest.raises(ValidationError) as excinfo:
        event.clean()
    assert excinfo.value.message_dict == {
        "ruleset_config": ["自定义规则参数有误：rule set must be a JSON object"]
    }


def test_a_guandan_event_without_rules_is_refused(tournament):
    with pytest.raises(ValidationError) as excinfo:
        _event(tournament).full_clean()
    assert "升级规则" in str(excinfo.value)


def test_other_sports_have_no_guandan_rules(tournament):
    event = _event(tournament, slug="xiangqi", discipline=Event.Discipline.XIANGQI)
    assert event.scorer().kind == "xiangqi"
    event.save()  # the entry kind follows the discipline unless the organiser chose one
    assert event.entry_kind == Event.EntryKind.SINGLE
