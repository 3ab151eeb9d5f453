"""The registration form's layout: the headers of each kind of event and the rows they sit in.

One sheet with a title row, a header row and one row per pair (team events: a team is several
rows with the same 单位 and 对序号 1, 2, 3 …), per pair (pair events) or per player (single
events), plus a 说明 sheet with the rules that apply. The writer and the reader both use these
names, so a file the app writes is a file it reads.
"""

from __future__ import annotations

from django.utils import translation

from tournaments.models import Entry, Event, Unit

UNIT = "单位"
NUMBER = "对序号"
NAME = "姓名"
GENDER = "性别"
PLAYER_UNIT = "所属单位"
ON_SITE = "现场报名"
FIRST, SECOND = "选手一", "选手二"
EXAMPLE_PREFIX = "示例"
YES, NO = "是", "否"
# The export's own columns: every entry with its state (已报名, 已退赛, 取消资格 …) and the
# reason. A form read with them imports the entries still registered (a blank 状态 is one)
# and says which it left out; the blank template has neither.
STATUS, STATUS_REASON = "状态", "状态原因"
STATE_COLUMNS = (STATUS, STATUS_REASON)

COLUMNS: dict[str, tuple[str, ...]] = {
    Event.EntryKind.TEAM: (
        UNIT,
        NUMBER,
        FIRST + NAME,
        FIRST + GENDER,
        FIRST + PLAYER_UNIT,
        SECOND + NAME,
        SECOND + GENDER,
        SECOND + PLAYER_UNIT,
        ON_SITE,
    ),
    Event.EntryKind.PAIR: (
        UNIT,
        FIRST + NAME,
        FIRST + GENDER,
        SECOND + NAME,
        SECOND + GENDER,
        ON_SITE,
    ),
    Event.EntryKind.SINGLE: (UNIT, NAME, GENDER, ON_SITE),
}
# Columns a file may leave out: blank gender is allowed (男女不限), a blank 所属单位 is the
# entry's unit, a missing 现场报名 means a regular entry.
OPTIONAL = {
    FIRST + GENDER,
    SECOND + GENDER,
    GENDER,
    FIRST + PLAYER_UNIT,
    SECOND + PLAYER_UNIT,
    PLAYER_UNIT,
    ON_SITE,
    STATUS,
    STATUS_REASON,
}
# Pair and single layouts get 所属单位 columns only where a joint team (联队) could need them.
JOINT_EXTRA = {
    Event.EntryKind.PAIR: {
        FIRST + GENDER: FIRST + PLAYER_UNIT,
        SECOND + GENDER: SECOND + PLAYER_UNIT,
    },
    Event.EntryKind.SINGLE: {GENDER: PLAYER_UNIT},
}
# Matched by the end of the header, so 所属单位 comes before 单位.
WIDTHS = {
    PLAYER_UNIT: 14,
    UNIT: 18,
    NUMBER: 8,
    NAME: 12,
    GENDER: 10,
    ON_SITE: 10,
    STATUS: 10,
    STATUS_REASON: 24,
}
GENDER_TEXT = {"M": "男", "F": "女"}
TITLE_ROW, HEADER_ROW = 1, 2


def state_words() -> dict[str, str]:
    """Each entry state by the word the form writes for it (已报名 …), in Chinese whatever
    the language of the page that asks: the form's headers and words are Chinese."""
    with translation.override("zh-hans"):
        return {str(label): value for value, label in Entry.Status.choices}


def columns_for(event: Event) -> tuple[str, ...]:
    """The headers of the event's form: :data:`COLUMNS`, plus 所属单位 for pair and single
    events of tournaments with joint teams (their players belong to the member units)."""
    columns = COLUMNS[event.entry_kind]
    extra = JOINT_EXTRA.get(event.entry_kind)
    if not extra or not event.tournament.units.filter(kind=Unit.Kind.JOINT).exists():
        return columns
    result: list[str] = []
    for header in columns:
        result.append(header)
        if header in extra:
            result.append(extra[header])
    return tuple(result)
