"""Property tests with generated values: round trips, and agreement with the reference.

Spec sections: "Appendix D: Single-value serialization" (binary and JSON), "Appendix B: 32-bit
Hash Requirements by Type", "Partitioning / Partition Transforms". Values come from
:mod:`reference.strategies` (edges drawn on purpose: extremes, pre-1970, -0.0, NaN, non-BMP
text, 38-digit decimals, unscaled decimals at byte boundaries) and cross the adapter in JSON
single-value form.

Two kinds of test:

* *invariants*, for every target (the reference included): a value written to bytes and read
  back is the same value; a JSON value read and written back means the same; int and long
  hash alike, and so do float and double (Appendix B notes); a bucket is in ``[0, N)`` and is
  the value's own hash taken modulo N; a truncated number is the floor to a multiple of W;
* *differential* properties, for every target but the reference (which would be compared with
  itself: those report "not applicable"): the target's bytes, hashes and transform results
  equal the reference's.

Every kind is reached. A property runs once per *stratum*: per kind of primitive type (every
``decimal(P, S)`` is one kind, ``uuid`` another), and the transform properties per transform kind
and source kind, a transform's examples shared equally among the sources it accepts. Each
stratum runs its edge values first (hypothesis explicit examples: every edge value of a few types
of the kind, :func:`reference.strategies.edge_values_of`), then ``PER_KIND`` generated examples
(``PER_TRANSFORM`` per transform). A :class:`Reach` counts what each property drew, per type kind
and per transform kind, asserts every kind was drawn at least its floor, and records the counts
(JUnit property ``draws``; hypothesis statistics, ``--hypothesis-show-statistics``, list them as
events).

Each test names the spec clause it checks (marker ``spec``): a failure shows it in a section
"iceberg-conformance: spec clause" and JUnit carries it as the property ``spec``. Reading
arbitrary bytes without a crash is level ``should`` (marker ``level``): the spec says which bytes
are no value (the ``binary/invalid`` vectors judge that a reader refuses them, level must); that
the refusal is a clean error rather than another exception is this kit's demand, so a target
that throws something else there is ADVISORY.

Runs are reproducible: ``derandomize=True`` (the examples depend only on the test), no example
database, no deadline. A failure shows the type and value in JSON form (``note``). Inputs a
target reports UNSUPPORTED are counted; a property whose every example was unsupported is
reported UNSUPPORTED, not PASS.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import pytest
from hypothesis import HealthCheck, event, example, given, note, settings
from hypothesis import strategies as st

from iceberg_conformance.reference import strategies as gen
from iceberg_conformance.reference.binary import to_bytes as ref_to_bytes
from iceberg_conformance.reference.hashing import hash_value
from iceberg_conformance.reference.types import (
    BooleanType, DateType, DecimalType, DoubleType, FloatType, IcebergType, IntegerType, LongType,
    type_to_json,
)
from iceberg_conformance.reference.values import to_json, value_to_json
from iceberg_conformance.suites.api import BINARY, HASH, TRANSFORM, VALUE_JSON, Rejected, Unsupported
from iceberg_conformance.suites.harness.judge import values_equal
from iceberg_conformance.suites.harness.outcomes import unsupported
from iceberg_conformance.suites.harness.values import same_value

CI = settings(
    derandomize=True, deadline=None, database=None, print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
#: generated examples per stratum of a type property (after the stratum's edge values)
PER_KIND = 10
#: generated examples per transform kind, shared among the source kinds it accepts
PER_TRANSFORM = 48
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


class Reach:
    """What one property drew: examples per type kind and per transform kind, and the distinct
    values of the kinds with few values. ``check`` holds every expected kind to a floor."""

    def __init__(self, item: pytest.Item) -> None:
        self.item = item
        self.types: Counter[str] = Counter()
        self.transforms: Counter[str] = Counter()
        self.values: dict[str, set[str]] = {}

    def draw(self, t: IcebergType, value: Any = None, transform: str | None = None) -> None:
        kind = gen.kind_of(t)
        self.types[kind] += 1
        if gen.value_count(kind) is not None:
            self.values.setdefault(kind, set()).add(repr(value))
        event(f"type {kind}")
        if transform is not None:
            self.transforms[transform.split("[")[0]] += 1
            event(f"transform {transform.split('[')[0]}")

    def check(self, types: Iterable[str], floor: int, transforms: Iterable[str] = (),
              transform_floor: int = 0) -> None:
        """Every kind in ``types`` drawn ``floor`` times (a kind with fewer values: each of them),
        every transform kind in ``transforms`` ``transform_floor`` times."""
        self.item.user_properties.append(("draws", json.dumps({"types": dict(sorted(self.types.items())),
                                                       "transforms": dict(sorted(self.transforms.items()))})))
        short = {k: self.types[k] for k in types
                 if self.types[k] < floor and len(self.values.get(k, ())) != gen.value_count(k)}
        short.update({f"transform {k}": self.transforms[k] for k in transforms if self.transforms[k] < transform_floor})
        assert not short, (f"kinds drawn fewer times than their floor ({floor} per type, {transform_floor} per "
                           f"transform): {short}; all draws: types {dict(self.types)}, transforms {dict(self.transforms)}")


@dataclass
class Stratum:
    """One kind's share of a property: its edge cases, then ``examples`` drawn from ``strategy``."""

    name: str
    strategy: st.SearchStrategy[Any]
    edges: list[Any]
    examples: int = PER_KIND


def run_strata(strata: Iterable[Stratum], check: Callable[[Any], None]) -> None:
    """Run the property ``check`` on every stratum in turn: its edges as explicit examples, then
    its generated examples (shrunk within the stratum when one fails)."""
    for stratum in strata:
        @settings(CI, max_examples=stratum.examples)
        @given(stratum.strategy)
        def prop(x: Any) -> None:
            check(x)

        for edge in stratum.edges:
            prop = example(edge)(prop)
        prop()


def _type_strata(kinds: Iterable[str]) -> list[Stratum]:
    return [Stratum(k, gen.typed_values_of(k), gen.edge_values_of(k)) for k in kinds]


def _not_reference(target: Any) -> None:
    if target.name == "reference":
        pytest.skip("not applicable: a differential property would compare the reference with itself")


_BINARY_KINDS = gen.kinds()


@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization",
                  quote="This serialization scheme is for storing single values as individual binary values.")
def test_binary_round_trip(target, request):
    """to_bytes then from_bytes gives the value back (Appendix D binary)."""
    tally, reach = Tally(target), Reach(request.node)

    def check(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        note(_show(tj, vj))
        reach.draw(t, v)
        ok, data = tally.call(lambda: target.to_bytes(tj, vj))
        if not ok:
            return
        ok, back = tally.call(lambda: target.from_bytes(tj, data))
        if not ok:
            return
        assert same_value(tj, vj, back), f"read back {back!r} from {data.hex()}, wrote {vj!r}"
        tally.checked()

    run_strata(_type_strata(_BINARY_KINDS), check)
    reach.check(_BINARY_KINDS, PER_KIND)
    tally.finish("binary round trip")


@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization",
                  quote="This serialization scheme is for storing single values as individual binary values.")
def test_binary_agrees_with_reference(target, request):
    """The target's bytes are the reference's bytes, and it reads the reference's bytes."""
    _not_reference(target)
    tally, reach = Tally(target), Reach(request.node)

    def check(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        want = ref_to_bytes(t, v)
        note(_show(tj, vj) + f" reference bytes={want.hex()}")
        reach.draw(t, v)
        ok, data = tally.call(lambda: target.to_bytes(tj, vj))
        if ok:
            assert data == want, f"wrote {data.hex()}, the reference writes {want.hex()}"
        ok, back = tally.call(lambda: target.from_bytes(tj, want))
        if ok:
            assert same_value(tj, vj, back), f"read {back!r} from the reference's {want.hex()}"
            tally.checked()

    run_strata(_type_strata(_BINARY_KINDS), check)
    reach.check(_BINARY_KINDS, PER_KIND)
    tally.finish("binary agreement")


_NESTED_KINDS = ("struct", "list", "map")


@pytest.mark.area("value-json")
@pytest.mark.capability(VALUE_JSON)
@pytest.mark.spec("Appendix D: Single-value serialization / JSON single-value serialization",
                  quote="Single values are serialized as JSON by type according to the following table:")
def test_value_json_round_trip(target, request):
    """A JSON single value read and written back means the same (primitive and nested types)."""
    tally, reach = Tally(target), Reach(request.node)

    def check(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        note(_show(tj, vj))
        reach.draw(t, v)
        ok, back = tally.call(lambda: target.value_json_roundtrip(tj, vj))
        if ok:
            assert same_value(tj, vj, back), f"wrote back {json.dumps(back)}"
            tally.checked()

    nested = [Stratum(k, gen.typed_values(gen.nested_types(kind=k)), []) for k in _NESTED_KINDS]
    run_strata(_type_strata(gen.kinds()) + nested, check)
    reach.check(gen.kinds() + _NESTED_KINDS, PER_KIND)
    tally.finish("JSON round trip")


_HASHED = gen.kinds()


@pytest.mark.area("hash")
@pytest.mark.capability(HASH)
@pytest.mark.spec("Appendix B: 32-bit Hash Requirements",
                  quote="The 32-bit hash implementation is 32-bit Murmur3 hash, x86 variant, seeded with 0.")
def test_hash_agrees_with_reference(target, request):
    """The target's Appendix B hash of a value is the reference's."""
    _not_reference(target)
    tally, reach = Tally(target), Reach(request.node)

    def check(tv: tuple[IcebergType, Any]) -> None:
        t, v = tv
        tj, vj = type_to_json(t), to_json(t, v)
        want = hash_value(t, v)
        note(_show(tj, vj) + f" reference hash={want}")
        reach.draw(t, v)
        ok, got = tally.call(lambda: target.hash(tj, vj))
        if ok:
            assert got == want, f"hash {got}, the reference's is {want}"
            tally.checked()

    run_strata(_type_strata(_HASHED), check)
    reach.check(_HASHED, PER_KIND)
    tally.finish("hash agreement")


#: (narrow type, the wide type it hashes as): the day count of a date is the long
_HASH_PAIRS = {"int": (IntegerType(), LongType()), "date": (DateType(), LongType()), "float": (FloatType(), DoubleType())}


@pytest.mark.area("hash")
@pytest.mark.capability(HASH)
@pytest.mark.spec("Appendix B: 32-bit Hash Requirements (notes 1 and 5)",
                  quote="Integer and long hash results must be identical for all integer values. ... Float hash "
                        "values are the result of hashing the float cast to double")
def test_hash_int_long_and_float_double_agree(target, request):
    """Appendix B: int and long hash alike for every int; float and double for every float."""
    tally, reach = Tally(target), Reach(request.node)

    def check(p: tuple[IcebergType, IcebergType, Any]) -> None:
        narrow, wide, v = p
        nj, wj = type_to_json(narrow), type_to_json(wide)
        nv, wv = to_json(narrow, v), to_json(wide, v)  # a date's day count is the long
        note(_show(nj, nv) + " / " + _show(wj, wv))
        reach.draw(narrow, v)
        ok, a = tally.call(lambda: target.hash(nj, nv))
        if not ok:
            return
        ok, b = tally.call(lambda: target.hash(wj, wv))
        if ok:
            assert a == b, f"{nj} hashes to {a}, {wj} to {b}"
            tally.checked()

    run_strata([Stratum(k, gen.values(n).map(lambda v, n=n, w=w: (n, w, v)), [(n, w, v) for v in gen.edges(n)],
                        examples=2 * PER_KIND)
                for k, (n, w) in _HASH_PAIRS.items()], check)
    reach.check(_HASH_PAIRS, 2 * PER_KIND)
    tally.finish("hash promotion invariants")


def _transform_strata(kinds: Iterable[str], per_transform: int = PER_TRANSFORM) -> list[Stratum]:
    """One stratum per transform kind and source kind it accepts; the transform's examples
    shared equally among its sources."""
    out = []
    for kind in kinds:
        sources = gen.transform_sources(kind)
        for source in sources:
            out.append(Stratum(f"{kind} {source}", gen.transform_cases(kind, source),
                               gen.edge_transform_cases(kind, source), examples=-(-per_transform // len(sources))))
    return out


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


def _type_kinds_of(transforms: Iterable[str]) -> list[str]:
    return sorted({s for k in transforms for s in gen.transform_sources(k)})


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Partition Transforms; Bucket and Truncate Transform Details")
def test_transforms_agree_with_reference(target, request):
    """identity, bucket, truncate, year/month/day/hour and void give the reference's results."""
    _not_reference(target)
    tally, reach = Tally(target), Reach(request.node)

    def check(c: tuple[str, IcebergType, Any]) -> None:
        text, t, v = c
        tj, vj = type_to_json(t), to_json(t, v)
        applies, rtype, want = _reference_transform(text, t, v)
        note(f"{text} of " + _show(tj, vj) + f" reference result={json.dumps(want)}")
        reach.draw(t, v, text)
        if not applies:
            event("reference refuses: result outside the type's range")
            return
        ok, got = tally.call(lambda: target.transform(text, tj, vj))
        if ok:
            if isinstance(rtype, str) and rtype.split("[")[0] in ("binary", "fixed") and want is not None:
                same = isinstance(got, str) and isinstance(want, str) and got.lower() == want.lower()
            else:
                same = values_equal(want, got) or same_value(rtype, want, got)
            assert same, f"{text} gives {json.dumps(got)}, the reference {json.dumps(want)}"
            tally.checked()

    run_strata(_transform_strata(gen.TRANSFORM_KINDS), check)
    reach.check(_type_kinds_of(gen.TRANSFORM_KINDS), PER_KIND, gen.TRANSFORM_KINDS, PER_TRANSFORM)
    tally.finish("transform agreement")


_BUCKET_SOURCES = gen.transform_sources("bucket")


def _transform_case(c: tuple[str, IcebergType, Any], reach: Reach) -> tuple[str, IcebergType, Any, Any, Any]:
    """A ``(transform, type, value)`` case noted and counted: (transform, type, value, type JSON, value JSON)."""
    text, t, v = c
    tj, vj = type_to_json(t), to_json(t, v)
    note(f"{text} of " + _show(tj, vj))
    reach.draw(t, v, text)
    return text, t, v, tj, vj


def _bucket_strata() -> list[Stratum]:
    return [Stratum(k, gen.transform_cases("bucket", k), gen.edge_transform_cases("bucket", k)) for k in _BUCKET_SOURCES]


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Bucket Transform Details",
                  quote="The hash mod `N` must produce a positive value by first discarding the sign bit of the hash value.")
def test_bucket_in_range(target, request):
    """bucket[N] of any value of a bucket source type is in [0, N)."""
    tally, reach = Tally(target), Reach(request.node)

    def check(c: tuple[str, IcebergType, Any]) -> None:
        text, t, v, tj, vj = _transform_case(c, reach)
        n = int(text[len("bucket["):-1])
        ok, got = tally.call(lambda: target.transform(text, tj, vj))
        if ok:
            assert isinstance(got, int) and not isinstance(got, bool) and 0 <= got < n, f"bucket {got!r}"
            tally.checked()

    run_strata(_bucket_strata(), check)
    reach.check(_BUCKET_SOURCES, PER_KIND)
    tally.finish("bucket range")


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.capability(HASH)
@pytest.mark.spec("Partitioning / Bucket Transform Details",
                  quote="Bucket partition transforms use a 32-bit hash of the source value.")
def test_bucket_is_the_hash_modulo_n(target, request):
    """bucket[N] of a value is the target's own Appendix B hash of it, sign bit discarded, mod N."""
    tally, reach = Tally(target), Reach(request.node)

    def check(c: tuple[str, IcebergType, Any]) -> None:
        text, t, v, tj, vj = _transform_case(c, reach)
        n = int(text[len("bucket["):-1])
        ok, h = tally.call(lambda: target.hash(tj, vj))
        if not ok:
            return
        ok, got = tally.call(lambda: target.transform(text, tj, vj))
        if ok:
            assert isinstance(h, int) and got == (h & MAX_INT) % n, f"{text} gives {got!r}; the target's hash is {h!r}"
            tally.checked()

    run_strata(_bucket_strata(), check)
    reach.check(_BUCKET_SOURCES, PER_KIND)
    tally.finish("bucket and hash")


_TRUNCATED_NUMBERS = ("int", "long", "decimal")


@pytest.mark.area("transforms")
@pytest.mark.capability(TRANSFORM)
@pytest.mark.spec("Partitioning / Truncate Transform Details", quote="The remainder, `v % W`, must be positive.")
def test_truncate_is_a_floor(target, request):
    """truncate[W] of an int, long or decimal v is the largest multiple of W (in unscaled
    units) not above v: v - W < result <= v."""
    tally, reach = Tally(target), Reach(request.node)

    def check(c: tuple[str, IcebergType, Any]) -> None:
        text, t, v, tj, vj = _transform_case(c, reach)
        w = int(text[len("truncate["):-1])
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

    run_strata([Stratum(k, gen.transform_cases("truncate", k), gen.edge_transform_cases("truncate", k),
                        examples=2 * PER_KIND) for k in _TRUNCATED_NUMBERS], check)
    reach.check(_TRUNCATED_NUMBERS, 2 * PER_KIND)
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


_ODD_BYTES = [b"", b"\x00" * 3, b"\xff" * 9]


@pytest.mark.area("binary")
@pytest.mark.capability(BINARY)
@pytest.mark.spec("Appendix D: Single-value serialization / Binary single-value serialization")
@pytest.mark.level("should")  # bad bytes must be refused (binary/invalid vectors); HOW is this kit's demand
def test_binary_reads_any_bytes_without_crashing(target, request):
    """Reading arbitrary bytes as any primitive type gives a value or a refusal, never a crash
    (a reader's bad-input errors are clear refusals, not tracebacks from deep inside)."""
    tally, reach = Tally(target), Reach(request.node)

    def check(c: tuple[IcebergType, bytes]) -> None:
        t, data = c
        tj = type_to_json(t)
        note(f"type={json.dumps(tj)} bytes={data.hex()}")
        reach.draw(t, data)
        try:
            target.from_bytes(tj, data)
        except (Rejected, Unsupported):
            pass
        tally.checked()

    run_strata([Stratum(k, st.tuples(gen.types_of(k), st.binary(max_size=40)),
                        [(t, b) for t in gen.edge_types(k) for b in _ODD_BYTES]) for k in _BINARY_KINDS], check)
    reach.check(_BINARY_KINDS, PER_KIND)
    tally.finish("reading arbitrary bytes")
