"""How a table looks to people, in one shape for every sport: what each engine's ``board``
and ``sheet`` give and what the pages and PDFs render, so no template or document reads an
engine's state or a record's payload, and no page asks which sport it shows.

Pure Python, standard library only (no Django). The words are kept as their Chinese
message and its arguments (:class:`Words`) and worded in the reader's language when shown
(the ``say`` template filter of :mod:`scoring.templatetags.boards`); ``str()`` gives the
Chinese, as the PDFs print it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Words:
    """A sentence for people: its Chinese message in Django's ``%(name)s`` form (the same
    message a template's ``blocktranslate`` would make, so one translation serves both) and
    its arguments, which may be words themselves. ``strong`` names the arguments shown in
    bold."""

    text: str
    args: tuple[tuple[str, Any], ...] = ()
    strong: frozenset[str] = frozenset()

    def __str__(self) -> str:
        return self.worded(lambda text: text)

    def worded(self, translate, wrap=None) -> str:
        """The sentence with ``translate`` applied to it and to every argument that is words;
        ``wrap(name, text)`` may mark an argument up (the pages' bold; ``name`` is None for
        the arguments not in ``strong``)."""
        values = {}
        for name, value in self.args:
            text = value.worded(translate, wrap) if isinstance(value, Words) else str(value)
            values[name] = wrap(name if name in self.strong else None, text) if wrap else text
        message = translate(self.text) if self.text else ""  # gettext("") is the catalog's header
        return message % values if self.args else message

    def to_json(self) -> dict:
        """The words as JSON, to keep them (an audit entry): ``{"text": …, "args": {…}}``,
        an argument that is words itself nested the same way; ``strong`` only when set."""
        data: dict[str, Any] = {"text": self.text}
        if self.args:
            data["args"] = {
                name: value.to_json() if isinstance(value, Words) else value
                for name, value in self.args
            }
        if self.strong:
            data["strong"] = sorted(self.strong)
        return data

    @classmethod
    def from_json(cls, data: Mapping) -> Words:
        """The words :meth:`to_json` kept (an object among the arguments is words too)."""
        args = tuple(
            (str(name), cls.from_json(value) if isinstance(value, Mapping) else value)
            for name, value in (data.get("args") or {}).items()
        )
        return cls(str(data.get("text", "")), args, frozenset(data.get("strong") or ()))


def words(text: str, *, strong: tuple[str, ...] = (), **args: Any) -> Words:
    """``words("第%(n)s局", n=2)``; ``strong=("n",)`` shows the number in bold on a page."""
    return Words(text, tuple(args.items()), frozenset(strong))


def joined(parts: list[Words], sep: str = " · ") -> Words:
    """Several sentences on one line (each worded on its own)."""
    parts = [p for p in parts if p is not None]
    names = [f"p{i}" for i in range(len(parts))]
    return Words(sep.join(f"%({n})s" for n in names), tuple(zip(names, parts, strict=True)))


def clauses(parts: list[Words | str | None], text: str = "%(a)s；%(b)s") -> Words:
    """Clauses one after another, each joined to the ones before by ``text`` (a message with
    ``%(a)s`` and ``%(b)s``: "；" between them in Chinese, "; " in English). ``text`` must
    be a message ``make messages`` finds, such as :data:`THEN`."""
    kept = [p for p in parts if p is not None and p != ""]
    if not kept:
        return NOTHING
    line = kept[0] if isinstance(kept[0], Words) else Words("%(a)s", (("a", kept[0]),))
    for part in kept[1:]:
        line = Words(text, (("a", line), ("b", part)))
    return line


NOTHING = Words("")
# How clauses follow one another in the reader's language ("；" in Chinese, "; " in English):
# a message of its own, found by ``make messages`` here.
THEN = words("%(a)s；%(b)s").text


@dataclass(frozen=True)
class BoardSide:
    """One side of the scoreboard: its name, its big number and the line under it."""

    team: str  # "A" (home) or "B" (away)
    name: str | Words  # the side's name, or 主方/客方 before it has one
    score: str  # as shown: a level ("10", "A"), games won ("2"), points ("1½")
    caption: Words = NOTHING  # under the number: 局 1 · 打A未过 1/3, 胜局 · 发球, 积分
    marked: bool = False  # the side whose level is played, or who serves


@dataclass(frozen=True)
class Board:
    """A table as people see it, in any sport.

    ``status`` is the line under the scoreboard (whose level, game or move it is, or the
    end); ``running`` a game in progress (第2局 11 – 9); ``games`` the games so far, one
    sentence each; ``brief`` the score in one short line for cards, chips and boards, with
    ``note`` under it; ``heading`` what the numbers are (级数, 比分); ``entry`` the hints a
    referee's entry forms read (the next game's number, who must move first …)."""

    sides: tuple[BoardSide, BoardSide]
    status: Words
    brief: Words
    heading: Words
    started: bool = False
    over: bool = False
    winner: str | None = None
    how: Words | None = None  # how it was won, when worth saying
    note: Words | None = None  # under the score on the referees' board
    line: Words | None = None  # a tie page's card: 已结束, 打 10, 第2局 5 – 3, 未开始
    after_whistle: Words | None = None  # what the whistle means while play goes on
    running: Words | None = None
    games: tuple[Words, ...] = ()
    chips: tuple[Words, ...] = ()
    entry: Mapping[str, Any] = field(default_factory=dict)

    @property
    def home(self) -> BoardSide:
        return self.sides[0]

    @property
    def away(self) -> BoardSide:
        return self.sides[1]


@dataclass(frozen=True)
class Sheet:
    """A table's record on the paper score sheet: the grid's column headings, its filled
    rows (cells as text), how many numbered blank rows follow (``blank_from`` the first
    blank row's number, with a note per blank row number where the rules want one), and the
    box of penalties and forfeits with its title. Text is words or names (``str()`` gives
    the Chinese the paper prints)."""

    columns: tuple[str | Words, ...]
    rows: tuple[tuple[str | Words, ...], ...]
    notes_title: str | Words
    notes: tuple[str | Words, ...] = ()
    blank_rows: int = 0
    blank_from: int = 1
    blank_notes: Mapping[int, str | Words] = field(default_factory=dict)
    numbered_blanks: bool = True  # False: the blank rows are drawn once as a picture
    ended: bool = False
    widths: tuple[str, ...] = ()  # a class per column for the print CSS (its width)

    @property
    def heads(self) -> list[tuple[str | Words, str]]:
        """(heading, class) of each column; the first is the row number's."""
        classes = self.widths or ("n",) + ("",) * (len(self.columns) - 1)
        return list(zip(self.columns, classes, strict=False))

    @property
    def blanks(self) -> list[tuple[int, str | Words]]:
        return [
            (n, self.blank_notes.get(n, ""))
            for n in range(self.blank_from, self.blank_from + self.blank_rows)
        ]


@dataclass(frozen=True)
class RecordItem:
    """One recorded event as the score sheet reads it: its stored JSON and the reason the
    referee gave (a penalty's 违规 …)."""

    payload: Mapping
    reason: str = ""


def side_label(team: str, names: Mapping[str, str]) -> str | Words:
    """A side by its name, else 主方/客方 (home/away) in the reader's language."""
    return names.get(team) or (words("主方") if team == "A" else words("客方"))
