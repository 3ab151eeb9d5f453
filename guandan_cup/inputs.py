"""What people type into forms, read without surprises: numbers, names, free text, dates.

``str.isdigit()`` is true for "²" and "①", which ``int()`` refuses (a 500 before this
module), and ``int()`` reads any length of digits, which a database column does not hold.
A name is stored as typed, less what cannot be seen (:func:`clean_name`), and compared by
its key (:func:`name_key`): 張偉 is 张伟, and no invisible character makes a second 张三丰.
"""

import unicodedata

import opencc
import regex

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


# What a name keeps out: every Default_Ignorable_Code_Point (zero-width space and joiners,
# soft hyphen, the combining grapheme joiner U+034F, variation selectors, the Hangul fillers
# U+115F and U+3164, BOM …: shown as nothing, by the Unicode property, not a hand list), the
# control and format characters (Cc, Cf: the bidi controls U+202A–U+202E, U+2066–U+2069),
# lone surrogates (Cs, which no UTF-8 column holds), private-use (Co) and unassigned (Cn)
# code points, which no font shows the same way twice. White space becomes a space first.
_HIDDEN = regex.compile(r"[\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}]")
_SPACE = regex.compile(r"\s+")
_CJK_SPACE = regex.compile(r"(?<=[\p{Han}·]) (?=[\p{Han}·])")
_TO_SIMPLIFIED = opencc.OpenCC("t2s")


def clean_name(value) -> str:
    """A name — a person's, a unit's, a tournament's — as it is stored and shown: what was
    typed, only its invisible and control characters removed (zero-width, bidi controls,
    fillers …) and its white space collapsed to single spaces and trimmed. Full-width
    punctuation stays as typed: "后勤（一组）：食堂，" reads back exactly so."""
    text = _SPACE.sub(" ", "" if value is None else str(value))
    return " ".join(_HIDDEN.sub("", text).split())


def name_key(value) -> str:
    """A name's identity, apart from how it is written: two names with one key are one
    name — one unit, one person — for every duplicate check and the one-event rule.

    The clean name (:func:`clean_name`), then Unicode NFKC (full-width letters and digits
    are half-width, "Ａ１" is "a1"), hidden code points removed again (NFKC can make some),
    traditional forms folded to simplified (OpenCC's t2s: 張偉 is 张伟), case folded, and the
    spaces inside Chinese text dropped ("张 三" is 张三; in Latin names one space stays)."""
    text = unicodedata.normalize("NFKC", clean_name(value))
    text = " ".join(_HIDDEN.sub("", text).split())
    text = _TO_SIMPLIFIED.convert(text).casefold()
    return _CJK_SPACE.sub("", text)


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
