"""Row filters over the golden tables (``filters.json`` beside this module).

For every golden table, a list of filters in the JSON form of ``format/expressions-spec.md``:
``{"id", "description", "trap", "filter"}``; ``trap`` says which pruning bug the filter is built
to expose. The scan suites read every (table, snapshot, filter) with every reader; the bug
corpus names a reader bug's trap as ``<table> > <filter id>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILTERS_FILE = Path(__file__).resolve().parent / "filters.json"


def load(path: Path = FILTERS_FILE) -> dict[str, list[dict[str, Any]]]:
    """Table name -> its filters."""
    data: dict[str, list[dict[str, Any]]] = json.loads(path.read_text(encoding="utf-8"))["tables"]
    return data
