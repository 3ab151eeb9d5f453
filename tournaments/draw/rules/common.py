"""What every draw rule shares: the round names, the one user-fixable error (``DrawError``) and the checks of entries and seeds.

Pure rules, no Django."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from guandan_cup.errors import N_, UserError
from scoring.engines.board import Words, words

FINAL_NAME = "决赛"


CHAMPIONSHIP_NAME = "冠军争夺战"  # the Nantong draw sheet's name for the final


SEMI_FINAL_NAME = "半决赛"


THIRD_PLACE_NAME = "季军争夺战"


# The stages' names as the draw stores them (in Chinese, whatever the language of the person
# who drew): the pages word them for their reader with name_words().
KNOCKOUT_STAGE_NAME = "淘汰赛"
QUALIFYING_STAGE_NAME = "预赛"
GROUP_STAGE_NAME = "小组赛"
FINAL_STAGE_NAME = "决赛阶段"
SWISS_QUALIFYING_NAME = "预赛（积分编排）"
SWISS_STAGE_NAME = "积分编排赛"

_FIXED_NAMES = {
    FINAL_NAME: words("决赛"),
    CHAMPIONSHIP_NAME: words("冠军争夺战"),
    SEMI_FINAL_NAME: words("半决赛"),
    THIRD_PLACE_NAME: words("季军争夺战"),
    "1/4决赛": words("1/4决赛"),
    KNOCKOUT_STAGE_NAME: words("淘汰赛"),
    QUALIFYING_STAGE_NAME: words("预赛"),
    GROUP_STAGE_NAME: words("小组赛"),
    FINAL_STAGE_NAME: words("决赛阶段"),
    SWISS_QUALIFYING_NAME: words("预赛（积分编排）"),
    SWISS_STAGE_NAME: words("积分编排赛"),
}
_FRACTION = re.compile(r"1/(\d+)决赛")
_ROUND = re.compile(r"第(\d+)轮")
_GROUP = re.compile(r"([A-Z]{1,2})组")


def round_number_name(number: int) -> str:
    """第3轮: a round of groups or of Swiss pairing, as stored."""
    return f"第{number}轮"


def name_words(name: str) -> Words | str:
    """A stage's, round's or group's stored name as words for its reader (1/8决赛: Round of
    16; 第3轮: Round 3; A组: Group A); a name the app did not make is kept as it is."""
    if name in _FIXED_NAMES:
        return _FIXED_NAMES[name]
    if match := _FRACTION.fullmatch(name):
        n = int(match[1])
        # English names the round by the entries left (Round of 16), not by n.
        # xgettext: no-python-format
        return words("1/%(n)s决赛", n=n, entries=2 * n)
    if match := _ROUND.fullmatch(name):
        return words("第%(n)s轮", n=int(match[1]))
    if match := _GROUP.fullmatch(name):
        return words("%(group)s组", group=match[1])
    return name


class DrawError(UserError):
    """Input the organiser can fix: ``code`` for programs and tests, ``message`` for people."""


def entry_list(entries: Sequence, minimum: int = 2) -> list:
    entries = list(entries)
    if any(entry is None for entry in entries):
        raise DrawError("missing_entry", N_("参赛队不能为空。"))
    counts = Counter(entries)
    repeated = [entry for entry, count in counts.items() if count > 1]
    if repeated:
        raise DrawError(
            "duplicate_entry", N_("参赛队%(repeated)s出现了不止一次。"), repeated=repr(repeated[0])
        )
    if len(entries) < minimum:
        raise DrawError(
            "too_few_entries",
            N_("至少需要%(minimum)s个参赛队，现在只有%(entries)s个。"),
            minimum=minimum,
            entries=len(entries),
        )
    return entries


def checked_seeds(seeds: Mapping | None, entries: list) -> dict:
    """Seeds as entry → 1..k, every number once: a gap is almost always a typing mistake."""
    if not seeds:
        return {}
    known = set(entries)
    for entry, number in seeds.items():
        if entry not in known:
            raise DrawError("unknown_entry", N_("种子%(entry)s不在参赛名单中。"), entry=repr(entry))
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise DrawError(
                "invalid_seed",
                N_("种子序号必须是正整数，%(entry)s的是%(number)s。"),
                entry=repr(entry),
                number=repr(number),
            )
    numbers = sorted(seeds.values())
    if len(set(numbers)) != len(numbers):
        repeated = next(n for n, c in Counter(numbers).items() if c > 1)
        raise DrawError(
            "duplicate_seed", N_("种子序号%(repeated)s用了不止一次。"), repeated=repeated
        )
    if numbers != list(range(1, len(numbers) + 1)):
        raise DrawError(
            "seed_gap", N_("种子序号必须从1起连续编号，现在是%(numbers)s。"), numbers=numbers
        )
    return dict(seeds)


def unit_key(entry, index: int, units: Mapping | None):
    """An entry's unit, or a key of its own when it has none (it then clashes with nobody)."""
    unit = units.get(entry) if units else None
    return ("unit", unit) if unit is not None else ("alone", index)


def whole_number_or_none(value) -> int | None:
    """A lot as typed: 3, 3.0, "3" or "３" (full-width, from a Chinese keyboard)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    if isinstance(value, str):
        try:
            return int(value.strip())  # int() accepts full-width digits
        except ValueError:
            return None
    return None
