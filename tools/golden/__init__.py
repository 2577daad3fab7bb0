"""Generators of golden-table data files (``python -m tools.golden.<name>`` from the repository
root): what they write is data beside the golden tables, in ``suites/golden/``."""

from pathlib import Path

#: suites/golden of the checkout these tools live in
GOLDEN = Path(__file__).resolve().parents[2] / "suites" / "golden"
