"""Excel registration forms (报名表) of one event: written as a template or an export, read back.

- :mod:`.layout` — the form's headers for each kind of event, shared by writing and reading;
- :mod:`.template` — the workbook writer and the blank form (:func:`template_workbook`);
- :mod:`.export` — every entry with its state in the same layout (:func:`export_workbook`);
- :mod:`.imports` — reading a filled-in form and importing it (:func:`import_workbook`);
- :mod:`.reading` — a form's rows read as entries, each part with its cell;
- :mod:`.safety` — the limits an upload must pass before openpyxl reads it, and the one
  function that makes every text cell the app writes inert (no formula, however it begins).

An exported file imports again into an empty copy of the event, name for name (the entries
still registered; the others are listed as left out).
"""
