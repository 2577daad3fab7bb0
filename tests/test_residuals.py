"""Residuals: the reference gives the hand-written residual of every case of
``vectors/expressions/residual.json``, the cases' rows lie in their partitions and their
hand-written ``matches`` are the filter's value there, and the suite's two judgements
(``suites/test_residuals.py``: soundness on the rows, tightness) can fail.
"""

from __future__ import annotations

from typing import Any

import pytest

from iceberg_conformance.reference import expressions as ex
from iceberg_conformance.reference.partitioning import parse_partition_spec
from iceberg_conformance.reference.residuals import residual_json
from iceberg_conformance.reference.schema import parse_schema
from iceberg_conformance.reference.transforms import VoidTransform
from iceberg_conformance.reference.types import DateType
from iceberg_conformance.reference.values import value_from_json
from iceberg_conformance.suites.harness.residuals import sound, tight
from iceberg_conformance.vectors.cases import Case, cases_for

CASES = [c for c in cases_for("residual") if not c.expects_error]
IDS = [c.description for c in CASES]


def _canonical(e: Any) -> Any:
    return ex.expression_to_json(ex.parse_expression(e))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_reference_gives_the_expected_residual(case: Case) -> None:
    i = case.input
    got = residual_json(i["schema"], i["spec"], i["expression"], i["partition"], i.get("case_sensitive", True))
    assert got == _canonical(case.expected), f"{case.description}: reference gives {got}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rows_lie_in_the_partition_and_match_as_written(case: Case) -> None:
    i = case.input
    schema = parse_schema(i["schema"])
    spec = parse_partition_spec(i["spec"], 2)
    types = {f.field_id: f.field_type for f in schema.struct.fields}
    filt = ex.bind(schema, ex.parse_expression(i["expression"]), i.get("case_sensitive", True))
    assert i["rows"], f"{case.description}: no rows to judge a residual on"
    for r in i["rows"]:
        for pf in spec.fields:
            source = types[pf.source_id]
            raw = r["row"].get(str(pf.source_id))
            got = pf.transform.apply(source, None if raw is None else value_from_json(source, raw))
            want_raw = i["partition"].get(str(pf.field_id))
            result = pf.transform.result_type(source)
            # a day value is the table spec's int (days from 1970-01-01)
            want = want_raw if want_raw is None or isinstance(result, DateType) else value_from_json(result, want_raw)
            if isinstance(pf.transform, VoidTransform):
                assert want is None, f"{case.description}: a void partition value is null"
                continue
            same = got == want or (isinstance(got, float) and got != got and want != want)   # NaN is NaN
            assert same, f"{case.description}: row {r['row']} has {pf.name} = {got}, not the partition's {want}"
        assert ex.evaluate(filt, r["row"]) is r["matches"], f"{case.description}: the filter on {r['row']}"


def test_judgements_can_fail() -> None:
    kept = next(c for c in CASES if c.description.startswith("truncate[10](i) p=(10): i < 15"))
    decided = next(c for c in CASES if c.description.startswith("truncate[10](i) p=(10): i < 20"))
    assert sound(kept.input, kept.expected) == []
    assert sound(kept.input, True), "true for a partition holding rows the filter rejects is unsound"
    assert sound(kept.input, {"type": "lt", "term": "i", "value": 15}) == [], "the term form is read"
    assert sound(kept.input, {"type": "not", "child": {"type": "gt-eq", "term": "i", "value": 15}}) == []
    assert sound(kept.input, {"type": "lt", "term": "nope", "value": 15}), "an unbindable residual is unsound"
    assert tight(decided.input, True, True)
    assert not tight(decided.input, True, decided.input["expression"]), "keeping a decided predicate is not tight"
    assert tight(kept.input, kept.expected, {"type": "not", "child": {"type": "gt-eq", "term": "i", "value": 15}})
    assert not tight(kept.input, kept.expected, {"type": "and", "left": True, "right": kept.expected})
    assert not tight(kept.input, kept.expected, {"type": "and", "left": kept.expected, "right": kept.expected})
