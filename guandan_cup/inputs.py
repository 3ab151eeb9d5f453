"""What people type into forms, read without surprises: numbers, names, free text, dates.

``str.isdigit()`` is true for "²" and "①", which ``int()`` refuses (a 500 before this
module), and ``int()`` reads any length of digits, which a database column does not hold.
A name typed with an invisible character in it is the same name (:func:`normalise_name`).
"""

import re
import unicodedata

# The largest values the columns hold on every backend we run on (PostgreSQL is the strict one).
SMALL_INT = 32767  # PositiveSmallIntegerField
INT = 2147483647  # PositiveIntegerField
BIG_INT = 9223372036854775807  # BigIntegerField


def whole_number(text, *, maximum: int) -> int | None:
    """A whole number ≥ 0 as typed — decimal digits only, full-width ones from a Chinese
    keyboard too (``int()`` reads them) — or None if it is not one or is above ``maximum``."""
    text = str(text or "").strip()
    if not text.isdecimal() or len(text) > len(str(maximum)):
        return None
    value = int(text)
    return value if value <= maximum else None


# Control (Cc) and format (Cf) characters: zero-width space and joiner, soft hyphen, the bidi
# controls (U+202A–U+202E, U+2066–U+2069), BOM … — and lone surrogates (Cs), which no
# UTF-8 column can hold; private-use (Co) and unassigned (Cn) code points, which no font
# shows the same way twice. White space among the controls (tab, line feed) becomes a space.
_INVISIBLE = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SPACE_IN_CJK = re.compile(r"(?<=[\u3400-\u9fff\uf900-\ufaff·]) (?=[\u3400-\u9fff\uf900-\ufaff·])")


def _visible(text: str) -> str:
    return "".join(
        " " if ch.isspace() else ch
        for ch in text
        if ch.isspace() or unicodedata.category(ch) not in _INVISIBLE
    )


def without_invisibles(value) -> str:
    """Text without control and format characters, its white space collapsed to single
    spaces and trimmed: what an entry's name gets ("张三/李四（物理）"), which is made of names
    already normalised, joined by the house's full-width brackets that NFKC would fold."""
    return " ".join(_visible("" if value is None else str(value)).split())


def normalise_name(value) -> str:
    """A name — a person's, a unit's, a team's — as it is stored, compared and shown.

    Unicode NFKC (full-width letters and digits are half-width: "Ａ１" is "A1"), control and
    format characters removed (zero-width space and joiner, soft hyphen, bidi controls such
    as U+202E: invisible, they would make a second 张三丰 of one, or let one name pass for
    another), white space collapsed to one space and trimmed. Spaces inside a Chinese name
    are typing noise from Excel ("张 三" is 张三); in Latin names they are kept.
    """
    text = unicodedata.normalize("NFKC", _visible("" if value is None else str(value)))
    text = " ".join(_visible(text).split())
    if _CJK.search(text):
        text = _SPACE_IN_CJK.sub("", text)
    return text


def plain_text(value, *, limit: int | None = None) -> str:
    """Free text typed into a form, as a column keeps it: without NUL characters
    (PostgreSQL refuses them in text columns — a 500 before), trimmed, cut to ``limit``."""
    text = str(value or "").replace("\x00", "").strip()
    return text[:limit] if limit is not None else text


def sensible_year(value) -> bool:
    """Year 1 or 9999 is a slip — and 0001-01-01 00:00 in Beijing is before year 1 in UTC,
    which the database cannot store (a 500 before)."""
    return 1900 <= value.year <= 2999


def known_user(user):
    """The user to record as the actor of a write, or None (an anonymous or system write)."""
    return user if getattr(user, "is_authenticated", False) else None
