"""Puffin files and deletion vectors (capabilities ``puffin-read`` and ``puffin-write``).

Vectors: ``vectors/puffin/read.json`` (valid golden files), ``invalid.json`` (files that break
one rule each) and ``write.json`` (what a writer is asked to write). The golden files live in
``vectors/puffin/files/`` with a ``*.sidecar.json`` each.

**Read form** — what ``read_puffin(path)`` returns (and what sidecars hold under ``meaning``)::

    {
      "footer-compressed": bool,         # flag byte 0 bit 0
      "properties": {str: str},          # FileMetadata properties; {} when absent
      "blobs": [                         # footer order
        {"type": str, "fields": [int], "snapshot-id": int, "sequence-number": int,
         "offset": int, "length": int,
         "compression-codec": str,       # only when the footer has it
         "properties": {str: str},       # {} when absent
         "content": ...}                 # the decoded blob, by type:
      ]                                  #   apache-datasketches-theta-v1: {"estimate": float}
    }                                    #   deletion-vector-v1: {"cardinality": int, "positions": [int, ascending]}
                                         #   any other type: {"hex": uncompressed payload as lowercase hex}

An invalid file is refused with :class:`suites.api.Rejected`.

**Write form** — what ``write_puffin(path, content)`` gets: the read form without ``offset``
and ``length``, with ``"footer-compressed"`` a request, and blob ``content`` being the input:
theta ``{"type": <Iceberg type>, "values": [JSON single values]}`` (the writer serializes each
value with Appendix D, feeds the sketch and sets the ``ndv`` property), deletion vector
``{"positions": [int]}`` (the writer sets ``cardinality``; ``referenced-data-file`` is given),
other types ``{"hex": ...}``. The reference reads what the target wrote: the read form must
equal the case's ``expected`` apart from ``offset`` and ``length``, and the reference's
validator must find no error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from iceberg_conformance.reference.deletion_vectors import check_manifest_entry
from iceberg_conformance.reference.errors import SpecViolation
from iceberg_conformance.reference.puffin import read_form, read_puffin, validate_puffin
from iceberg_conformance.suites.api import PUFFIN_READ, PUFFIN_WRITE
from iceberg_conformance.suites.harness.judge import fail, run_case, values_equal
from iceberg_conformance.vectors.cases import Case, cases_for, vectors_root

def _without_layout(form: Any) -> Any:
    if isinstance(form, dict):
        return {**form, "blobs": [{k: v for k, v in b.items() if k not in ("offset", "length")}
                                  for b in form.get("blobs", [])]}
    return form


@pytest.mark.vectors("puffin", select=lambda c: "file" in c.input)
@pytest.mark.capability(PUFFIN_READ)
def test_puffin(target: Any, case: Case) -> None:
    """A case with ``input.file`` is read by the target (``puffin-read``)."""
    run_case(case, target.name, lambda: target.read_puffin(str(case.path(case.input["file"]))),
             reports_rules=getattr(target, "reports_rules", False))


@pytest.mark.vectors("puffin", select=lambda c: "file" not in c.input)
@pytest.mark.capability(PUFFIN_WRITE)
def test_puffin_write(target: Any, case: Case, tmp_path: Path) -> None:
    """A case with ``input.write`` is written by the target and read back by the reference
    (``puffin-write``)."""
    rules = getattr(target, "reports_rules", False)
    out = tmp_path / "written.puffin"
    run_case(case, target.name, lambda: target.write_puffin(str(out), case.input["write"]), check=False,
             reports_rules=rules)
    try:
        actual = read_form(out)
    except SpecViolation as e:
        fail(case, target.name, "the reference cannot read the file the target wrote", rejected=str(e))
        return
    errors = [str(f) for f in validate_puffin(out) if f.severity == "error"]
    if errors:
        fail(case, target.name, "the file the target wrote breaks Puffin rules", findings=errors)
    if not values_equal(_without_layout(case.expected), _without_layout(actual)):
        fail(case, target.name, "the written file reads back differently (offset and length not compared)",
             expected=case.expected, actual=actual)


# --- the vectors themselves and the reference's DV/manifest check --------------------------

@pytest.mark.area("puffin")
def test_sidecars_agree_with_cases() -> None:
    """Every golden file has a sidecar, and the sidecar's meaning or error is the case's."""
    files = vectors_root() / "puffin" / "files"
    by_file = {c.input["file"]: c for c in cases_for("puffin") if "file" in c.input}
    for puffin in sorted(files.glob("*.puffin")):
        side = puffin.with_name(puffin.stem + ".sidecar.json")
        assert side.exists(), f"{puffin.name} has no sidecar"
        doc = json.loads(side.read_text(encoding="utf-8"))
        case = by_file.get(f"files/{puffin.name}")
        assert case is not None, f"{puffin.name} is in no case of vectors/puffin"
        if doc["valid"]:
            assert values_equal(doc["meaning"], case.expected), f"{side.name} disagrees with {case.id}"
        else:
            assert doc["error"] == case.error, f"{side.name} disagrees with {case.id}"


def _java_dv_entries() -> list[tuple[Path, dict[str, Any]]]:
    files = vectors_root() / "puffin" / "files"
    out: list[tuple[Path, dict[str, Any]]] = []
    for side in sorted(files.glob("java-dv*.sidecar.json")):
        doc = json.loads(side.read_text(encoding="utf-8"))
        out.extend((files / doc["file"], e) for e in doc["manifest-entries"])
    return out


@pytest.mark.area("puffin")
@pytest.mark.parametrize("puffin,entry", _java_dv_entries(), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_java_manifest_entries_agree_with_blobs(puffin: Path, entry: dict[str, Any]) -> None:
    """Iceberg Java's delete-manifest entries agree with its Puffin footers (reference check),
    and each disagreement is reported by its rule."""
    pf = read_puffin(puffin)
    form = read_form(puffin)
    [i] = [i for i, b in enumerate(pf.metadata.blobs) if b.offset == entry["content_offset"]]
    blob, content = pf.metadata.blobs[i], form["blobs"][i]["content"]
    common = dict(blob_offset=blob.offset, blob_length=blob.length,
                  blob_referenced_data_file=blob.properties.get("referenced-data-file"),
                  blob_cardinality=content["cardinality"])
    good = dict(content_offset=entry["content_offset"], content_size_in_bytes=entry["content_size_in_bytes"],
                referenced_data_file=entry["referenced_data_file"], record_count=entry["record_count"])
    assert check_manifest_entry(**common, **good) == []
    broken = {
        "dv.manifest-content-offset": dict(good, content_offset=good["content_offset"] + 1),
        "dv.manifest-content-size": dict(good, content_size_in_bytes=None),
        "dv.manifest-referenced-data-file": dict(good, referenced_data_file="s3://elsewhere/f.parquet"),
        "dv.manifest-record-count": dict(good, record_count=good["record_count"] - 1),
    }
    for rule, values in broken.items():
        assert [f.rule for f in check_manifest_entry(**common, **values)] == [rule]
