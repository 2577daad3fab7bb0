"""A table's manifests repeat a few writer schemas and headers, and :func:`manifest_header`
checks each once (issue 25: the cost of a check grows with what is distinct). What it found for
one file is what it finds for another of the same header, at that other file; a header that
differs in any byte is checked again, whatever the caller does with the schema it was given.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from iceberg_conformance.reference import manifests as m
from iceberg_conformance.reference.avro import _read_header, read_container, with_header

FILES = Path(__file__).resolve().parent.parent / "vectors" / "manifests" / "files"


def _rules(path: Path) -> list[tuple[str, str]]:
    return sorted((f.rule, f.file) for f in m.read_manifest(str(path))[1])


def test_a_header_checked_once_is_reported_at_each_file(tmp_path: Path) -> None:
    m._HEADERS.clear()
    copies = []
    for name in ("a.avro", "b.avro"):  # the same header: the record is named otherwise than the spec's
        shutil.copy(FILES / "v2-data-renamed.avro", tmp_path / name)
        copies.append(tmp_path / name)
    got = [_rules(p) for p in copies]
    assert got == [[("manifests.record-name", str(p))] for p in copies]
    assert len(m._HEADERS) == 1  # one header, checked once


def test_a_schema_that_differs_in_one_field_id_is_checked_again(tmp_path: Path) -> None:
    """``"field-id": true`` equals ``1`` in Python, not in the header's text: the key is the text."""
    data = (FILES / "v2-data.avro").read_bytes()
    schema = json.loads(_read_header(data)[0]["avro.schema"])
    assert schema["fields"][0]["field-id"] == 0  # status
    good, bad = tmp_path / "good.avro", tmp_path / "bad.avro"
    good.write_bytes(data)
    schema["fields"][0]["field-id"] = False  # == 0 in Python
    bad.write_bytes(with_header(data, {"avro.schema": json.dumps(schema).encode()}))
    m._HEADERS.clear()
    assert _rules(good) == []
    assert "manifests.field-id-missing" in {rule for rule, _ in _rules(bad)}


def test_a_caller_changing_its_schema_changes_nothing_kept(tmp_path: Path) -> None:
    """The columnar screen hands its own schema object; what is kept is a copy."""
    path = tmp_path / "a.avro"
    shutil.copy(FILES / "v2-data.avro", path)
    m._HEADERS.clear()
    schema, meta, _ = read_container(str(path))
    found: list[m.Finding] = []
    first = m.manifest_header(schema, meta, None, str(path), found)
    assert first is not None and found == []
    data_file = next(f for f in schema["fields"] if f["name"] == "data_file")["type"]
    partition = next(f for f in data_file["fields"] if f["name"] == "partition")["type"]
    kept = json.dumps(first[1].data_file[102][1])
    partition["fields"].clear()  # the caller's partition record loses its fields, after the check
    again = m.manifest_header(*read_container(str(path))[:2], None, str(path), [])
    assert again is not None and json.dumps(again[1].data_file[102][1]) == kept != json.dumps(partition)


def test_a_list_header_checked_once_is_reported_at_each_list(tmp_path: Path) -> None:
    data = (FILES / "v2-list.avro").read_bytes()
    schema = json.loads(_read_header(data)[0]["avro.schema"])
    schema["name"] = "renamed"
    renamed = with_header(data, {"avro.schema": json.dumps(schema).encode()})
    m._LIST_HEADERS.clear()
    lists = []
    for name in ("a.avro", "b.avro"):
        (tmp_path / name).write_bytes(renamed)
        lists.append(tmp_path / name)
    lists.append(tmp_path / "plain.avro")
    lists[-1].write_bytes(data)
    got = [sorted((f.rule, f.file) for f in m.read_manifest_list(str(p), 2)[1]) for p in lists]
    assert got == [[("manifests.record-name", str(p))] for p in lists[:2]] + [[]]
    assert len(m._LIST_HEADERS) == 2  # two schemas, each checked once
