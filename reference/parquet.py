"""Parquet data files: the Iceberg type -> Parquet type mapping and field ids.

Spec sections: "Appendix A: Format-specific Requirements / Parquet" (Data Type Mappings; field
ids stored in the Parquet schema) and Parquet ``LogicalTypes.md`` (DECIMAL physical types and
their precision limits, TIME and TIMESTAMP units and ``isAdjustedToUTC``, UUID, the 3-level
LIST and MAP structures).

A Parquet schema is read into a tree of :class:`ParquetNode` (from the footer that pyarrow
decodes, no data pages are read). :func:`check_schema` compares the tree with the table's
schemas by field id and returns :class:`~reference.findings.Finding` objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import singledispatch
from typing import Any, Iterable

from .findings import Finding, Severity
from .types import (
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    GeographyType, GeometryType, IcebergType, IntegerType, ListType, LongType, MapType,
    StringType, StructType, TimestampNanoType, TimestampType, TimestamptzNanoType,
    TimestamptzType, TimeType, UnknownType, UUIDType, VariantType,
)

CLAUSE_MAPPING = "Appendix A: Format-specific Requirements / Parquet / Data Type Mappings"
CLAUSE_FIELD_IDS = "Appendix A: Format-specific Requirements / Parquet (field ids); Column Projection"
CLAUSE_DECIMAL = "Parquet LogicalTypes.md / DECIMAL"
CLAUSE_TIMESTAMP = "Parquet LogicalTypes.md / TIMESTAMP"
CLAUSE_LIST = "Parquet LogicalTypes.md / Lists (3-level structure)"
CLAUSE_MAP = "Parquet LogicalTypes.md / Maps (3-level structure)"


@dataclass(frozen=True)
class ParquetNode:
    """One element of a Parquet schema: a group (``physical`` is None) or a primitive column.

    ``annotation`` is the logical (or converted) type as pyarrow prints it, e.g. ``String``,
    ``Decimal(precision=9, scale=2)``, ``List``; ``field_id`` is None when absent."""

    name: str
    repetition: str
    physical: str | None
    length: int | None
    field_id: int | None
    annotation: str | None
    children: tuple["ParquetNode", ...] = field(default_factory=tuple)

    @property
    def is_group(self) -> bool:
        return self.physical is None

    def child(self, name: str) -> "ParquetNode | None":
        return next((c for c in self.children if c.name == name), None)

    def logical_name(self) -> str | None:
        """The annotation's name without its parameters (``Decimal``, ``Timestamp`` ...)."""
        if self.annotation is None:
            return None
        return self.annotation.split("(", 1)[0].strip()

    def logical_params(self) -> dict[str, str]:
        """``key=value`` parameters of the annotation (``precision``, ``isAdjustedToUTC`` ...)."""
        if self.annotation is None or "(" not in self.annotation:
            return {}
        inner = self.annotation.split("(", 1)[1].rsplit(")", 1)[0]
        out = {}
        for part in inner.split(","):
            if "=" in part:
                k, v = part.split("=", 1)
                out[k.strip()] = v.strip()
        return out


_LINE = re.compile(
    r"^(required|optional|repeated)\s+(group|[a-z_0-9]+(?:\((\d+)\))?)\s+field_id=(-?\d+)\s+"
    r"(.+?)(?:\s+\((.*)\))?\s*(\{|;)$"
)


#: pyarrow prints BYTE_ARRAY as ``binary``
_PHYSICAL = {"BINARY": "BYTE_ARRAY"}


class ParquetSchemaError(ValueError):
    """The printed Parquet schema could not be understood."""


def parse_schema_text(text: str) -> ParquetNode:
    """The schema tree from the text form pyarrow gives for ``ParquetFile(...).schema``."""
    stack: list[tuple[dict[str, object], list[ParquetNode]]] = []
    root: ParquetNode | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("<pyarrow"):
            continue
        if line == "}":
            if not stack:
                raise ParquetSchemaError("unbalanced '}' in Parquet schema")
            attrs, kids = stack.pop()
            node = ParquetNode(children=tuple(kids), **attrs)  # type: ignore[arg-type]
            if stack:
                stack[-1][1].append(node)
            else:
                root = node
            continue
        m = _LINE.match(line)
        if m is None:
            raise ParquetSchemaError(f"unrecognised Parquet schema line: {line!r}")
        rep, kind, length, fid, name, annotation, opener = m.groups()
        fid_i = int(fid)
        attrs = {
            "name": name, "repetition": rep,
            "physical": None if kind == "group" else _PHYSICAL.get(kind.split("(")[0].upper(), kind.split("(")[0].upper()),
            "length": int(length) if length else None,
            "field_id": None if fid_i < 0 else fid_i,
            "annotation": annotation,
        }
        if opener == "{":
            stack.append((attrs, []))
        else:
            if not stack:
                raise ParquetSchemaError("primitive column outside the root group")
            stack[-1][1].append(ParquetNode(**attrs))  # type: ignore[arg-type]
    if root is None or stack:
        raise ParquetSchemaError("Parquet schema text is incomplete")
    return root


def read_schema(path: str) -> ParquetNode:
    """The Parquet schema tree of the file at ``path`` (footer only)."""
    import pyarrow.parquet as pq

    with open(path, "rb") as f:
        return parse_schema_text(str(pq.ParquetFile(f).schema))


# --- expected physical/logical types -------------------------------------------------------

def decimal_fixed_length(precision: int) -> int:
    """The minimum ``fixed_len_byte_array`` length that holds ``precision`` digits
    (LogicalTypes.md: length n holds floor(log10(2^(8n-1) - 1)) digits)."""
    n = 1
    while max_decimal_digits(n) < precision:
        n += 1
    return n


def max_decimal_digits(n: int) -> int:
    """floor(log10(2^(8n-1) - 1)), computed exactly with integers."""
    limit = 2 ** (8 * n - 1) - 1
    return len(str(limit)) - 1 if limit > 0 else 0


@dataclass(frozen=True)
class Problem:
    """A mismatch between a Parquet column and its Iceberg type."""

    rule: str
    message: str
    clause: str
    severity: Severity = "error"


def _mismatch(t: IcebergType, node: ParquetNode, expected: str) -> Problem:
    got = node.physical or "group"
    if node.length is not None:
        got += f"({node.length})"
    if node.annotation:
        got += f" ({node.annotation})"
    return Problem("parquet.type-mapping", f"{t}: expected {expected}, found {got}", CLAUSE_MAPPING)


@singledispatch
def check_primitive(t: IcebergType, node: ParquetNode) -> list[Problem]:
    """Problems with a primitive Parquet column ``node`` that stores Iceberg type ``t``."""
    return []


def _plain(t: IcebergType, node: ParquetNode, physical: str, allowed: Iterable[str | None] = (None,)) -> list[Problem]:
    if node.physical != physical or node.logical_name() not in set(allowed):
        return [_mismatch(t, node, physical.lower())]
    return []


@check_primitive.register
def _(t: BooleanType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "BOOLEAN")


@check_primitive.register
def _(t: IntegerType, node: ParquetNode) -> list[Problem]:
    if node.physical != "INT32":
        return [_mismatch(t, node, "int32")]
    if node.logical_name() not in (None, "Int"):
        return [_mismatch(t, node, "int32")]
    if node.logical_name() == "Int" and node.logical_params().get("isSigned", "true") != "true":
        return [_mismatch(t, node, "signed int32")]
    return []


@check_primitive.register
def _(t: LongType, node: ParquetNode) -> list[Problem]:
    if node.physical != "INT64" or node.logical_name() not in (None, "Int"):
        return [_mismatch(t, node, "int64")]
    if node.logical_name() == "Int" and node.logical_params().get("isSigned", "true") != "true":
        return [_mismatch(t, node, "signed int64")]
    return []


@check_primitive.register
def _(t: FloatType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "FLOAT")


@check_primitive.register
def _(t: DoubleType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "DOUBLE")


@check_primitive.register
def _(t: DateType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "INT32", ("Date",))


@check_primitive.register
def _(t: TimeType, node: ParquetNode) -> list[Problem]:
    if node.physical != "INT64" or node.logical_name() != "Time":
        return [_mismatch(t, node, "int64 (TIME MICROS)")]
    if node.logical_params().get("timeUnit") not in ("microseconds", "MICROS"):
        return [Problem("parquet.time-unit", f"time: unit must be MICROS, found {node.annotation}", CLAUSE_MAPPING)]
    return []


def _timestamp(t: IcebergType, node: ParquetNode, *, utc: bool, unit: str) -> list[Problem]:
    want = f"int64 (TIMESTAMP {unit.upper()}, isAdjustedToUTC={'true' if utc else 'false'})"
    if node.physical == "INT96":
        return [Problem("parquet.type-mapping", f"{t}: INT96 timestamps are a legacy encoding; expected {want}",
                        CLAUSE_MAPPING, "warning")]
    if node.physical != "INT64" or node.logical_name() != "Timestamp":
        return [_mismatch(t, node, want)]
    params = node.logical_params()
    problems = []
    found_unit = params.get("timeUnit", "")
    if found_unit.lower() not in (unit, {"microseconds": "micros", "nanoseconds": "nanos"}[unit]):
        problems.append(Problem("parquet.timestamp-unit", f"{t}: unit must be {unit}, found {found_unit}", CLAUSE_MAPPING))
    adjusted = params.get("isAdjustedToUTC")
    if adjusted != ("true" if utc else "false"):
        problems.append(Problem(
            "parquet.timestamp-utc",
            f"{t}: isAdjustedToUTC must be {'true' if utc else 'false'}, found {adjusted}",
            CLAUSE_TIMESTAMP + "; " + CLAUSE_MAPPING))
    return problems


@check_primitive.register
def _(t: TimestampType, node: ParquetNode) -> list[Problem]:
    return _timestamp(t, node, utc=False, unit="microseconds")


@check_primitive.register
def _(t: TimestamptzType, node: ParquetNode) -> list[Problem]:
    return _timestamp(t, node, utc=True, unit="microseconds")


@check_primitive.register
def _(t: TimestampNanoType, node: ParquetNode) -> list[Problem]:
    return _timestamp(t, node, utc=False, unit="nanoseconds")


@check_primitive.register
def _(t: TimestamptzNanoType, node: ParquetNode) -> list[Problem]:
    return _timestamp(t, node, utc=True, unit="nanoseconds")


@check_primitive.register
def _(t: StringType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "BYTE_ARRAY", ("String",))


@check_primitive.register
def _(t: BinaryType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "BYTE_ARRAY")


@check_primitive.register
def _(t: UUIDType, node: ParquetNode) -> list[Problem]:
    if node.physical != "FIXED_LEN_BYTE_ARRAY" or node.length != 16 or node.logical_name() != "UUID":
        return [_mismatch(t, node, "fixed_len_byte_array(16) (UUID)")]
    return []


@check_primitive.register
def _(t: FixedType, node: ParquetNode) -> list[Problem]:
    if node.physical != "FIXED_LEN_BYTE_ARRAY" or node.length != t.length or node.logical_name() is not None:
        return [_mismatch(t, node, f"fixed_len_byte_array({t.length})")]
    return []


@check_primitive.register
def _(t: GeometryType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "BYTE_ARRAY", ("Geometry",))


@check_primitive.register
def _(t: GeographyType, node: ParquetNode) -> list[Problem]:
    return _plain(t, node, "BYTE_ARRAY", ("Geography",))


@check_primitive.register
def _(t: DecimalType, node: ParquetNode) -> list[Problem]:
    if node.logical_name() != "Decimal":
        return [_mismatch(t, node, f"DECIMAL({t.precision},{t.scale})")]
    params = node.logical_params()
    problems = []
    if params.get("precision") != str(t.precision) or params.get("scale", "0") != str(t.scale):
        problems.append(_mismatch(t, node, f"DECIMAL({t.precision},{t.scale})"))
    scale, precision = params.get("scale", "0"), params.get("precision", "")
    if scale.lstrip("-").isdigit() and precision.isdigit() and not 0 <= int(scale) <= int(precision):
        problems.append(Problem("parquet.annotation", f"{t}: DECIMAL scale {scale} is outside 0..{precision} "
                                "(LogicalTypes.md: 0 <= scale <= precision)", CLAUSE_DECIMAL))
    p = t.precision
    # What LogicalTypes.md allows at all:
    limits = {"INT32": 9, "INT64": 18}
    if node.physical in limits and p > limits[node.physical]:
        return problems + [Problem("parquet.decimal-physical-type",
                                   f"{t}: {node.physical.lower()} holds at most {limits[node.physical]} digits",
                                   CLAUSE_DECIMAL)]
    if node.physical == "FIXED_LEN_BYTE_ARRAY" and node.length is not None and max_decimal_digits(node.length) < p:
        return problems + [Problem("parquet.decimal-physical-type",
                                   f"{t}: fixed_len_byte_array({node.length}) holds at most "
                                   f"{max_decimal_digits(node.length)} digits", CLAUSE_DECIMAL)]
    if node.physical not in ("INT32", "INT64", "FIXED_LEN_BYTE_ARRAY", "BYTE_ARRAY"):
        return problems + [_mismatch(t, node, "int32, int64 or fixed_len_byte_array")]
    # What Appendix A asks of Iceberg writers:
    want = "INT32" if p <= 9 else "INT64" if p <= 18 else "FIXED_LEN_BYTE_ARRAY"
    if node.physical != want:
        problems.append(Problem(
            "parquet.decimal-physical-type",
            f"{t}: Iceberg writes {want.lower()} for precision {p}, found {node.physical.lower()}"
            " (allowed by Parquet)", CLAUSE_MAPPING, "warning"))
    elif want == "FIXED_LEN_BYTE_ARRAY" and node.length != decimal_fixed_length(p):
        problems.append(Problem(
            "parquet.decimal-fixed-length",
            f"{t}: fixed must use the minimum number of bytes ({decimal_fixed_length(p)}), found {node.length}",
            CLAUSE_MAPPING))
    return problems


# --- walking a file schema against the table schemas ----------------------------------------

FieldIndex = dict[int, list[tuple[str, IcebergType, bool]]]


def index_fields(schemas: Iterable[StructType]) -> FieldIndex:
    """field id -> every (name, type, required) it had in the given schemas (oldest first)."""
    out: FieldIndex = {}

    def visit(fid: int, name: str, t: IcebergType, required: bool) -> None:
        seen = out.setdefault(fid, [])
        if (name, t, required) not in seen:
            seen.append((name, t, required))
        if isinstance(t, StructType):
            for f in t.fields:
                visit(f.field_id, f.name, f.field_type, f.required)
        elif isinstance(t, ListType):
            visit(t.element_id, "element", t.element_type, t.element_required)
        elif isinstance(t, MapType):
            visit(t.key_id, "key", t.key_type, True)
            visit(t.value_id, "value", t.value_type, t.value_required)

    for s in schemas:
        for f in s.fields:
            visit(f.field_id, f.name, f.field_type, f.required)
    return out


def check_schema(root: ParquetNode, fields: FieldIndex, *, file: str = "",
                 name_mapping: bool = False) -> list[Finding]:
    """Findings for a Parquet file's schema against the table's fields (by id).

    Field ids: every column the table knows must carry its id; without ids a reader needs the
    table's name mapping (``schema.name-mapping.default``), so a missing id is a warning then.
    A file may mark a column ``required`` that the table has optional (a writer's choice); an
    optional file column for a required table field is checked against the data instead."""
    out: list[Finding] = []

    def add(p: Problem, path: str) -> None:
        out.append(Finding(p.rule, p.message, p.clause, file, path, p.severity))

    def visit(node: ParquetNode, path: str, expect_id: int | None) -> None:
        here = f"{path}.{node.name}" if path else node.name
        fid = node.field_id
        if fid is None:
            add(Problem("parquet.field-id-missing-mapped" if name_mapping else "parquet.field-id-missing",
                        f"column {here!r} has no field id" + (
                            f" (table field {expect_id})" if expect_id is not None else ""),
                        CLAUSE_FIELD_IDS, "warning" if name_mapping else "error"), here)
            fid = expect_id
        elif expect_id is not None and fid != expect_id:
            add(Problem("parquet.field-id-mismatch",
                        f"column {here!r} has field id {fid}, the table's field at this position has {expect_id}",
                        CLAUSE_FIELD_IDS), here)
            return
        if fid is None:
            return
        if node.repetition == "repeated" and node.logical_name() not in ("List", "Map", "MapKeyValue"):
            # LIST and MAP groups hold the only repeated levels (their repeated groups are not visited here)
            add(Problem("parquet.list-structure", f"column {here!r} is repeated outside a LIST or MAP group "
                        "(no unannotated repeated types with the annotations)", CLAUSE_LIST), here)
            return
        known = fields.get(fid)
        if known is None:
            add(Problem("parquet.field-id-unknown",
                        f"column {here!r}: field id {fid} is in no schema of the table",
                        CLAUSE_FIELD_IDS), here)
            return
        candidates = [t for _, t, _ in known]
        best: list[Problem] | None = None
        for t in candidates:
            problems = _check_node(t, node, here, visit)
            if not problems:
                return
            if best is None:
                best = problems
        for p in best or []:
            add(p, here)

    for child in root.children:
        visit(child, "", None)
    return out


def _check_node(t: IcebergType, node: ParquetNode, here: str, visit: object) -> list[Problem]:
    """Problems with ``node`` as a column of type ``t``; children are checked through ``visit``
    (called only once ``t`` fits, to report nested problems at their own paths)."""
    from typing import Callable, cast

    go = cast(Callable[[ParquetNode, str, "int | None"], None], visit)
    if isinstance(t, UnknownType):
        return [Problem("parquet.unknown-column", f"{here!r}: columns of type unknown are omitted from data files",
                        CLAUSE_MAPPING, "warning")]
    if isinstance(t, VariantType):
        if not node.is_group or node.child("metadata") is None or node.child("value") is None:
            return [_mismatch(t, node, "group with metadata and value")]
        return []
    if isinstance(t, StructType):
        if not node.is_group or node.logical_name() in ("List", "Map"):
            return [_mismatch(t, node, "group")]
        for c in node.children:
            go(c, here, None)
        return []
    if isinstance(t, ListType):
        if not node.is_group or node.logical_name() != "List":
            return [_mismatch(t, node, "group (LIST)")]
        rep = node.children[0] if len(node.children) == 1 else None
        if rep is None or rep.repetition != "repeated" or not rep.is_group or len(rep.children) != 1:
            return [Problem("parquet.list-structure",
                            f"{here!r}: a list is a LIST group holding one repeated group holding one element "
                            "(3-level list)", CLAUSE_LIST + "; " + CLAUSE_MAPPING)]
        element = rep.children[0]
        if node.repetition == "repeated" or element.repetition == "repeated":
            return [Problem("parquet.list-structure",
                            f"{here!r}: the LIST group and its element are required or optional, never repeated",
                            CLAUSE_LIST)]
        go(element, f"{here}.{rep.name}", t.element_id)
        if rep.name != "list" or element.name != "element":
            # a writer's fault; the columns are read on (names are not enforced when reading)
            return [Problem("parquet.nested-names",
                            f"{here!r}: the repeated group is {rep.name!r} holding {element.name!r}; it is named "
                            "list and its element field element", CLAUSE_LIST)]
        return []
    if isinstance(t, MapType):
        if not node.is_group or node.logical_name() not in ("Map", "MapKeyValue"):
            return [_mismatch(t, node, "group (MAP)")]
        rep = node.children[0] if len(node.children) == 1 else None
        if rep is None or rep.repetition != "repeated" or not rep.is_group or len(rep.children) != 2:
            return [Problem("parquet.map-structure",
                            f"{here!r}: a map is a MAP group holding one repeated group of key and value "
                            "(3-level map)", CLAUSE_MAP + "; " + CLAUSE_MAPPING)]
        key, value = rep.children
        if key.repetition != "required":
            return [Problem("parquet.map-structure", f"{here!r}: the map key must be required",
                            CLAUSE_MAP)]
        if node.repetition == "repeated":
            return [Problem("parquet.map-structure", f"{here!r}: the MAP group is required or optional, never "
                            "repeated", CLAUSE_MAP)]
        go(key, f"{here}.{rep.name}", t.key_id)
        go(value, f"{here}.{rep.name}", t.value_id)
        if (rep.name, key.name, value.name) != ("key_value", "key", "value"):
            return [Problem("parquet.nested-names", f"{here!r}: the repeated group is {rep.name!r} holding "
                            f"{key.name!r} and {value.name!r}; they are named key_value, key and value", CLAUSE_MAP)]
        return []
    if node.is_group:
        return [_mismatch(t, node, "a primitive column")]
    return check_primitive(t, node)


def leaf_paths(root: ParquetNode) -> dict[int, str]:
    """field id -> dotted column path of every primitive column that carries an id."""
    out: dict[int, str] = {}

    def go(n: ParquetNode, prefix: str) -> None:
        here = f"{prefix}.{n.name}" if prefix else n.name
        if not n.is_group:
            if n.field_id is not None:
                out[n.field_id] = here
        else:
            for c in n.children:
                go(c, here)

    for c in root.children:
        go(c, "")
    return out


__all__ = [
    "ParquetNode", "ParquetSchemaError", "Problem", "parse_schema_text", "read_schema",
    "check_primitive", "check_schema", "index_fields", "leaf_paths", "decimal_fixed_length",
    "max_decimal_digits",
]


# --- annotations of leaf columns (LogicalTypes.md: Compatibility, TIME, TIMESTAMP) ---------------

CLAUSE_ANNOTATIONS = "Parquet LogicalTypes.md / Compatibility; TIME; TIMESTAMP (deprecated ConvertedType)"

#: the physical types a LogicalType or ConvertedType may annotate (by unit where it matters)
_TIME_PHYSICAL = {"milliseconds": "INT32", "microseconds": "INT64", "nanoseconds": "INT64"}
_CONVERTED_PHYSICAL = {"TIME_MILLIS": "INT32", "TIME_MICROS": "INT64", "TIMESTAMP_MILLIS": "INT64",
                       "TIMESTAMP_MICROS": "INT64"}


def _expected_converted(logical: dict[str, Any]) -> str | None:
    """The ConvertedType that corresponds exactly to a LogicalType (LogicalTypes.md), or None:
    local (not UTC-adjusted) time and timestamps and nanosecond units have no exact one."""
    kind = logical.get("Type")
    simple = {"String": "UTF8", "Enum": "ENUM", "Json": "JSON", "Bson": "BSON", "Date": "DATE",
              "Decimal": "DECIMAL"}
    if kind in simple:
        return simple[kind]
    if kind in ("Time", "Timestamp") and logical.get("isAdjustedToUTC"):
        unit = {"milliseconds": "MILLIS", "microseconds": "MICROS"}.get(str(logical.get("timeUnit")))
        return f"{kind.upper()}_{unit}" if unit else None
    if kind == "Int":
        return f"{'INT' if logical.get('isSigned') else 'UINT'}_{logical.get('bitWidth')}"
    return None


def annotation_problems(columns: list[tuple[str, str, dict[str, Any] | None, str]]) -> list[tuple[str, str]]:
    """(column, why) for leaf columns ``(name, physical type, LogicalType as JSON or None,
    ConvertedType name or "NONE")``: a TIME LogicalType on another physical type than its unit
    takes, a TIME/TIMESTAMP ConvertedType on another than int32/int64 as LogicalTypes.md gives,
    and a LogicalType written without its exact ConvertedType counterpart."""
    out = []
    for name, physical, logical, converted in columns:
        if logical and logical.get("Type") == "Time":
            want = _TIME_PHYSICAL.get(str(logical.get("timeUnit")))
            if want and physical != want:
                out.append((name, f"TIME({logical.get('timeUnit')}) annotates {physical.lower()}; it annotates "
                                  f"{want.lower()}"))
        want = _CONVERTED_PHYSICAL.get(converted)
        if want and physical != want:
            out.append((name, f"ConvertedType {converted} annotates {physical.lower()}; it annotates {want.lower()}"))
        expected = _expected_converted(logical) if logical else None
        if expected and converted != expected:
            out.append((name, f"LogicalType {logical.get('Type') if logical else ''} is written without its "
                              f"ConvertedType {expected} (found {converted})"))
    return out


def int_range_problems(columns: list[tuple[str, dict[str, Any] | None, Any, Any]]) -> list[tuple[str, str]]:
    """(column, why) for leaf columns ``(name, LogicalType as JSON or None, min, max)`` whose
    ``Int(bitWidth, isSigned)`` annotation does not hold the values ("Implementations must not
    write values that are larger than the annotation allows")."""
    out = []
    for name, logical, lo, hi in columns:
        if not logical or logical.get("Type") != "Int" or not isinstance(lo, int) or not isinstance(hi, int):
            continue
        width = int(logical.get("bitWidth") or 64)
        low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if logical.get("isSigned") else (0, (1 << width) - 1)
        if lo < low or hi > high:
            out.append((name, f"values {lo}..{hi} do not fit the annotation Int({width}, "
                              f"{'signed' if logical.get('isSigned') else 'unsigned'}) ({low}..{high})"))
    return out
