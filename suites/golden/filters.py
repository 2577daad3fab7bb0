"""Row filters over the golden tables (``filters.json`` and ``trap-filters.json`` beside this module).

For every golden table, a list of filters in the JSON form of ``format/expressions-spec.md``:
``{"id", "description", "trap", "filter"}``; ``trap`` says which pruning bug the filter is built
to expose. ``filters.json`` is written by hand; ``trap-filters.json`` is the grid over the trap
tables (:mod:`suites.golden.trap_tables`), written by ``python -m tools.golden.trap_filters``.
The scan suites read every (table, snapshot, filter) with every reader; the bug corpus names a
reader bug's trap as ``<table> > <filter id>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILTERS_FILE = Path(__file__).resolve().parent / "filters.json"
TRAP_FILTERS_FILE = FILTERS_FILE.with_name("trap-filters.json")


def load(*paths: Path) -> dict[str, list[dict[str, Any]]]:
    """Table name -> its filters, from ``paths`` in order (by default the hand-written
    ``filters.json``, then the generated ``trap-filters.json``). A table listed by two files is
    an error: its filters would be split."""
    out: dict[str, list[dict[str, Any]]] = {}
    for path in paths or (FILTERS_FILE, TRAP_FILTERS_FILE):
        tables: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))["tables"]
        twice = sorted(set(tables) & set(out))
        if twice:
            raise ValueError(f"{path}: tables also listed by another filter file: {', '.join(twice)}")
        out.update(tables)
    return out
