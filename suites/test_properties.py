"""Property tests with generated values: round trips, and agreement with the reference.

Spec sections: "Appendix D: Single-value serialization" (binary and JSON), "Appendix B: 32-bit
Hash Requirements by Type", "Partitioning / Partition Transforms". Values come from
:mod:`reference.strategies` (edges drawn on purpose: extremes, pre-1970, -0.0, NaN, non-BMP
text, 38-digit decimals) and cross the adapter in JSON single-value form.

Two kinds of test:

* *invariants*, for every target (the reference included): a value written to bytes and read
  back is the same value; a JSON value read and written back means the same; int and long
  hash alike, and so do float and double (Appendix B notes); a bucket is in ``[0, N)``;
* *differential* properties, for every target but the reference (which would be compared with
  itself: those report "not applicable"): the target's bytes, hashes and transform results
  equal the reference's.

Each test names the spec clause it checks (marker ``spec``): a failure shows it in a section
"iceberg-conformance: spec clause" and JUnit carries it as the property ``spec``. Reading
arbitrary bytes without a crash is level ``should`` (marker ``level``): the spec says which bytes
are no value (the ``binary/invalid`` vectors judge that a reader refuses them, level must); that
the refusal is a clean error rather than another exception is this kit's demand, so a target
that throws something else there is ADVISORY.

Runs are reproducible: ``derandomize=True`` (the examples depend only on the test), no example
database, no deadline. A failure shows the type and value in JSON form (``note``); the
statistics (``--hypothesis-show-statistics``) list the types drawn (``event``). Inputs a target
reports UNSUPPORTED are counted; a property whose every example was unsupported is reported
UNSUPPORTED, not PASS.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from iceberg_conformance.reference import strategies as gen
from iceberg_conformance.reference.binary import to_bytes as ref_to_bytes
from iceberg_conformance.reference.hashing import hash_value
from iceberg_conformance.reference.types import (
    BooleanType, DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, LongType,
    PrimitiveType, type_to_json,
)
from iceberg_conformance.reference.values import to_json, value_to_json
from iceberg_conformance.suites.api import BINARY, HASH, TRANSFORM, VALUE_JSON, Rejected, Unsupported
from iceberg_conformance.suites.harness.judge import values_equal
from iceberg_conformance.suites.harness.outcomes import unsupported
from iceberg_conformance.suites.harness.values import same_value

CI = settings(
    derandomize=True, max_examples=150, deadline=None, database=None, print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
MAX_INT = 2**31 - 1


def _show(type_json: Any, value_json: Any) -> str:
    return f"type={json.dumps(type_json)} value={json.dumps(value_json, ensure_ascii=True)}"


class Tally:
    """Counts examples checked and examples the target reported UNSUPPORTED."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.counts: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()

    def call(self, fn: Callable[[], Any]) -> tuple[bool, Any]:
        """(True, result) or (False, None) when the target says UNSUPPORTED for this input."""
        try:
            return True, fn()
        except Unsupported as e:
            self.counts["unsupported"] += 1
            self.reasons[str(e)[:120]] += 1
            event(f"unsupported: {str(e)[:80]}")
            return False, None
        except Rejected as e:
            raise AssertionError(f"{self.target.name} rejected a valid input: {e}") from None

    def checked(self) -> None:
        self.counts["checked"] += 1

    def finish(self, what: str) -> None:
        if not self.counts["checked"]:
            top = ", ".join(r for r, _ in self.reasons.most_common(3)) or "no input applied"
            unsupported(self.target.name, f"{what}: every generated input was unsupported ({top})")


def _not_reference(target: Any) -> None:
    if target.name == "reference":
        pytest.skip("not applicable: a differential property would compare the reference with itself")


_BINARY_TYPES = gen.primitive_types()


@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization",
                  quote="This serialization scheme is for storing single values as individual binary values.")
def test_binary_round_trip(target):
    """to_bytes then from_bytes gives the value back (Appendix D binary)."""
    tally = Tally(target)

    @CI
    @given(gen.typed_values(_BINARY_TYPES))
    def prop(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        note(_show(tj, vj))
        event(str(t).split("(")[0].split("[")[0])
        ok, data = tally.call(lambda: target.to_bytes(tj, vj))
        if not ok:
            return
        ok, back = tally.call(lambda: target.from_bytes(tj, data))
        if not ok:
            return
        assert same_value(tj, vj, back), f"read back {back!r} from {data.hex()}, wrote {vj!r}"
        tally.checked()

    prop()
    tally.finish("binary round trip")


@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization",
                  quote="This serialization scheme is for storing single values as individual binary values.")
def test_binary_agrees_with_reference(target):
    """The target's bytes are the reference's bytes, and it reads the reference's bytes."""
    _not_reference(target)
    tally = Tally(target)

    @CI
    @given(gen.typed_values(_BINARY_TYPES))
    def prop(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        want = ref_to_bytes(t, v)
        note(_show(tj, vj) + f" reference bytes={want.hex()}")
        event(str(t).split("(")[0].split("[")[0])
        ok, data = tally.call(lambda: target.to_bytes(tj, vj))
        if ok:
            assert data == want, f"wrote {data.hex()}, the reference writes {want.hex()}"
        ok, back = tally.call(lambda: target.from_bytes(tj, want))
        if ok:
            assert same_value(tj, vj, back), f"read {back!r} from the reference's {want.hex()}"
            tally.checked()

    prop()
    tally.finish("binary agreement")


@pytest.mark.area("value-json")
@pytest.mark.capability(VALUE_JSON)
@pytest.mark.spec("Appendix D: Single-value serialization / JSON single-value serialization",
                  quote="Single values are serialized as JSON by type according to the following table:")
def test_value_json_round_trip(target):
    """A JSON single value read and written back means the same (primitive and nested types)."""
    tally = Tally(target)

    @CI
    @given(gen.typed_json_values(gen.types()))
    def prop(tv: tuple[IcebergType, Any]) -> None:
        t, vj = tv
        tj = type_to_json(t)
        note(_show(tj, vj))
        event(t.name if isinstance(t, PrimitiveType) else type(t).__name__)
        ok, back = tally.call(lambda: target.value_json_roundtrip(tj, vj))
        if ok:
            assert same_value(tj, vj, back), f"wrote back {json.dumps(back)}"
            tally.checked()

    prop()
    tally.finish("JSON round trip")


_HASHED = gen.primitive_types()


@pytest.mark.area("hash")
@pytest.mark.capability(HASH)
@pytest.mark.spec("Appendix B: 32-bit Hash Requirements",
                  quote="The 32-bit hash implementation is 32-bit Murmur3 hash, x86 variant, seeded with 0.")
def test_hash_agrees_with_reference(target):
    """The target's Appendix B hash of a value is the reference's."""
    _not_reference(target)
    tally = Tally(target)

    @CI
    @given(gen.typed_values(_HASHED))
    def prop(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        want = hash_value(t, v)
        note(_show(tj, vj) + f" reference hash={want}")
        event(str(t).split("(")[0].split("[")[0])
        ok, got = tally.call(lambda: target.hash(tj, vj))
        if ok:
            assert got == want, f"hash {got}, the reference's is {want}"
            tally.checked()

    prop()
    tally.finish("hash agreement")


@pytest.mark.area("hash")
@pytest.mark.capability(HASH)
@pytest.mark.spec("Appendix B: 32-bit Hash Requirements (notes 1 and 5)",
                  quote="Integer and long hash results must be identical for all integer values. ... Float hash "
                        "values are the result of hashing the float cast to double")
def test_hash_int_long_and_float_double_agree(target):
    """Appendix B: int and long hash alike for every int; float and double for every float."""
    tally = Tally(target)
    pairs = st.one_of(
        gen.values(IntegerType()).map(lambda v: (IntegerType(), LongType(), v)),
        gen.values(DateType()).map(lambda v: (DateType(), LongType(), v)),
        gen.values(FloatType()).map(lambda v: (FloatType(), DoubleType(), v)),
    )

    @CI
    @given(pairs)
    def prop(p: tuple[IcebergType, IcebergType, Any]) -> None:
        narrow, wide, v = p
        nj, wj = type_to_json(narrow), type_to_json(wide)
        nv, wv = to_json(narrow, v), to_json(wide, v)  # a date's day count is the long
        note(f"{nj} {json.dumps(nv)} / {wj} {json.dumps(wv)}")
        event(f"{nj}/{wj}")
        ok, a = tally.call(lambda: target.hash(nj, nv))
        if not ok:
            return
        ok, b = tally.call(lambda: target.hash(wj, wv))
        if ok:
            assert a == b, f"{nj} hashes to {a}, {wj} to {b}"
            tally.checked()

    prop()
    tally.finish("hash promotion invariants")


def _transforms_for(t: IcebergType) -> st.SearchStrategy[str]:
    from iceberg_conformance.reference.transforms import parse_transform

    options = [
        st.integers(1, MAX_INT).map(lambda n: f"bucket[{n}]"),
        st.sampled_from([1, 2, 10, 16, 100, 1000]).map(lambda n: f"bucket[{n}]"),
        st.sampled_from([1, 2, 3, 4, 5, 10, 100]).map(lambda w: f"truncate[{w}]"),
        st.sampled_from(["identity", "year", "month", "day", "hour"]),
    ]
    return st.one_of(options).filter(lambda text: parse_transform(text).accepts(t))


_TRANSFORM_SOURCES = gen.primitive_types(exclude=(BooleanType, FloatType, DoubleType))


@st.composite
def _transform_cases(draw: st.DrawFn) -> tuple[str, IcebergType, Any]:
    t = draw(_TRANSFORM_SOURCES)
    text = draw(_transforms_for(t))
    return text, t, draw(gen.values(t))


def _reference_transform(text: str, t: IcebergType, v: Any) -> tuple[bool, Any, Any]:
    """(applies, result type JSON, result JSON) from the reference."""
    from iceberg_conformance.reference.errors import SpecViolation
    from iceberg_conformance.reference.transforms import parse_transform

    tr = parse_transform(text)
    try:
        rt = tr.result_type(t)
        return True, type_to_json(rt), value_to_json(rt, tr.apply(t, v))
    except SpecViolation:
        return False, None, None  # e.g. truncate of the minimum int leaves the type's range


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Partition Transforms; Bucket and Truncate Transform Details")
def test_transforms_agree_with_reference(target):
    """bucket, truncate, year/month/day/hour and identity give the reference's results."""
    _not_reference(target)
    tally = Tally(target)

    @CI
    @given(_transform_cases())
    def prop(c: tuple[str, IcebergType, Any]) -> None:
        text, t, v = c
        tj, vj = type_to_json(t), to_json(t, v)
        applies, rtype, want = _reference_transform(text, t, v)
        note(f"{text} of " + _show(tj, vj) + f" reference result={json.dumps(want)}")
        event(f"{text.split('[')[0]} {str(t).split('(')[0].split('[')[0]}")
        if not applies:
            event("reference refuses: result outside the type's range")
            return
        ok, got = tally.call(lambda: target.transform(text, tj, vj))
        if ok:
            if isinstance(rtype, str) and rtype.split("[")[0] in ("binary", "fixed"):
                same = isinstance(got, str) and isinstance(want, str) and got.lower() == want.lower()
            else:
                same = values_equal(want, got) or same_value(rtype, want, got)
            assert same, f"{text} gives {json.dumps(got)}, the reference {json.dumps(want)}"
            tally.checked()

    prop()
    tally.finish("transform agreement")


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Bucket Transform Details",
                  quote="The hash mod `N` must produce a positive value by first discarding the sign bit of the hash value.")
def test_bucket_in_range(target):
    """bucket[N] of any value of a bucket source type is in [0, N)."""
    tally = Tally(target)
    sources = gen.primitive_types(exclude=(BooleanType, FloatType, DoubleType))

    @CI
    @given(sources.flatmap(lambda t: st.tuples(st.just(t), gen.values(t))),
           st.one_of(st.integers(1, MAX_INT), st.sampled_from([1, 2, 16, MAX_INT])))
    def prop(tv: tuple[IcebergType, Any], n: int) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        note(f"bucket[{n}] of " + _show(tj, vj))
        ok, got = tally.call(lambda: target.transform(f"bucket[{n}]", tj, vj))
        if ok:
            assert isinstance(got, int) and not isinstance(got, bool) and 0 <= got < n, f"bucket {got!r}"
            tally.checked()

    prop()
    tally.finish("bucket range")


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Truncate Transform Details", quote="The remainder, `v % W`, must be positive.")
def test_truncate_is_a_floor(target):
    """truncate[W] of an int, long or decimal v is the largest multiple of W (in unscaled
    units) not above v: v - W < result <= v."""
    tally = Tally(target)
    sources = st.one_of(st.just(IntegerType()), st.just(LongType()), gen.decimal_types())

    @CI
    @given(sources.flatmap(lambda t: st.tuples(st.just(t), gen.values(t))), st.integers(1, 1000))
    def prop(tv: tuple[IcebergType, Any], w: int) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        note(f"truncate[{w}] of " + _show(tj, vj))
        ok, got = tally.call(lambda: _truncate_or_none(target, w, tj, vj, t, v))
        if not ok or got is None:
            return
        if isinstance(t, DecimalType):
            from decimal import Decimal, localcontext
            with localcontext() as ctx:
                ctx.prec = 100  # 38 digits and more: the default context rounds at 28
                step = Decimal(w).scaleb(-t.scale)
                result = Decimal(got)
                assert result <= v < result + step, f"truncate[{w}] gives {got}"
        else:
            assert isinstance(got, int) and got <= v < got + w, f"truncate[{w}] gives {got!r}"
        tally.checked()

    prop()
    tally.finish("truncate floor")


def _truncate_or_none(target: Any, w: int, tj: Any, vj: Any, t: IcebergType, v: Any) -> Any:
    """The target's truncate result, or None where the floor leaves the type's range (no
    property then: the spec does not say what happens)."""
    if isinstance(t, (IntegerType, LongType)):
        low = -(2**31) if isinstance(t, IntegerType) else -(2**63)
        if v - v % w < low:
            return None
    if isinstance(t, DecimalType):
        from iceberg_conformance.reference.hashing import unscaled
        if abs(unscaled(v) - unscaled(v) % w) >= 10**t.precision:
            return None
    return target.transform(f"truncate[{w}]", tj, vj)



@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization")
@pytest.mark.level("should")  # bad bytes must be refused (binary/invalid vectors); HOW is this kit's demand
def test_binary_reads_any_bytes_without_crashing(target):
    """Reading arbitrary bytes as any primitive type gives a value or a refusal, never a crash
    (a reader's bad-input errors are clear refusals, not tracebacks from deep inside)."""
    tally = Tally(target)

    @CI
    @given(gen.primitive_types(), st.one_of(st.binary(max_size=40), st.sampled_from([b"", b"\x00" * 3, b"\xff" * 9])))
    def prop(t: IcebergType, data: bytes) -> None:
        tj = type_to_json(t)
        note(f"type={json.dumps(tj)} bytes={data.hex()}")
        event(str(t).split("(")[0].split("[")[0])
        try:
            target.from_bytes(tj, data)
        except (Rejected, Unsupported):
            pass
        tally.checked()

    prop()
    tally.finish("reading arbitrary bytes")
