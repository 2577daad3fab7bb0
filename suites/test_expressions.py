"""Expressions as data (capability ``expressions``): Iceberg expression JSON read and written
back, bound to a schema, evaluated on rows; and (capability ``projection``) predicates
projected through partition transforms, judged per partition value.

Sources: apache/iceberg ``format/expressions-spec.md`` (as the REST catalog OpenAPI's
``Predicate`` carries it), the table spec's "Scan Planning", "Partition Transforms" and
"Appendix D: JSON single-value serialization". Vectors: ``vectors/expressions/*.json``.
"""

import json

import pytest

from iceberg_conformance.suites.api import EXPRESSIONS, MANIFEST_PRUNING, METRICS, PROJECTION, Rejected
from iceberg_conformance.suites.harness.judge import fail, run_case, values_equal


def _canonical(expr):
    """An expression's JSON with the values of ``in``/``not-in`` in a fixed order: a set has
    none, so the order a target writes them in is not judged."""
    if isinstance(expr, dict):
        out = {k: _canonical(v) for k, v in expr.items()}
        if expr.get("type") in ("in", "not-in") and isinstance(expr.get("values"), list):
            out["values"] = sorted(expr["values"], key=lambda v: json.dumps(v, sort_keys=True))
        return out
    return expr


def _same_expression(expected, actual):
    return values_equal(_canonical(expected), _canonical(actual))


def _ask(target, case):
    """The target's operation on the case input."""
    i = case.input
    cs = i.get("case_sensitive", True)
    if case.operation == "expression-json":
        return target.expression_roundtrip(i["expression"])
    if case.operation == "expression-bind":
        return target.expression_bind(i["schema"], i["expression"], cs)
    return target.expression_evaluate(i["schema"], i["expression"], i["row"], cs)


def _check_pointer(case, target):
    """A target that names the kit's rules (the reference) also names where: the JSON pointer
    into the expression, shown as ``expression/left/term`` (``expression`` for all of it)."""
    pointer = case.error.get("pointer") if case.error else None
    if pointer is None or not getattr(target, "reports_rules", False):
        return
    try:
        _ask(target, case)
    except Rejected as e:
        if f"expression{pointer}:" not in str(e):
            fail(case, target.name, "rejected, but the message does not name the JSON pointer",
                 expected=pointer, message=str(e))


def _run(target, case, equal=values_equal):
    run_case(case, target.name, lambda: _ask(target, case), equal=equal,
             reports_rules=getattr(target, "reports_rules", False))
    _check_pointer(case, target)


@pytest.mark.vectors("expression-json")
@pytest.mark.capability(EXPRESSIONS)
def test_expression_json(target, case):
    _run(target, case, _same_expression)


@pytest.mark.vectors("expression-bind")
@pytest.mark.capability(EXPRESSIONS)
def test_expression_bind(target, case):
    _run(target, case, _same_expression)


@pytest.mark.vectors("expression-evaluate")
@pytest.mark.capability(EXPRESSIONS)
def test_expression_evaluate(target, case):
    _run(target, case)


@pytest.mark.vectors("expression-project")
@pytest.mark.capability(PROJECTION)
def test_projection(target, case):
    i = case.input
    run_case(case, target.name,
             lambda: target.projection_accepts(i["schema"], i["spec"], i["expression"], i["mode"], i["partition"]),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("metrics-evaluate")
@pytest.mark.capability(METRICS)
def test_metrics(target, case):
    i = case.input
    run_case(case, target.name,
             lambda: target.metrics_evaluate(i["schema"], i["file"], i["expression"], i["mode"]),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("manifest-evaluate")
@pytest.mark.capability(MANIFEST_PRUNING)
def test_manifest_pruning(target, case):
    i = case.input
    run_case(case, target.name,
             lambda: target.manifest_might_match(i["schema"], i["spec"], i["partitions"], i["expression"]),
             reports_rules=getattr(target, "reports_rules", False))
