"""``parquet.decimal-byte-order``: a fixed_len_byte_array decimal column holding its unscaled
values little-endian, seen against the manifest's bounds.

Parquet LogicalTypes.md (DECIMAL): "For byte arrays, binary and fixed, the unscaled number must
be encoded as two's complement using big-endian byte order (the most significant byte is the
zeroth element)." Iceberg's bounds serialize the same values as two's-complement big-endian in
the minimum number of bytes (Appendix D), so a writer that stores the unscaled values
little-endian but writes the bounds of the values it meant leaves bounds that the file's
values, read big-endian, break, and that the byte-reversed reading meets exactly.

Expected values by hand: decimal(38, 10) is a 16-byte fixed_len_byte_array; the unscaled value 1
little-endian is the bytes 01 00 .. 00, which read big-endian are 2**120; 3 is 3 * 2**120.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.checker.units.metrics import ColumnStats

from iceberg_conformance.checker.units.datafile import byte_reversed, unscaled
from iceberg_conformance.reference.types import DecimalType

T = DecimalType(38, 10)


def _decimal(u: int) -> Decimal:
    """The decimal(38, 10) value of the unscaled integer ``u``, built from its digits (exact)."""
    return Decimal((int(u < 0), tuple(int(d) for d in str(abs(u))), -10))


def _file(tmp: Path, unscaled_values: list[int | None]) -> str:
    import pyarrow as pa
    import pyarrow.parquet as pq

    field = pa.field("d", pa.decimal128(38, 10), True, metadata={b"PARQUET:field_id": b"1"})
    arr = pa.array([None if u is None else _decimal(u) for u in unscaled_values], pa.decimal128(38, 10))
    path = str(tmp / "data.parquet")
    pq.write_table(pa.Table.from_arrays([arr], schema=pa.schema([field])), path)
    return path


def _findings(path: str, lower: str | None, upper: str | None) -> list[Any]:
    import pyarrow.parquet as pq

    from iceberg_conformance.checker.units.datafile import _decimal_byte_order

    pf = pq.ParquetFile(path)
    values = [v for v in pq.read_table(path).column("d").to_pylist() if v is not None]
    stats = {1: ColumnStats(count=len(values), lo=min(values), hi=max(values))}
    df: dict[str, Any] = {"lower_bounds": {} if lower is None else {"1": lower},
                          "upper_bounds": {} if upper is None else {"1": upper}}
    return _decimal_byte_order(path, pf, pf.schema_arrow, df, {1: T}, stats, path)


def test_hand_derived_byte_reversal() -> None:
    assert byte_reversed(1, 16) == 2 ** 120
    assert byte_reversed(3 * 2 ** 120, 16) == 3
    assert byte_reversed(-2, 4) == -16777217       # FF FF FF FE -> FE FF FF FF
    assert byte_reversed(256, None) == 1           # 01 00 (minimum bytes) -> 00 01
    assert byte_reversed(-1, 16) == -1             # all FF: the same either way
    assert unscaled(Decimal("-12.5000000000"), 10) == -125000000000


def test_big_endian_file_passes(tmp_path: Path) -> None:
    """The unscaled values 1 and 3 stored as the spec says; bounds 01 and 03."""
    assert _findings(_file(tmp_path, [1, None, 3]), "01", "03") == []


def test_little_endian_file_is_reported(tmp_path: Path) -> None:
    """The values the writer meant are 1 and 3 (its bounds say so); the bytes are little-endian."""
    found = _findings(_file(tmp_path, [2 ** 120, None, 3 * 2 ** 120]), "01", "03")
    assert [f.rule for f in found] == ["parquet.decimal-byte-order"]
    assert "'d' (field 1, FIXED_LEN_BYTE_ARRAY)" in found[0].message and found[0].location == "d"


@pytest.mark.parametrize("lower, upper", [(None, "03"), ("01", None), ("01", "04"), ("02", "03")])
def test_not_reported_without_exact_bounds(tmp_path: Path, lower: str | None, upper: str | None) -> None:
    """Without both bounds, or when the reversed reading is not exactly the bounds, nothing
    shows the byte order (a wrong bound is data.lower-bound / data.upper-bound's business)."""
    assert _findings(_file(tmp_path, [2 ** 120, 3 * 2 ** 120]), lower, upper) == []
