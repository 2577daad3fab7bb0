"""Table metadata JSON, format v1-v3 (capability ``metadata``).

Spec: Table Metadata, Table Metadata Fields, Snapshots, Snapshot References, Table Statistics,
Partition Statistics, Encryption Keys, Row Lineage; Appendix C "Table Metadata and Snapshots";
Appendix E; Appendix F.

* ``test_metadata``: every valid vector is read and means what the case says (current
  snapshot, schema/spec/sort-order ids, refs, sequence numbers, next-row-id); every invalid
  vector is rejected. A case with ``input.read_as_version`` reads an older file for a later
  version (Appendix E, "Reading v1 metadata for v2") through the optional target method
  ``read_table_metadata_as(path, format_version)``.
* ``test_metadata_written_back`` (producer x consumer): what the target writes back for a
  valid vector breaks no rule of the reference validator and has the same meaning as the
  input: same schemas, partition specs, sort orders, snapshots and refs. A target that does
  not write some format versions says so in an optional ``metadata_write_versions``
  attribute (UNSUPPORTED for the others).
* ``test_malformed`` (ids ``metadata/hostile > <input>``): hostile files made on the fly
  (truncated, wrong JSON types, numbers beyond the long range, 10 MB strings, deep nesting,
  non-UTF-8) are refused with a :class:`~suites.api.Rejected` and a bounded message, never a
  crash. ``test_malformed_10mb_location``: a 10 MB (spec-valid) location is refused or read
  intact, never a crash.
* Kit checks (no target): vector rule ids are reference rules; the reference validator never
  raises on randomly mutated metadata.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.metadata import (
    current_snapshot_id, errors, load_metadata, schema_by_id, snapshots_by_id, sort_order_by_id,
    spec_by_id, validate_metadata,
)
from iceberg_conformance.reference.types import parse_type
from iceberg_conformance.suites.api import METADATA, Rejected, Unsupported
from iceberg_conformance.suites.harness.judge import fail, run_case, values_equal
from iceberg_conformance.suites.harness.outcomes import unsupported
from iceberg_conformance.vectors.cases import MUST, SHOULD, Case, cases_for

AREA = "metadata"


def _call(target: Any, path: str) -> Any:
    return target.read_table_metadata(path)


def summary(doc: Any) -> dict[str, Any]:
    """What a case's ``expected`` compares: plain reads of the written-back document."""
    out: dict[str, Any] = {
        "format-version": doc.get("format-version"),
        "current-snapshot-id": current_snapshot_id(doc),
        "snapshot-ids": sorted(s.get("snapshot-id") for s in doc.get("snapshots") or []),
        "last-column-id": doc.get("last-column-id"),
        "current-schema-id": doc.get("current-schema-id"),
        "schema-ids": sorted(s.get("schema-id") for s in doc.get("schemas") or []),
        "default-spec-id": doc.get("default-spec-id"),
        "spec-ids": sorted(s.get("spec-id") for s in doc.get("partition-specs") or []),
        "default-sort-order-id": doc.get("default-sort-order-id"),
        "table-uuid": doc.get("table-uuid"),
        "last-sequence-number": doc.get("last-sequence-number"),
        "next-row-id": doc.get("next-row-id"),
        "refs": {k: [r.get("type"), r.get("snapshot-id")] for k, r in sorted((doc.get("refs") or {}).items())},
    }
    return out


@pytest.mark.vectors("metadata")
@pytest.mark.capability(METADATA)
def test_metadata(target: Any, case: Case) -> None:
    path = str(case.path(case.input["file"]))
    version = case.input.get("read_as_version")
    if version is not None and not hasattr(target, "read_table_metadata_as"):
        unsupported(target.name, "no read_table_metadata_as (metadata read for a later format version)")
    call = (lambda: _call(target, path)) if version is None else (lambda: target.read_table_metadata_as(path, version))
    out = run_case(case, target.name, call, check=False,
                   reports_rules=getattr(target, "reports_rules", False))
    if case.expects_error:
        return
    if not isinstance(out, dict):
        fail(case, target.name, "the target returned no JSON object", actual=out)
    got = summary(out)
    want = case.expected
    diff = {k: {"expected": want[k], "actual": got.get(k)} for k in want if not values_equal(want[k], got.get(k))}
    if diff:
        fail(case, target.name, "the metadata read means something else than the file", differences=diff)


# --- producer x consumer --------------------------------------------------------------------

VALID = [c for c in cases_for("metadata") if not c.expects_error and "read_as_version" not in c.input]


def _fields(spec: Any) -> list[tuple[Any, ...]]:
    return [(f.get("source-id"), tuple(f.get("source-ids") or ()), f.get("transform"), f.get("name"),
             f.get("field-id")) for f in spec.get("fields", [])]


def _snap(s: Any, version: int) -> tuple[Any, ...]:
    return (s.get("parent-snapshot-id"), s.get("sequence-number", 0 if version == 1 else None),
            s.get("timestamp-ms"), s.get("manifest-list"), (s.get("summary") or {}).get("operation"),
            s.get("first-row-id"), s.get("added-rows"))


def meaning_differences(before: Any, after: Any) -> dict[str, Any]:
    """Where two metadata documents differ in meaning (``{}`` when they agree)."""
    diff: dict[str, Any] = {}
    s1 = {k: parse_type({"type": "struct", "fields": v.get("fields")}) for k, v in schema_by_id(before).items()}
    s2 = {k: parse_type({"type": "struct", "fields": v.get("fields")}) for k, v in schema_by_id(after).items()}
    if s1 != s2:
        diff["schemas"] = {"before": sorted(s1), "after": sorted(s2),
                           "differ": sorted(k for k in s1 if s1.get(k) != s2.get(k))}
    p1 = {k: _fields(v) for k, v in spec_by_id(before).items()}
    p2 = {k: _fields(v) for k, v in spec_by_id(after).items()}
    if p1 != p2:
        # v1 partition fields without field-id: ids assigned by a reader are not a difference
        if not all(k in p2 and [x[:4] for x in p1[k]] == [x[:4] for x in p2[k]] for k in p1) or p1.keys() != p2.keys():
            diff["partition-specs"] = {"before": p1, "after": p2}
    o1, o2 = sort_order_by_id(before), sort_order_by_id(after)
    if o1 and o1 != o2:
        diff["sort-orders"] = {"before": o1, "after": o2}
    v = before.get("format-version", 1)
    n1 = {k: _snap(x, v) for k, x in snapshots_by_id(before).items()}
    n2 = {k: _snap(x, v) for k, x in snapshots_by_id(after).items()}
    if n1 != n2:
        diff["snapshots"] = {"before": n1, "after": n2}
    if current_snapshot_id(before) != current_snapshot_id(after):
        diff["current-snapshot-id"] = {"before": current_snapshot_id(before), "after": current_snapshot_id(after)}
    r1 = {k: (r["type"], r["snapshot-id"]) for k, r in (before.get("refs") or {}).items()}
    r2 = {k: (r["type"], r["snapshot-id"]) for k, r in (after.get("refs") or {}).items()}
    if r1 and r1 != r2:
        diff["refs"] = {"before": r1, "after": r2}
    for key in ("statistics", "partition-statistics", "encryption-keys"):
        if before.get(key) and before.get(key) != after.get(key):
            diff[key] = {"before": before.get(key), "after": after.get(key)}
    return diff


@pytest.mark.parametrize("case", VALID, ids=[c.id for c in VALID])
@pytest.mark.capability(METADATA)
def test_metadata_written_back(target: Any, case: Case) -> None:
    path = case.path(case.input["file"])
    versions = getattr(target, "metadata_write_versions", frozenset({1, 2, 3}))
    if not set(case.format_versions) & set(versions):
        unsupported(target.name, f"does not write format v{'/'.join(map(str, case.format_versions))} metadata")
    try:
        out = _call(target, str(path))
    except Unsupported as e:
        unsupported(target.name, str(e))
        return
    except Rejected as e:
        fail(case, target.name, "the target rejected a valid input, so nothing was written back", rejected=str(e))
        return
    found = errors(validate_metadata(out, file=f"{target.name} output of {case.input['file']}"))
    if found:
        fail(case, target.name, "the metadata the target writes back breaks rules of the spec",
             findings=[str(f) for f in found[:10]])
    before, _ = load_metadata(path)
    diff = meaning_differences(before, out)
    if diff:
        fail(case, target.name, "the metadata written back means something else than the input",
             differences=diff)


# --- malformed input -------------------------------------------------------------------------

def _minimal_v2() -> dict[str, Any]:
    return {
        "format-version": 2, "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
        "location": "s3://bucket/warehouse/db/t", "last-sequence-number": 1,
        "last-updated-ms": 1700000000000, "last-column-id": 1, "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": [
            {"id": 1, "name": "id", "required": True, "type": "long"}]}],
        "default-spec-id": 0, "partition-specs": [{"spec-id": 0, "fields": []}], "last-partition-id": 999,
        "default-sort-order-id": 0, "sort-orders": [{"order-id": 0, "fields": []}],
        "current-snapshot-id": 1, "refs": {"main": {"snapshot-id": 1, "type": "branch"}},
        "snapshots": [{"snapshot-id": 1, "sequence-number": 1, "timestamp-ms": 1700000000000,
                       "manifest-list": "s3://bucket/warehouse/db/t/metadata/snap-1.avro",
                       "summary": {"operation": "append"}}],
    }


TEN_MB = 10 * 1024 * 1024


def _text(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode()


def _with(key: str, value: Any) -> bytes:
    d = _minimal_v2()
    d[key] = value
    return _text(d)


def _huge_snapshot_id() -> bytes:
    d = _minimal_v2()
    big = 2**70
    d["snapshots"][0]["snapshot-id"] = big
    d["current-snapshot-id"] = big
    d["refs"]["main"]["snapshot-id"] = big
    return _text(d)


MUST_REJECT = {
    "truncated": lambda: _text(_minimal_v2())[:200],
    "empty file": lambda: b"",
    "format-version is a string": lambda: _with("format-version", "2"),
    "schemas is a string": lambda: _with("schemas", "none"),
    "snapshots is an object": lambda: _with("snapshots", {"snapshot-id": 1}),
    "last-updated-ms is 1e400": lambda: _text(_minimal_v2()).replace(b"1700000000000,", b"1e400,", 1),
    "snapshot-id is 2**70": _huge_snapshot_id,
    "10 MB string as format-version": lambda: _with("format-version", "2" * TEN_MB),
    "10 MB string as table-uuid": lambda: _with("table-uuid", "a" * TEN_MB),
    "properties nested 100000 deep": lambda: _text(_minimal_v2()).replace(
        b'"current-schema-id"', b'"properties": {"k": ' + b"[" * 100_000 + b"]" * 100_000 + b'}, "current-schema-id"', 1),
    "non-UTF-8 bytes": lambda: _text(_minimal_v2()).replace(b"s3://bucket", b"s3://b\xff\xfe", 1),
    "JSON array": lambda: b"[" + _text(_minimal_v2()) + b"]",
}


def _run_hostile(target: Any, tmp_path: Path, name: str, data: bytes) -> Any:
    path = tmp_path / "hostile.metadata.json"
    path.write_bytes(data)
    try:
        return ("returned", _call(target, str(path)))
    except Unsupported as e:
        unsupported(target.name, str(e))
    except Rejected as e:
        return ("rejected", str(e))
    except Exception as e:  # noqa: BLE001 - a crash is what this test looks for
        pytest.fail(f"target {target.name}: {name}: crashed with {type(e).__name__} instead of a refusal: "
                    f"{str(e)[:500]}", pytrace=False)
    return None


#: hostile inputs whose refusal is level should (vectors/README.md, "Normative levels"): a
#: 10 MB table-uuid is a string that is no UUID (a rule for writers; no reader must refuse it),
#: and the bounded-message check is this kit's robustness demand, not a sentence of the spec
SHOULD_REFUSE = {"10 MB string as format-version", "10 MB string as table-uuid"}


def _hostile_case(index: int, name: str) -> Case:
    """A made-on-the-fly input as a case, so that reports and known failures can name it
    (``test_malformed: metadata/hostile > <name>``)."""
    return Case(
        file=Path(__file__), rel="metadata/hostile", index=index, operation="metadata", description=name,
        input={}, expected=None, error={"rule": "metadata.hostile", "reason": "malformed or out-of-range input"},
        format_versions=(2,), spec=({"section": "Appendix C: Table Metadata and Snapshots", "source": "current"},),
        derived={"from": "RFC 8259 and the JSON types of Appendix C", "agreed": []},
        level=SHOULD if name in SHOULD_REFUSE else MUST,
    )


HOSTILE = [_hostile_case(i, name) for i, name in enumerate(MUST_REJECT)]


@pytest.mark.parametrize("case", HOSTILE, ids=[c.id for c in HOSTILE])
@pytest.mark.capability(METADATA)
def test_malformed(target: Any, case: Case, tmp_path: Path) -> None:
    """Hostile input is refused with a bounded message, never a crash."""
    name = case.description
    outcome, value = _run_hostile(target, tmp_path, name, MUST_REJECT[name]())
    if outcome == "returned":
        pytest.fail(f"target {target.name}: {name}: accepted metadata the spec does not allow", pytrace=False)
    if not value or len(value) > 20_000:
        pytest.fail(f"target {target.name}: {name}: the refusal message is {len(value)} characters long "
                    "(empty, or echoing the input)", pytrace=False)


@pytest.mark.area(AREA)
@pytest.mark.capability(METADATA)
def test_malformed_10mb_location(target: Any, tmp_path: Path) -> None:
    """A 10 MB location is allowed by the spec: refusing it (a size limit) or reading it intact
    are both fine; a crash or a silently changed value is not."""
    location = "s3://bucket/" + "x" * TEN_MB
    outcome, value = _run_hostile(target, tmp_path, "10 MB location", _with("location", location))
    if outcome == "returned" and value.get("location") != location:
        pytest.fail(f"target {target.name}: the 10 MB location came back changed", pytrace=False)
    if outcome == "rejected" and len(value) > 20_000:
        pytest.fail(f"target {target.name}: the refusal message echoes the input ({len(value)} characters)",
                    pytrace=False)


@pytest.mark.area(AREA)
def test_vector_rules_are_reference_rules() -> None:
    """Every ``metadata.*`` rule an invalid vector names is in the reference's rule list; other
    rule ids belong to the schema, partitioning, types and transforms modules."""
    from iceberg_conformance.reference.metadata import RULES

    named = {c.error["rule"] for c in cases_for("metadata") if c.error}
    unknown = sorted(r for r in named if r.startswith("metadata.") and r not in RULES)
    foreign = sorted(r for r in named if r.split(".")[0] not in ("metadata", "schema", "partition", "types", "transforms"))
    assert not unknown, f"vectors name rules that reference/metadata.py RULES does not list: {unknown}"
    assert not foreign, f"vectors name rules of no reference module: {foreign}"


@pytest.mark.area(AREA)
def test_reference_validator_never_raises_on_mutated_metadata() -> None:
    """The reference validator reports findings, never a traceback: 400 seeded random
    mutations (keys removed, values replaced by other JSON values) of the valid vectors."""
    import copy
    import random

    docs = []
    for c in VALID:
        doc, _ = load_metadata(c.path(c.input["file"]))
        if doc is not None:
            docs.append(doc)
    values: list[Any] = [None, -1, 0, 2**31, 2**63 - 1, 1.5, "", "void", "bucket[0]", [], {}, [1], {"a": 1},
                         True, {"type": "struct", "fields": []}, [{"id": 1}], {"snapshot-id": 1, "type": "branch"}]
    rnd = random.Random(20240601)

    def paths(node: Any, p: tuple[Any, ...] = ()) -> Any:
        yield p
        if isinstance(node, dict):
            for k, v in node.items():
                yield from paths(v, (*p, k))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from paths(v, (*p, i))

    for _ in range(400):
        d = copy.deepcopy(rnd.choice(docs))
        for _ in range(rnd.randint(1, 3)):
            ps = list(paths(d))[1:]
            if not ps:
                break
            p = rnd.choice(ps)
            parent = d
            for k in p[:-1]:
                parent = parent[k]
            if rnd.random() < 0.3:
                parent.pop(p[-1])
            else:
                parent[p[-1]] = copy.deepcopy(rnd.choice(values))
        try:
            validate_metadata(d)
        except Exception as e:  # noqa: BLE001 - any exception is the failure looked for
            pytest.fail(f"validate_metadata raised {type(e).__name__}: {e}\non: {json.dumps(d)[:2000]}")
