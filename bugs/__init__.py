"""Bugs that shipped: interoperability bugs real Iceberg implementations released, as data.

``corpus/<implementation>.json`` (format: ``record.schema.json``) holds one record per bug: the
implementation and versions, the upstream issue and pull request links (or ``"upstream": "none
exists yet"`` for a bug this kit found), the artifact it broke, the spec sentence it breaks (its
id in the statement index), an honest verdict (``bug``, ``not-a-bug``, ``spec-allows``,
``unclear``, with the reason), and how the kit reproduces it:

* a writer bug -> a damage case (``checker/damage``) that writes exactly that bug into a valid
  table, and the rule that must report it;
* a value bug -> vector cases whose expected value the buggy implementation did not compute;
* a reader bug -> where the engine's wrong rows show: ``<golden table> > <filter id> > <engine>``
  (a row filter of ``suites/golden/filters.json`` or ``trap-filters.json``) or ``<golden table> >
  <engine>`` (an unfiltered read), ``<engine>`` a name of the engine registry
  (``suites/engines/registry.py``). It counts as reproduced when a known failure of that engine
  lists the case: the consumer matrix, the scan suite or the golden-table readers then fail if
  the engine stops failing so.

:func:`reproduction` says what the kit has for a record today; ``iceberg-conformance bugs`` lists
the corpus with it, and ``suites/test_bugs.py`` proves each reproduction: every damage case is
reported by its rule, every vector case exists and the reference passes it, every trap is a
case a known failure of its engine lists.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

#: what a record's ``reproduce.how`` names
HOWS = ("damage", "vector", "trap", "none")
KINDS = ("writer", "reader", "value")
ARTIFACTS = ("metadata-json", "manifest-list", "manifest", "data-file", "delete-file", "puffin",
             "statistics-file", "value", "read-result")


def _files() -> list[Any]:
    root = resources.files(__package__).joinpath("corpus")
    return sorted((p for p in root.iterdir() if p.name.endswith(".json")), key=lambda p: p.name)


@lru_cache(maxsize=1)
def documents() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Every corpus file as (file name, JSON document)."""
    return tuple((p.name, json.loads(p.read_text(encoding="utf-8"))) for p in _files())


def records() -> list[dict[str, Any]]:
    """Every record of the corpus, in file and id order."""
    return [r for _name, doc in documents() for r in doc["bugs"]]


def record_schema() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(resources.files(__package__).joinpath("record.schema.json")
                                     .read_text(encoding="utf-8"))
    return doc


@dataclass(frozen=True)
class Reproduction:
    """What the kit has for one record: ``status`` is ``reproduced`` (the case named exists),
    ``missing`` (it names a case the kit does not have), ``not yet`` (no case named) or
    ``not a bug`` (the record's verdict says so; nothing to reproduce)."""

    status: str
    how: str
    case: str | None
    rule: str | None
    why: str = ""

    @property
    def reproduced(self) -> bool:
        return self.status == "reproduced"


def reproduction(record: dict[str, Any], damage_cases: dict[str, Any], vector_ids: set[str],
                 traps: set[str]) -> Reproduction:
    """What the kit has for ``record``, given the damage cases by name, the ids of every vector
    case and every trap case where the kit shows an engine's wrong rows (``cli.caught_traps``)."""
    rep = record["reproduce"]
    how, case, rule = rep["how"], rep.get("case"), rep.get("rule")
    if record["verdict"] != "bug":
        return Reproduction("not a bug", how, case, rule, record["verdict_reason"])
    if not case:
        return Reproduction("not yet", how, None, rule, "no case reproduces it yet")
    known = {"damage": set(damage_cases), "vector": vector_ids, "trap": traps}.get(how, set())
    cases = [c.strip() for c in case.split(";") if c.strip()]
    missing = [c for c in cases if c not in known]
    if missing:
        why = (f"no known failure of the engine lists {', '.join(missing)}: the kit does not show this bug there"
               if how == "trap" else f"the kit has no {how} case {', '.join(missing)}")
        return Reproduction("missing", how, case, rule, why)
    if how == "damage":
        rules = {damage_cases[c].rule for c in cases}
        if rule is not None and rule not in rules:
            return Reproduction("missing", how, case, rule, f"the damage case breaks {sorted(rules)}, not {rule}")
    return Reproduction("reproduced", how, case, rule)
