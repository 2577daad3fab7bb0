"""Bugs that shipped: interoperability bugs real Iceberg implementations released, as data.

``corpus/<implementation>.json`` (format: ``record.schema.json``) holds one record per bug: the
implementation and versions, the upstream issue and pull request links (or ``"upstream": "none
exists yet"`` for a bug this kit found), the artifact it broke, the spec sentence it breaks (its
id in the statement index), an honest verdict (``bug``, ``not-a-bug``, ``spec-allows``,
``unclear``, with the reason), and how the kit reproduces it:

* a writer bug -> a damage case (``checker/damage``) that writes exactly that bug into a valid
  table, and the rule that must report it;
* a value bug -> vector cases whose expected value the buggy implementation did not compute;
* a writer bug whose table is valid but holds the wrong rows -> the op-log (``vectors/oplogs``)
  under which the writer's rows go wrong: ``<op-log id> > <writer>``, ``<writer>`` a name of the
  writer registry (``suites/writers/registry.py``), reproduced when a known failure of that writer
  (``suites/writers/known-failures-writers.json``) names the op-log;
* a reader bug -> where the engine's wrong rows show: ``<golden table> > <filter id> > <engine>``
  (a row filter of ``suites/golden/filters.json`` or ``trap-filters.json``, or a projected read of
  ``suites/golden/projections.json``) or ``<golden table> > <engine>`` (an unfiltered read), ``<engine>`` a name of the engine registry
  (``suites/engines/registry.py``). It counts as reproduced when a known failure of that engine
  lists the case: the consumer matrix, the scan suite or the golden-table readers then fail if
  the engine stops failing so.

A reader bug the engine the kit runs cannot show keeps its trap ("trap only") in two honest ways:
``reproduce.fixed`` says the pinned version does not have the bug (fixed, or never had it): no
known failure may list the trap, the engine must pass it; ``reproduce.fails_earlier`` says the
pinned engine stops before the bug could show: a known failure of the consumer matrix must list
the trap (or its table) for every engine of the implementation, and it must be an error or a
refusal, not wrong rows (its recorded differences hold no missing, unexpected or miscounted rows).
A wrong-rows known failure there contradicts the record (status ``missing``: name it as the
reproduction); a changed failure no longer matches the entry's digest and turns the matrix red.

:func:`reproduction` says what the kit has for a record today; ``iceberg-conformance bugs`` lists
the corpus with it, and ``suites/test_bugs.py`` proves each reproduction: every damage case is
reported by its rule, every vector case exists and the reference passes it, every trap is a
case a known failure of its engine lists.
"""

from __future__ import annotations

import json
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

#: what a record's ``reproduce.how`` names
HOWS = ("damage", "vector", "trap", "oplog", "none")
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


#: the engines of the kit's registry (``suites/engines/registry.py``) that run an implementation's
#: reader: a reader bug of these is reproduced only where a known failure of the engine shows it
ENGINES_OF = {"clickhouse": ("chdb",), "duckdb-iceberg": ("duckdb",), "daft": ("daft",), "polars": ("polars",),
              "pyiceberg": ("pyiceberg",), "iceberg-java": ("java", "spark-sql"), "spark": ("spark-sql",),
              "iceberg-rust": ("datafusion",), "icebird": ("icebird",)}

#: the writers of the kit's writer registry (``suites/writers/registry.py``) that run an
#: implementation's writer: a writer bug whose table is valid but holds the wrong rows is reproduced
#: by an op-log (``vectors/oplogs``) where a known failure of that writer lists it
WRITERS_OF = {"pyiceberg": ("pyiceberg",), "clickhouse": ("chdb",), "duckdb-iceberg": ("duckdb",), "daft": ("daft",),
              "iceberg-java": ("spark",), "spark": ("spark",)}


@dataclass(frozen=True)
class Reproduction:
    """What the kit has for one record: ``status`` is ``reproduced`` (the case named exists and,
    for a reader bug, a known failure of its engine shows it), ``trap`` (a reader bug of an engine
    the kit does not run, or one the version it runs does not have: the golden table and filter
    that trigger it exist, and the engine passes them), ``fails earlier`` (the trap exists and the
    engine the kit runs fails it before the bug could show, with a known failure that is an error
    or a refusal, not wrong rows), ``out of reach`` (``reproduce.out_of_reach``: the bug is in an
    implementation the kit cannot run here, with the evidence; never caught), ``missing`` (it
    names a case the kit does not have, or the known failures contradict the record), ``not yet``
    (no case named) or ``not a bug`` (the
    record's verdict says so; nothing to reproduce)."""

    status: str
    how: str
    case: str | None
    rule: str | None
    why: str = ""

    @property
    def reproduced(self) -> bool:
        return self.status == "reproduced"


#: the statuses ``iceberg-conformance bugs`` counts as "trap only"
TRAP_ONLY = ("trap", "fails earlier")


def reproduction(record: dict[str, Any], damage_cases: dict[str, Any], vector_ids: set[str],
                 caught: AbstractSet[str], traps: AbstractSet[str] = frozenset(),
                 refused: AbstractSet[str] = frozenset()) -> Reproduction:
    """What the kit has for ``record``, given the damage cases by name, the ids of every vector
    case, every trap case where the kit shows an engine's wrong rows or failure (``caught``:
    ``cli.caught_traps``), every trap that exists (``traps``: ``<table>`` and ``<table> >
    <filter id>`` of the golden tables) and the cases of ``caught`` whose known failure is an
    error or a refusal, no wrong rows (``refused``: ``cli.refused_traps``)."""
    rep = record["reproduce"]
    how, case, rule = rep["how"], rep.get("case"), rep.get("rule")
    if record["verdict"] != "bug":
        return Reproduction("not a bug", how, case, rule, record["verdict_reason"])
    if rep.get("out_of_reach"):
        named = [c.strip() for c in (case or "").split(";") if c.strip()]
        missing = [c for c in named if c not in traps]
        if missing:
            return Reproduction("missing", how, case, rule, f"no op-log, golden table or filter {', '.join(missing)}")
        return Reproduction("out of reach", how, case, rule, rep["out_of_reach"])
    if not case:
        return Reproduction("not yet", how, None, rule, "no case reproduces it yet")
    cases = [c.strip() for c in case.split(";") if c.strip()]
    runners = (WRITERS_OF if how == "oplog" else ENGINES_OF).get(record["implementation"])
    if how in ("trap", "oplog") and runners is None:
        missing = [c for c in cases if c not in traps]
        if missing:
            return Reproduction("missing", how, case, rule, f"no golden table or filter {', '.join(missing)}")
        return Reproduction("trap", how, case, rule, f"the kit does not run {record['implementation']}: the "
                                                     f"{'op-log' if how == 'oplog' else 'trap'} is there for those who do")
    if how in ("trap", "oplog") and rep.get("fixed"):
        assert runners is not None
        return _guarded(record, cases, caught, traps, runners)
    if how == "trap" and rep.get("fails_earlier"):
        assert runners is not None
        return _fails_earlier(record, cases, caught, refused, traps, runners)
    known = {"damage": set(damage_cases), "vector": vector_ids, "trap": caught, "oplog": caught}.get(how, set())
    missing = [c for c in cases if c not in known]
    if missing:
        why = (f"no known failure of {'/'.join(runners or ())} lists {', '.join(missing)}: the kit does not show this "
               "bug there" if how in ("trap", "oplog") else f"the kit has no {how} case {', '.join(missing)}")
        return Reproduction("missing", how, case, rule, why)
    if how == "damage":
        rules = {damage_cases[c].rule for c in cases}
        if rule is not None and rule not in rules:
            return Reproduction("missing", how, case, rule, f"the damage case breaks {sorted(rules)}, not {rule}")
    return Reproduction("reproduced", how, case, rule)


def _guarded(record: dict[str, Any], cases: list[str], caught: AbstractSet[str],
             traps: AbstractSet[str], engines: tuple[str, ...]) -> Reproduction:
    """A bug fixed in the version the kit runs: its trap (or op-log) exists and the pinned engine
    (or writer) passes it (no known failure lists it), so the matrix turns red if the bug returns."""
    rep = record["reproduce"]
    how = rep["how"]
    missing = [c for c in cases if c not in traps]
    if missing:
        return Reproduction("missing", how, rep["case"], rep.get("rule"),
                            f"no {'op-log' if how == 'oplog' else 'golden table or filter'} {', '.join(missing)}")
    failing = [f"{c} > {e}" for c in cases for e in engines if f"{c} > {e}" in caught]
    if failing:
        return Reproduction("missing", how, rep["case"], rep.get("rule"),
                            f"the record says the bug is fixed ({rep['fixed']}), but a known failure lists "
                            f"{', '.join(failing)}: name that case instead")
    return Reproduction("trap", how, rep["case"], rep.get("rule"),
                        f"the version the kit runs does not have it ({rep['fixed']}): the "
                        f"{'op-log' if how == 'oplog' else 'trap'} is there, and {'/'.join(engines)} must pass it")


def _fails_earlier(record: dict[str, Any], cases: list[str], caught: AbstractSet[str], refused: AbstractSet[str],
                   traps: AbstractSet[str], engines: tuple[str, ...]) -> Reproduction:
    """A reader bug the pinned engine cannot show because it fails the trap earlier: every case
    and engine must be listed by a known failure (of the case, or of its whole table, which
    leaves no filter case judged), and every known failure listing it must be an error or a
    refusal. Wrong rows there (or a failure of unknown kind), or no known failure at all,
    contradict the record."""
    rep = record["reproduce"]
    missing = [c for c in cases if c not in traps]
    if missing:
        return Reproduction("missing", "trap", rep["case"], rep.get("rule"),
                            f"no golden table or filter {', '.join(missing)}")
    rows, passing = [], []
    for c in cases:
        table = c.split(" > ")[0]
        for e in engines:
            listed = [k for k in dict.fromkeys((f"{c} > {e}", f"{table} > {e}")) if k in caught]
            if not listed:
                passing.append(f"{c} > {e}")
            else:
                rows += [k for k in listed if k not in refused]
    if rows:
        return Reproduction("missing", "trap", rep["case"], rep.get("rule"),
                            f"the record says the engine fails earlier ({rep['fails_earlier']}), but the known failure "
                            f"of {', '.join(rows)} is no error or refusal (wrong rows): name that case as the reproduction")
    if passing:
        return Reproduction("missing", "trap", rep["case"], rep.get("rule"),
                            f"the record says the engine fails earlier ({rep['fails_earlier']}), but no known failure "
                            f"lists {', '.join(passing)}: the engine passes it (say fixed instead)")
    return Reproduction("fails earlier", "trap", rep["case"], rep.get("rule"),
                        f"the trap is there; {'/'.join(engines)} {'fails' if len(engines) == 1 else 'fail'} it earlier, "
                        "with no wrong rows "
                        f"({rep['fails_earlier']}): a changed failure turns the matrix red")


def readme_table(rows: list[tuple[dict[str, Any], Reproduction]]) -> str:
    """The README's table: bugs that shipped by implementation and artifact, and what the kit says
    of each (``caught/bugs`` per artifact; the trap-only, out-of-reach and not-yet counts)."""
    real = [(r, rep) for r, rep in rows if r["verdict"] == "bug"]
    arts = [a for a in ARTIFACTS if any(r["artifact"] == a for r, _rep in real)]
    lines = ["| implementation | bugs | " + " | ".join(arts) + " | caught | trap only | out of reach | not yet |",
             "|---|---:|" + "---:|" * len(arts) + "---:|---:|---:|---:|"]

    def row(name: str, sub: list[tuple[dict[str, Any], Reproduction]]) -> str:
        cells = []
        for a in arts:
            of = [rep for r, rep in sub if r["artifact"] == a]
            cells.append(f"{sum(x.reproduced for x in of)}/{len(of)}" if of else "")
        caught = sum(rep.reproduced for _r, rep in sub)
        trap = sum(rep.status in TRAP_ONLY for _r, rep in sub)
        out = sum(rep.status == "out of reach" for _r, rep in sub)
        return (f"| {name} | {len(sub)} | " + " | ".join(cells)
                + f" | {caught} | {trap} | {out} | {len(sub) - caught - trap - out} |")

    for impl in sorted({r["implementation"] for r, _rep in real}):
        lines.append(row(impl, [(r, rep) for r, rep in real if r["implementation"] == impl]))
    lines.append(row("**all**", real).replace("| **all** | ", "| **all** | ", 1))
    return "\n".join(lines)
