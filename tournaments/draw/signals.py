"""What the draw announces to the apps built on it: ties whose entries are now known, ties
whose hall tables the schedule has set, and the tables the schedule gave their own referee.

``tournaments`` never imports ``scoring``: the draw sends ``pairing_changed`` with the ties
whose two entries were just set (or changed), and ``scoring`` — connected in
``ScoringConfig.ready()`` — drops the tables of a re-paired tie that has not started and
creates the tables of every tie that now has both entries.
"""

from django.dispatch import Signal

# Sent with matches=[Match, …] (undecided ties, their rounds' stages and events loaded) and
# repaired=bool: True when a tie's entries changed after its tables may have been made.
pairing_changed = Signal()

# Sent with matches=[Match, …] whose first hall table (Match.first_table) was set or changed.
tables_placed = Signal()

# Sent with event=Event and referees={TableMatch id: Official or None}: the schedule gave
# these tables of a team tie their own referee (None: the tie's referee covers it again).
table_referees_set = Signal()


def announce(matches, *, repaired: bool = False) -> None:
    matches = [m for m in matches if not m.is_decided]
    if matches:
        pairing_changed.send(sender=None, matches=matches, repaired=repaired)
