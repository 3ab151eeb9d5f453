"""The organiser's set-up pages: a new tournament, a copy of an earlier one, the venues."""
