"""Plumbing for the pyiceberg adapter: JSON types and single values to PyIceberg-native ones.

The vectors carry types as Iceberg type strings / Appendix C JSON and values in the spec's JSON
single-value form. PyIceberg's functions (transforms, conversions, writers) take its own type
objects and plain Python values:

==================  =============================================
type                PyIceberg-native value
==================  =============================================
boolean             ``bool``
int, long           ``int``
float, double       ``float``
decimal(P, S)       ``decimal.Decimal`` with exponent ``-S``
date                ``int`` days from 1970-01-01
time                ``int`` microseconds from midnight
timestamp(tz)       ``int`` microseconds from the epoch
timestamp(tz)_ns    ``int`` nanoseconds from the epoch
string              ``str``
uuid                ``uuid.UUID``
fixed, binary       ``bytes``
struct              ``pyiceberg.typedef.Record`` (fields in order)
list, map           ``list``, ``dict``
unknown             always ``None``
==================  =============================================

The JSON *value* parsing here is this kit's (:mod:`reference.values`), not PyIceberg's: the
inputs are trusted vector data, and a test of one PyIceberg function must not also depend on
PyIceberg's JSON parsing. Adapters that test PyIceberg's own JSON single-value handling must
call PyIceberg for that. A value that does not parse raises :class:`InputConversionError`
(a ``ValueError``); the calling adapter decides whether that is a rejection.

Public helpers: :func:`iceberg_type`, :func:`to_native`, :func:`from_native`.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference import types as rt
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.values import value_from_json, value_to_json


class InputConversionError(ValueError):
    """A JSON type or value of a vector could not be turned into PyIceberg's form."""


def iceberg_type(type_json: Any) -> Any:
    """The ``pyiceberg.types.IcebergType`` of an Iceberg type string or Appendix C JSON object.

    Nested types are parsed by PyIceberg's own pydantic models (field ids as given).
    """
    from pyiceberg.types import IcebergType

    try:
        return IcebergType.model_validate(type_json)
    except Exception as e:  # noqa: BLE001 - pydantic raises several kinds; all mean "not parsed"
        raise InputConversionError(f"pyiceberg cannot parse type {type_json!r}: {e}") from e


def _reference_type(type_json: Any) -> rt.IcebergType:
    try:
        return rt.parse_type(type_json)
    except SpecViolation as e:
        raise InputConversionError(str(e)) from e


def _native(t: rt.IcebergType, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(t, rt.StructType):
        from pyiceberg.typedef import Record

        return Record(*(_native(f.field_type, v.get(f.field_id)) for f in t.fields))
    if isinstance(t, rt.ListType):
        return [_native(t.element_type, e) for e in v]
    if isinstance(t, rt.MapType):
        return {_native(t.key_type, k): _native(t.value_type, x) for k, x in v.items()}
    return v  # primitives: the reference's Python forms are PyIceberg's (see the table above)


def to_native(type_json: Any, value: Any) -> Any:
    """The PyIceberg-native Python value of JSON single-value ``value`` of type ``type_json``."""
    t = _reference_type(type_json)
    try:
        return _native(t, value_from_json(t, value))
    except SpecViolation as e:
        raise InputConversionError(str(e)) from e


def _plain(t: rt.IcebergType, v: Any) -> Any:
    if v is None:
        return None
    if isinstance(t, rt.StructType):
        if isinstance(v, dict):
            items = [v.get(f.field_id) for f in t.fields]
        else:  # a pyiceberg Record: positional fields
            items = list(v._data) if hasattr(v, "_data") else list(v)
        return {f.field_id: _plain(f.field_type, x) for f, x in zip(t.fields, items)}
    if isinstance(t, rt.ListType):
        return [_plain(t.element_type, e) for e in v]
    if isinstance(t, rt.MapType):
        return {_plain(t.key_type, k): _plain(t.value_type, x) for k, x in v.items()}
    if isinstance(t, (rt.FixedType, rt.BinaryType)) and isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    return v


def from_native(type_json: Any, value: Any) -> Any:
    """The JSON single-value form of PyIceberg-native ``value`` of type ``type_json``."""
    t = _reference_type(type_json)
    try:
        return value_to_json(t, _plain(t, value))
    except (SpecViolation, TypeError, ValueError, AttributeError) as e:
        raise InputConversionError(f"{value!r} is not a PyIceberg value of {type_json}: {e}") from e
