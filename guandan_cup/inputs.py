"""Numbers typed into forms, read without surprises.

``str.isdigit()`` is true for "²" and "①", which ``int()`` refuses (a 500 before this
module), and ``int()`` reads any length of digits, which a database column does not hold.
"""

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
