"""A table's manifests repeat a few writer schemas and headers, and :func:`manifest_header`
checks each once (issue 25: the cost of a check grows with what is distinct). What it found for
one file is what it finds for another of the same header, at that other file; a header that
differs in any byte is checked again, whatever the caller does with the schema it was given.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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


def test_header_metadata_that_is_not_utf8_is_unreadable(tmp_path: Path) -> None:
    """fastavro reads every header value as UTF-8 text, and fails on one that is not: the file
    is reported unreadable at that key, a manifest's and a list's alike."""
    for name, key, read in (("v2-data.avro", "content", m.read_manifest), ("v2-data.avro", "x-writer", m.read_manifest),
                            ("v2-list.avro", "x-writer", m.read_manifest_list)):
        path = tmp_path / f"{key}-{name}"
        path.write_bytes(with_header((FILES / name).read_bytes(), {key: b"caf\xe9"}))
        entries, findings = read(str(path), 2)
        rule = "avro.unreadable" if read is m.read_manifest else "avro.list-unreadable"
        assert entries == [] and [(f.rule, f.location) for f in findings] == [(rule, f"header {key}")], findings


def test_a_header_too_large_to_keep_is_checked_each_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What is kept by a header's text is kept only for small headers (a header may hold 64 MiB):
    a larger one is checked again for each file, with the same findings."""
    from iceberg_conformance.reference import avro

    monkeypatch.setattr(m, "CACHED_TEXT_BYTES", 1000)
    monkeypatch.setattr(avro, "CACHED_TEXT_BYTES", 1000)
    m._HEADERS.clear()
    avro._rebuilt_header.cache_clear()
    paths = []
    for i in range(2):
        paths.append(tmp_path / f"m{i}.avro")
        paths[-1].write_bytes(with_header((FILES / "v2-data-renamed.avro").read_bytes(), {"x-pad": b"p" * 2000}))
    assert [_rules(p) for p in paths] == [[("manifests.record-name", str(p))] for p in paths]
    assert len(m._HEADERS) == 0 and avro._rebuilt_header.cache_info().currsize == 0


def test_headers_checked_from_threads() -> None:
    """The keeper of what headers gave is shared by a process's threads: more headers than it
    keeps, from four threads switching as often as Python lets them, each get what its own
    check gives, and nothing raises."""
    import sys
    import threading

    once: m._CheckedOnce[int] = m._CheckedOnce(keep=4)
    wrong: list[object] = []

    def work(offset: int) -> None:
        try:
            for i in range(20000):
                k = (i * 7 + offset) % 50
                if once.get((str(k),), {}, lambda _s, _f, k=k: k * 10, "p", []) != k * 10:
                    wrong.append(k)
        except Exception as e:  # noqa: BLE001 - the test reports whatever a thread raised
            wrong.append(e)

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(before)
    assert wrong == [] and len(once) <= 4, wrong[:3]
