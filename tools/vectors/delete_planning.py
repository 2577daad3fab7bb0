"""Generate ``delete-planning.json`` of this directory (operation ``delete-planning``).

Run: ``python -m tools.vectors.delete_planning [--agree [--java]]``. The delete files that apply are
written by hand below from the rules of "Scan Planning" (position deletes, equality deletes,
deletion vectors), each case with its derivation; ``derived.agreed`` as in
:mod:`tools.vectors.metrics` (PyIceberg's ``DeleteFileIndex``, Java's
``DeleteFileIndex`` through the kit's ``java`` target).
"""
from tools.vectors.metrics import SCHEMA, write

from tools.vectors import VECTORS

SPECS = [{"spec-id": 0, "fields": []},
         {"spec-id": 1, "fields": [{"source-id": 2, "field-id": 1000, "name": "i", "transform": "identity"}]},
         {"spec-id": 2, "fields": [{"source-id": 1, "field-id": 1001, "name": "id_bucket", "transform": "bucket[4]"}]},
         {"spec-id": 3, "fields": [{"source-id": 2, "field-id": 1000, "name": "i", "transform": "identity"}]}]
A = "s3://t/data/a.parquet"
B = "s3://t/data/b.parquet"
P7, P8, PN = {"1000": 7}, {"1000": 8}, {"1000": None}

def data(seq=5, spec=1, part=P7, path=A, fseq=None):
    f = {"file_path": path, "content": 0, "data_sequence_number": seq, "spec_id": spec, "partition": part}
    if fseq is not None: f["file_sequence_number"] = fseq
    return f

N = [0]
def pos(seq, spec=1, part=P7, ref=None, name=None, fseq=None, sort_order_id=None):
    N[0] += 1
    f = {"file_path": name or f"s3://t/data/pos-{N[0]}.parquet", "content": 1, "file_format": "parquet",
         "data_sequence_number": seq, "spec_id": spec, "partition": part}
    if ref: f["referenced_data_file"] = ref
    if fseq is not None: f["file_sequence_number"] = fseq
    if sort_order_id is not None: f["sort_order_id"] = sort_order_id
    return f
def eq(seq, spec=1, part=P7, fseq=None):
    N[0] += 1
    f = {"file_path": f"s3://t/data/eq-{N[0]}.parquet", "content": 2, "file_format": "parquet",
         "data_sequence_number": seq, "spec_id": spec, "partition": part, "equality_ids": [1]}
    if fseq is not None: f["file_sequence_number"] = fseq
    return f
def dv(seq, ref=A, spec=1, part=P7):
    N[0] += 1
    return {"file_path": f"s3://t/data/dv-{N[0]}.puffin", "content": 1, "file_format": "puffin",
            "data_sequence_number": seq, "spec_id": spec, "partition": part, "referenced_data_file": ref,
            "content_offset": 4, "content_size_in_bytes": 40}

TESTS = []
def case(desc, d, dels, applies, why, level="must", versions=None, quotes=()):
    """applies: the delete files (by object) that apply; quotes: (section, sentence) the case exercises."""
    TESTS.append((desc, d, dels, sorted(x["file_path"] for x in applies), why, level, versions, quotes))

Q_POS = "position delete: data seq <= delete seq, same spec and partition values, referenced_data_file (if set) is the data file, no deletion vector applies"
Q_EQ = "equality delete: data seq < delete seq, same spec and partition values or an unpartitioned delete spec"
Q_DV = "deletion vector: referenced_data_file is the data file, data seq <= vector seq, same spec and partition values"
HARMLESS = " (applying it anyway removes no row of this file: its positions name other paths)"

# position deletes
x = pos(5); case("position delete of the same commit (seq 5 = 5) applies", data(), [x], [x], Q_POS + "; 'Position delete files must be applied to data files from the same commit'")
x = pos(6); case("position delete with a later sequence number applies", data(), [x], [x], Q_POS)
x = pos(4); case("position delete with an earlier sequence number does not apply", data(), [x], [], Q_POS + ": 5 <= 4 is false" + HARMLESS, "should")
x = pos(6, part=P8); case("position delete of another partition value does not apply", data(), [x], [], Q_POS + HARMLESS, "should")
x = pos(6, spec=2, part={"1001": 3}); case("position delete of another spec does not apply", data(), [x], [], Q_POS + HARMLESS, "should")
x = pos(6, spec=0, part={}); case("position delete in the unpartitioned spec is not global", data(), [x], [], "only equality deletes of an unpartitioned spec are global" + HARMLESS, "should")
x = pos(6, ref=A); case("file-scoped position delete naming the data file applies", data(), [x], [x], Q_POS)
x = pos(6, ref=B); case("file-scoped position delete naming another file does not apply", data(), [x], [], Q_POS + HARMLESS, "should")
x = pos(5, ref=A); case("file-scoped position delete of the same commit applies", data(), [x], [x], Q_POS)
x = pos(4, ref=A); case("file-scoped position delete older than the data file does not apply", data(), [x], [], Q_POS + ": 5 <= 4 is false", "should")
x = pos(6, part=PN); case("position delete of the null partition applies to a null-partition file", data(part=PN), [x], [x], Q_POS + "; null partition values are equal")
x = pos(6, part=P7); case("position delete of partition 7 does not apply to the null partition", data(part=PN), [x], [], Q_POS + HARMLESS, "should")
x = pos(6, spec=0, part={}); case("unpartitioned position delete applies to an unpartitioned file", data(spec=0, part={}), [x], [x], Q_POS)
x = pos(1, spec=0, part={}); case("position delete seq 1 applies to a v1 data file (seq 0)", data(seq=0, spec=0, part={}), [x], [x], Q_POS + ": v1 data files have data sequence number 0")
x = pos(6, spec=3, part=P7); case("position delete of an equal spec with another id does not apply", data(), [x], [], "partitions compare by spec id and values; spec 3 is not spec 1" + HARMLESS, "should")
x = pos(2**40); case("position delete with sequence number 2^40 applies", data(seq=2**40 - 1), [x], [x], Q_POS + ": sequence numbers are longs")

# equality deletes
x = eq(6); case("equality delete with a later sequence number applies", data(), [x], [x], Q_EQ)
x = eq(5); case("equality delete of the same commit does not apply", data(), [x], [], Q_EQ + ": 5 < 5 is false")
x = eq(4); case("equality delete with an earlier sequence number does not apply", data(), [x], [], Q_EQ + ": 5 < 4 is false")
x = eq(6, spec=0, part={}); case("equality delete in the unpartitioned spec is global", data(), [x], [x], Q_EQ + "; 'Equality delete files stored with an unpartitioned spec are applied as global deletes.'")
x = eq(5, spec=0, part={}); case("global equality delete of the same commit does not apply", data(), [x], [], Q_EQ + ": 5 < 5 is false")
x = eq(4, spec=0, part={}); case("global equality delete older than the data file does not apply", data(), [x], [], Q_EQ + ": 5 < 4 is false")
x = eq(6, part=P8); case("equality delete of another partition value does not apply", data(), [x], [], Q_EQ)
x = eq(6, spec=2, part={"1001": 3}); case("equality delete of another partitioned spec does not apply", data(), [x], [], Q_EQ)
x = eq(6, spec=3, part=P7); case("equality delete of an equal spec with another id does not apply", data(), [x], [], Q_EQ + ": spec ids differ")
x = eq(6, spec=0, part={}); case("global equality delete applies to an unpartitioned file", data(spec=0, part={}), [x], [x], Q_EQ)
x = eq(6, spec=1, part=P7); case("partitioned equality delete does not apply to an unpartitioned file", data(spec=0, part={}), [x], [], Q_EQ + ": spec 1 is not spec 0 and not unpartitioned")
x = eq(1, spec=0, part={}); case("equality delete seq 1 applies to a v1 data file (seq 0)", data(seq=0, spec=0, part={}), [x], [x], Q_EQ + ": 0 < 1")
x = eq(6, part=PN); case("equality delete of the null partition applies to a null-partition file", data(part=PN), [x], [x], Q_EQ + "; null partition values are equal")
x = eq(6, part=P7); case("equality delete of partition 7 does not apply to the null partition", data(part=PN), [x], [], Q_EQ)
x = eq(6, spec=2, part={"1001": 3}); case("bucket equality delete applies in the same bucket", data(spec=2, part={"1001": 3}), [x], [x], Q_EQ)
x = eq(6, spec=2, part={"1001": 2}); case("bucket equality delete does not apply to another bucket", data(spec=2, part={"1001": 3}), [x], [], Q_EQ)
x = eq(2**40); case("equality delete with sequence number 2^40 applies", data(seq=2**40 - 1), [x], [x], Q_EQ + ": sequence numbers are longs")
x = eq(2**40 - 1); case("equality delete of equal sequence number 2^40 - 1 does not apply", data(seq=2**40 - 1), [x], [], Q_EQ)

# deletion vectors
V3 = [3]
x = dv(5); case("deletion vector of the same commit applies", data(), [x], [x], Q_DV, versions=V3)
x = dv(6); case("deletion vector with a later sequence number applies", data(), [x], [x], Q_DV, versions=V3)
x = dv(4); case("deletion vector older than the data file does not apply", data(), [x], [], Q_DV + ": 5 <= 4 is false (a vector older than the file it names is contradictory metadata: refusing it is allowed)", "should", V3)
x = dv(6, ref=B); case("deletion vector of another data file does not apply", data(), [x], [], Q_DV + ": its positions are rows of b.parquet", versions=V3)
x = dv(6, part=P8); case("deletion vector naming the file in another partition does not apply", data(), [x], [], Q_DV + ": partitions differ", "should", V3)
x = dv(6, spec=0, part={}); case("deletion vector of an unpartitioned file applies", data(spec=0, part={}), [x], [x], Q_DV, versions=V3)
x, y = dv(6), pos(6); case("a deletion vector supersedes position delete files", data(), [x, y], [x], Q_POS + " (the vector holds the deletes of older position delete files)", "should", V3)
x, y = dv(5), pos(6, ref=A); case("a deletion vector supersedes a file-scoped position delete", data(), [x, y], [x], Q_POS, "should", V3)
x, y = dv(6, ref=B), pos(6); case("a deletion vector of another file leaves position deletes applying", data(), [x, y], [y], Q_POS + "; no deletion vector applies to a.parquet", versions=V3)
x, y = dv(4), pos(6); case("a deletion vector that does not apply leaves position deletes applying", data(), [x, y], [y], Q_POS + "; the vector is older than the data file (contradictory metadata: refusing it is allowed)", "should", V3)
x, y = dv(6), eq(6); case("a deletion vector and an equality delete both apply", data(), [x, y], [x, y], Q_DV + "; " + Q_EQ, versions=V3)
x, y = dv(6), eq(5); case("a deletion vector applies, an equality delete of the same commit does not", data(), [x, y], [x], Q_DV + "; " + Q_EQ, versions=V3)
x, y = dv(6), eq(7, spec=0, part={}); case("a deletion vector and a global equality delete both apply", data(), [x, y], [x, y], Q_DV + "; " + Q_EQ, versions=V3)
x, y = dv(6), dv(6, ref=B); case("of two deletion vectors the one naming the file applies", data(), [x, y], [x], Q_DV, versions=V3)

# several candidates
ps = [pos(4), pos(5), pos(6), eq(5), eq(6)]
case("positions at 4, 5, 6 and equalities at 5, 6: pos 5, pos 6, eq 6 apply", data(), ps, [ps[1], ps[2], ps[4]], Q_POS + "; " + Q_EQ)
ps = [eq(6, spec=0, part={}), eq(6), eq(6, part=P8)]
case("global, same-partition and other-partition equality deletes: two apply", data(), ps, ps[:2], Q_EQ)
ps = [pos(6, ref=A), pos(6, ref=B), pos(6)]
case("file-scoped deletes for a and b and a partition-scoped one: two apply", data(), ps, [ps[0], ps[2]], Q_POS + HARMLESS, "should")
case("no delete files: none applies", data(), [], [], "nothing to apply")
ps = [pos(9, spec=0, part={}), eq(9, spec=0, part={}), eq(9, part=P7)]
case("unpartitioned position delete, global and partition equality deletes: both equality deletes apply", data(), ps, ps[1:], Q_EQ + "; " + Q_POS + ": the unpartitioned position delete is not global", "should")
ps = [eq(1), eq(2), eq(3)]
case("equality deletes at 1, 2, 3 for a data file at 2: only seq 3 applies", data(seq=2), ps, [ps[2]], Q_EQ)
ps = [pos(1), pos(2), pos(3)]
case("position deletes at 1, 2, 3 for a data file at 2: seq 2 and 3 apply", data(seq=2), ps, [ps[1], ps[2]], Q_POS)
ps = [dv(2), pos(2), pos(3), eq(3)]
case("a vector, two position deletes and an equality delete for a data file at 2", data(seq=2), ps, [ps[0], ps[3]], Q_DV + "; " + Q_POS + "; " + Q_EQ, "should", V3)
ps = [eq(6, spec=3, part=P7), eq(6, spec=1, part=P7)]
case("equality deletes of spec 3 and spec 1 with equal values: only spec 1 applies", data(), ps, [ps[1]], Q_EQ + ": spec ids differ")
ps = [pos(6, part={"1000": 70}), pos(6, part=P7)]
case("partition value 70 is not 7", data(), ps, [ps[1]], Q_POS, "should")
ps = [eq(6, part={"1000": -7}), eq(6, part=P7)]
case("partition value -7 is not 7 for equality deletes", data(), ps, [ps[1]], Q_EQ)
ps = [dv(5, spec=2, part={"1001": 3})]
case("deletion vector in a bucket partition applies", data(spec=2, part={"1001": 3}), ps, ps, Q_DV, versions=V3)
ps = [dv(5, spec=2, part={"1001": 3}, ref=B)]
case("deletion vector in the same bucket naming another file does not apply", data(spec=2, part={"1001": 3}), ps, [], Q_DV, versions=V3)
ps = [pos(5, spec=2, part={"1001": 3}), eq(5, spec=2, part={"1001": 3})]
case("bucket partition at the same commit: position applies, equality does not", data(spec=2, part={"1001": 3}), ps, [ps[0]], Q_POS + "; " + Q_EQ)

# file sequence numbers and sort order ids: manifest values that do not decide which deletes apply
FSEQ = ("Manifests / Manifest Entry Fields", "The file sequence number can't be used for pruning delete files as the data within the file may have an older data sequence number.")
DSEQ = ("Manifests / Manifest Entry Fields", "The data sequence number represents a relative age of the file content and should be used for planning which delete files apply to a data file.")
SORT = ("Manifests / Manifest Entry Fields / Data File Fields", "Readers must ignore sort order id for position delete files.")
REWRITTEN = "a data file rewritten (compacted) at sequence number 9 keeps the data sequence number 4 of its rows, so deletes committed at 6 still apply to them"
x = pos(6); case("position delete at 6 applies to a data file of data seq 4 and file seq 9", data(seq=4, fseq=9), [x], [x], Q_POS + ": 4 <= 6; " + REWRITTEN, quotes=(FSEQ,))
x = eq(6); case("equality delete at 6 applies to a data file of data seq 4 and file seq 9", data(seq=4, fseq=9), [x], [x], Q_EQ + ": 4 < 6; " + REWRITTEN, quotes=(FSEQ,))
x = eq(6, spec=0, part={}); case("global equality delete at 6 applies to a data file of data seq 4 and file seq 9", data(seq=4, fseq=9), [x], [x], Q_EQ + ": 4 < 6; " + REWRITTEN, quotes=(FSEQ,))
x = eq(5, fseq=9); case("equality delete of data seq 5 and file seq 9 does not apply to a data file at 5", data(), [x], [], Q_EQ + ": 5 < 5 is false; the delete file's file sequence number 9 (a rewrite of the delete file) does not make its deletes newer", quotes=(DSEQ,))
x = pos(6, sort_order_id=1); case("position delete with sort_order_id 1 applies", data(), [x], [x], Q_POS + "; the sort order id of a position delete file is ignored (position deletes are sorted by file and position)", quotes=(SORT,))
x = pos(6, ref=A, sort_order_id=1); case("file-scoped position delete with sort_order_id 1 applies", data(), [x], [x], Q_POS + "; the sort order id of a position delete file is ignored", quotes=(SORT,))

HEADER = {
    "description": "Delete files that apply to a data file: sequence numbers, partitions, global and file-scoped deletes, DVs",
    "operation": "delete-planning",
    "spec": [{"section": "Scan Planning", "quote": "Equality delete files stored with an unpartitioned spec are applied as global deletes.", "source": "current"}],
    "format_versions": [2, 3],
    "notes": ("input: {schema (the table schema the specs refer to), specs (the table's partition specs), data_file (file_path, content 0, data_sequence_number, spec_id, partition keyed by "
              "partition field id), delete_files (file_path, content 1 position / 2 equality, file_format (puffin: a deletion vector), "
              "data_sequence_number, spec_id, partition, referenced_data_file where set); where a case gives them, file_sequence_number (data and delete "
              "files) and sort_order_id (delete files), manifest values that do not decide which deletes apply}; expected: the sorted file_path of the delete files that "
              "apply. Rules of Scan Planning: position delete: data seq <= delete seq, same spec id and partition values, referenced_data_file (if "
              "set) equals the data file's path, and no deletion vector applies to the data file; deletion vector: referenced_data_file is the data "
              "file, data seq <= vector seq, same partition; equality delete: data seq < delete seq, same partition or an unpartitioned delete spec. "
              "Levels: must, except where the only difference is a position delete file left out that names other files' positions (applying it "
              "removes no row) or a deletion vector with contradictory metadata (another partition than its data file, older than it): should."),
}

def main():
    tests = []
    for desc, d, dels, applies, why, level, versions, quotes in TESTS:
        t = {"description": desc, "input": {"schema": SCHEMA, "specs": SPECS, "data_file": d, "delete_files": dels},
             "expected": applies, "derived": {"from": why, "agreed": []}}
        if versions: t["format_versions"] = versions
        if level != "must": t["level"] = level
        if quotes: t["spec"] = [{"section": sec, "quote": q, "source": "current"} for sec, q in quotes]
        tests.append(t)
    doc = dict(HEADER); doc["tests"] = tests
    write(VECTORS / "scan" / "delete-planning.json", doc, "applicable_deletes",
          ["schema", "specs", "data_file", "delete_files"])


if __name__ == "__main__":
    main()
