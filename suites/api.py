"""The target adapter Protocol: how the suites talk to an implementation under test.

A *target* is a small adapter object around one Iceberg implementation (a library, an engine
through its JVM, ...). It declares which capabilities it has in ``capabilities``; for each
capability it implements the methods of the matching Protocol below. The suites never call a
method of a capability the target does not declare: such tests are reported UNSUPPORTED
(a skip with the reason), never FAIL.

Everything crosses the boundary in language-neutral form:

* types are Iceberg type strings or Appendix C JSON objects (``"decimal(9, 2)"``,
  ``{"type": "list", ...}``), passed as parsed JSON;
* values are in the spec's JSON single-value form (``"2017-11-16"``, ``"14.20"``, hex for
  binary); floats may also be the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (JSON has
  no literal for them), and ``-0.0`` is a JSON number;
* binary data is ``bytes``; files are paths (``str``).

How a target says no: raise :class:`Rejected` (with the implementation's message) when the
implementation refuses the input, e.g. an invalid schema, or a transform that does not apply
to a type. Any other exception is a crash and FAILs the test, also on inputs that ought to be
rejected: a conformance suite must not count an ``AttributeError`` as a correct refusal.
Raise :class:`Unsupported` for one input the implementation cannot handle although it has the
capability in general (e.g. a type it has not implemented); that is reported UNSUPPORTED.
"""

from __future__ import annotations

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.suites.api")

from contextlib import contextmanager
from typing import Any, ClassVar, Iterator, Protocol, runtime_checkable

JSON = Any

# --- capabilities -----------------------------------------------------------------------
HASH = "hash"                      #: 32-bit Murmur3 hash of a value (Appendix B)
TRANSFORM = "transform"            #: partition transforms applied to values, result types
BINARY = "binary"                  #: single-value binary serialization (Appendix D)
VALUE_JSON = "value-json"          #: JSON single-value serialization
BOUND = "bound"                    #: lower/upper bounds as manifests store them (Appendix D, Bound serialization)
SCHEMA_JSON = "schema-json"        #: types and schemas from/to JSON (Appendix C)
PARTITION_SPEC_JSON = "partition-spec-json"  #: partition specs from/to JSON
METADATA = "metadata"              #: table metadata JSON read (and written back)
MANIFEST_READ = "manifest-read"    #: manifest and manifest-list Avro files read
MANIFEST_WRITE = "manifest-write"  #: manifest and manifest-list Avro files written
PUFFIN_READ = "puffin-read"        #: Puffin files read
PUFFIN_WRITE = "puffin-write"      #: Puffin files written
TABLE_SCAN = "table-scan"          #: rows of a table snapshot read
EVOLUTION = "evolution"            #: schema and partition-spec evolution judged allowed or not
MANIFEST_CHECK = "manifest-check"  #: manifests validated against their manifest-list entry
COMMIT_RETRY = "commit-retry"      #: the retry rules of Commit Conflict Resolution and Retry
EXPRESSIONS = "expressions"        #: expressions: JSON read and written, bound, evaluated on rows
PROJECTION = "projection"          #: predicates projected through partition transforms
METRICS = "metrics"                #: predicates judged against a data file's bounds and counts
MANIFEST_PRUNING = "manifest-pruning"  #: predicates judged against a manifest's partition summaries
DELETE_PLANNING = "delete-planning"  #: the delete files that apply to a data file
RESIDUAL = "residual"              #: what remains of a row filter for one partition
AVRO_SCHEMA = "avro-schema"        #: Iceberg schemas as Avro schemas (Appendix A, Avro)
SCAN_PLAN = "scan-plan"            #: a snapshot's data files for a filter, with their delete files

ALL_CAPABILITIES = (
    HASH, TRANSFORM, BINARY, VALUE_JSON, BOUND, SCHEMA_JSON, PARTITION_SPEC_JSON, METADATA,
    MANIFEST_READ, MANIFEST_WRITE, PUFFIN_READ, PUFFIN_WRITE, TABLE_SCAN, EVOLUTION,
    MANIFEST_CHECK, COMMIT_RETRY, EXPRESSIONS, PROJECTION, METRICS, MANIFEST_PRUNING,
    DELETE_PLANNING, RESIDUAL, AVRO_SCHEMA, SCAN_PLAN,
)


class Rejected(Exception):
    """The implementation refused the input. ``rule`` is set when the target knows one."""

    def __init__(self, message: str, rule: str | None = None) -> None:
        super().__init__(message)
        self.rule = rule


class Unsupported(Exception):
    """The implementation cannot handle this particular input (reported UNSUPPORTED)."""


@runtime_checkable
class Target(Protocol):
    """What every adapter has: a name, the implementation's version, its capabilities."""

    name: ClassVar[str]
    capabilities: ClassVar[frozenset[str]]
    # Optional: ``reports_rules = True`` when Rejected carries the kit's rule ids (the reference
    # does); then a rejection for another rule than the vector's fails.

    @property
    def version(self) -> str:
        """The implementation's version string, shown in the report header."""
        ...


@runtime_checkable
class Hashing(Protocol):
    """Capability ``hash``."""

    def hash(self, type_: JSON, value: JSON) -> int | None:
        """The signed 32-bit Murmur3 hash (x86, seed 0) of ``value`` of type ``type_``
        (``None`` for ``unknown``, whose hash is always null)."""
        ...


@runtime_checkable
class Transforming(Protocol):
    """Capability ``transform``."""

    def transform(self, transform: str, type_: JSON, value: JSON) -> JSON:
        """Apply ``transform`` (its string form, e.g. ``"bucket[16]"``) to ``value``.

        Returns the result in JSON single-value form of the result type (``None`` for null).
        Raises :class:`Rejected` when the transform does not apply to ``type_``.
        """
        ...

    def result_type(self, transform: str, type_: JSON) -> JSON:
        """The transform's result type for source type ``type_``, or :class:`Rejected`."""
        ...


@runtime_checkable
class BinarySerializing(Protocol):
    """Capability ``binary``."""

    def to_bytes(self, type_: JSON, value: JSON) -> bytes:
        """Appendix D single-value binary form of ``value``."""
        ...

    def from_bytes(self, type_: JSON, data: bytes) -> JSON:
        """The value (JSON single-value form) of Appendix D ``data``."""
        ...


@runtime_checkable
class BoundSerializing(Protocol):
    """Capability ``bound``: the binary form of lower and upper bounds in manifests, which is the
    binary single value except where Appendix D "Bound serialization" says otherwise.

    A bound crosses as its JSON single value, except a ``geometry``/``geography`` bound, which
    is a point: a JSON object with ``x``, ``y`` and, where set, ``z`` and ``m`` (numbers, or
    the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``); an unset coordinate is left out."""

    def bound_to_bytes(self, type_: JSON, value: JSON) -> bytes:
        """The bound form of ``value``."""
        ...

    def bound_from_bytes(self, type_: JSON, data: bytes) -> JSON:
        """The bound (JSON form above) that the bound bytes ``data`` hold."""
        ...


@runtime_checkable
class ValueJson(Protocol):
    """Capability ``value-json``."""

    def value_json_roundtrip(self, type_: JSON, value: JSON) -> JSON:
        """Parse the JSON single-value ``value`` into the implementation's value and write it
        back to JSON. Raises :class:`Rejected` for a value the spec does not allow."""
        ...


@runtime_checkable
class SchemaJson(Protocol):
    """Capability ``schema-json``."""

    def type_json_roundtrip(self, type_: JSON) -> JSON:
        """Parse a type from its JSON form and write it back."""
        ...

    def schema_json_roundtrip(self, schema: JSON, format_version: int) -> JSON:
        """Parse a schema (JSON object) for a table of ``format_version`` and write it back.

        Raises :class:`Rejected` for a schema the spec does not allow."""
        ...


@runtime_checkable
class PartitionSpecJson(Protocol):
    """Capability ``partition-spec-json``."""

    def partition_spec_json_roundtrip(self, spec: JSON, schema: JSON, format_version: int) -> JSON:
        """Parse a partition spec bound to ``schema`` and write it back, or :class:`Rejected`."""
        ...


@runtime_checkable
class MetadataReading(Protocol):
    """Capability ``metadata``."""

    def read_table_metadata(self, path: str) -> JSON:
        """Read a table metadata JSON file; return the metadata as the target writes it back.

        Raises :class:`Rejected` for metadata the spec does not allow. Cases with
        ``input.read_as_version`` (a v1 file read for v2, Appendix E) call the optional method
        ``read_table_metadata_as(path, format_version)``: the metadata as a reader of that
        version holds it, written back; targets without it are UNSUPPORTED there."""
        ...


@runtime_checkable
class ManifestReading(Protocol):
    """Capability ``manifest-read``. Entries are returned in the decoded form of the vector
    sidecars (see ``vectors/README.md``)."""

    def read_manifest_list(self, path: str, format_version: int) -> list[JSON]:
        ...

    def read_manifest(self, path: str, format_version: int) -> list[JSON]:
        ...

    def read_manifest_inherited(self, path: str, format_version: int, manifest_list_entry: JSON) -> list[JSON]:
        """Entries with snapshot id, sequence numbers and first_row_id inherited (v2+) from
        ``manifest_list_entry`` (the manifest list's decoded entry for this manifest)."""
        ...


@runtime_checkable
class ManifestWriting(Protocol):
    """Capability ``manifest-write``: write the decoded form back to Avro at ``path``."""

    def write_manifest(self, path: str, manifest: JSON) -> None:
        ...

    def write_manifest_list(self, path: str, manifest_list: JSON) -> None:
        ...


@runtime_checkable
class PuffinReading(Protocol):
    """Capability ``puffin-read``."""

    def read_puffin(self, path: str) -> JSON:
        """Footer metadata and decoded blobs of a Puffin file (the sidecar form), or
        :class:`Rejected` for an invalid file."""
        ...


@runtime_checkable
class PuffinWriting(Protocol):
    """Capability ``puffin-write``."""

    def write_puffin(self, path: str, content: JSON) -> None:
        ...


@runtime_checkable
class TableScanning(Protocol):
    """Capability ``table-scan``: what a reader returns ("Scan Planning": "Data files that
    match the query filter must be read by the scan."; "Delete files that match the query filter
    must be applied to data files at read time")."""

    def scan(self, metadata_path: str, snapshot_id: int | None, row_filter: JSON = True) -> list[dict[str, JSON]]:
        """The rows of the snapshot ``snapshot_id`` (the current one when ``None``) of the table
        whose metadata file is ``metadata_path`` that match ``row_filter``, deletes applied.

        ``row_filter`` is a predicate in the JSON form of ``format/expressions-spec.md``
        (Appendix B; ``True``: every row), bound to the snapshot's schema. Rows are objects
        keyed by the top-level column names of that schema, values in the JSON single-value
        form (Appendix D, as ``suites.engines.rows.canonical_rows`` writes them: structs keyed
        by field id, maps as ``{"keys": [...], "values": [...]}``, NaN and infinities as
        strings). Row order is not meaningful. :class:`Rejected` when the filter does not bind;
        :class:`Unsupported` for a filter or table the implementation cannot express or read."""
        ...


@runtime_checkable
class Evolving(Protocol):
    """Capability ``evolution``."""

    def check_schema_evolution(self, old: JSON, new: JSON, format_version: int,
                               partition_specs: list[JSON] | None = None) -> None:
        """Return if changing schema ``old`` into ``new`` is allowed; :class:`Rejected` if not.

        ``partition_specs`` (Appendix C partition spec objects bound to ``old``) are the table's
        specs, given only by cases about promoting a partition source field; an adapter whose
        method takes no such parameter is UNSUPPORTED for those cases."""
        ...

    def check_partition_evolution(self, old: JSON, new: JSON, schema: JSON, format_version: int) -> None:
        """Return if replacing partition spec ``old`` by ``new`` is allowed; else :class:`Rejected`."""
        ...


@runtime_checkable
class ManifestChecking(Protocol):
    """Capability ``manifest-check``."""

    def check_manifest(self, path: str, format_version: int, manifest_list_entry: JSON = None) -> JSON:
        """Validate a manifest (bounds, counts, partition summaries against
        ``manifest_list_entry``); :class:`Rejected` naming the first violation."""
        ...


@runtime_checkable
class CommitRetrying(Protocol):
    """Capability ``commit-retry``."""

    def commit_retry(self, case: JSON) -> JSON:
        """Decide whether an operation that lost a commit race may be reapplied to the new
        current metadata (the input of a ``commit`` vector); :class:`Rejected` for a conflict."""
        ...


@runtime_checkable
class ExpressionHandling(Protocol):
    """Capability ``expressions``: Iceberg expressions (apache/iceberg
    ``format/expressions-spec.md``, the form the REST catalog OpenAPI's ``Predicate`` carries).
    Predicates cross the boundary in their Appendix B JSON form; schemas as Appendix C JSON; a
    row as a struct in JSON single-value form (an object keyed by field id)."""

    def expression_roundtrip(self, expr: JSON) -> JSON:
        """Parse a predicate and write it back; :class:`Rejected` if it is not one."""
        ...

    def expression_bind(self, schema: JSON, expr: JSON, case_sensitive: bool) -> JSON:
        """Bind the predicate to ``schema`` and write the bound predicate back (ID references,
        constants in the JSON single-value form of their type); :class:`Rejected` if it does
        not bind."""
        ...

    def expression_evaluate(self, schema: JSON, expr: JSON, row: JSON, case_sensitive: bool) -> bool:
        """The value (true or false) of the predicate, bound to ``schema``, on ``row``."""
        ...


@runtime_checkable
class Projecting(Protocol):
    """Capability ``projection``: a predicate on a source column projected through a partition
    spec ("Scan Planning": inclusive projection; strict projection its dual)."""

    def projection_accepts(self, schema: JSON, spec: JSON, expr: JSON, mode: str, partition: JSON) -> bool:
        """Project ``expr`` (bound to ``schema``) through ``spec``, ``mode`` ``"inclusive"``
        or ``"strict"``, and evaluate the projection on ``partition`` (the partition tuple
        in JSON single-value form keyed by partition field id)."""
        ...


@runtime_checkable
class MetricsEvaluating(Protocol):
    """Capability ``metrics``: a predicate against a data file's column metrics ("Scan
    Planning": "Scan predicates are also used to filter data and delete files using column
    bounds and counts that are stored by field id in manifests.")."""

    def metrics_evaluate(self, schema: JSON, file: JSON, expr: JSON, mode: str) -> bool:
        """Evaluate ``expr`` (bound to ``schema``) against the metrics of a data file of an
        unpartitioned table: ``file`` holds ``record_count`` and the maps ``value_counts``,
        ``null_value_counts``, ``nan_value_counts``, ``lower_bounds``, ``upper_bounds`` keyed
        by field id (bounds as hex of the binary single-value form; an absent map or key is
        an absent metric). ``mode`` ``"inclusive"``: whether rows might match (false: the file
        may be skipped); ``"strict"``: whether every row must match."""
        ...


@runtime_checkable
class ManifestPruning(Protocol):
    """Capability ``manifest-pruning``: a predicate against the partition field summaries of a
    manifest-list entry ("Scan Planning": "Manifests that contain no matching files,
    determined using either file counts or partition summaries, may be skipped.")."""

    def manifest_might_match(self, schema: JSON, spec: JSON, partitions: JSON, expr: JSON) -> bool:
        """Whether a data manifest written with ``spec`` whose entry has the field summaries
        ``partitions`` (``contains_null``, optional ``contains_nan``, ``lower_bound`` /
        ``upper_bound`` as hex of the binary single-value form of the partition type) may hold
        a file with rows matching ``expr`` (a row filter on the source columns of ``schema``)."""
        ...


@runtime_checkable
class DeletePlanning(Protocol):
    """Capability ``delete-planning``: which delete files apply to a data file ("Scan
    Planning": "Delete files that match the query filter must be applied to data files at
    read time, limited by the scope of the delete file using the following rules.")."""

    def applicable_deletes(self, schema: JSON, specs: JSON, data_file: JSON, delete_files: JSON) -> list[str]:
        """The ``file_path`` of each delete file of ``delete_files`` that applies to
        ``data_file``, sorted. Files carry ``file_path``, ``content`` (0 data, 1 position
        deletes, 2 equality deletes), ``data_sequence_number``, ``spec_id``, ``partition``
        (keyed by partition field id, JSON single-value form); delete files also
        ``file_format`` (``puffin``: a deletion vector) and, where set,
        ``referenced_data_file``. ``specs`` are the table's partition specs, on ``schema``."""
        ...


@runtime_checkable
class ResidualEvaluating(Protocol):
    """Capability ``residual``: what remains of a row filter for the rows of one partition
    ("Scan Planning", note 1: strict and inclusive projections "are used to calculate the
    residual predicates for each file in a scan")."""

    def residual(self, schema: JSON, spec: JSON, expr: JSON, partition: JSON, case_sensitive: bool) -> JSON:
        """The residual of the row filter ``expr`` (bound to ``schema``, names matched
        case-sensitively or not) for the partition tuple ``partition`` of ``spec`` (JSON
        single values keyed by partition field id; an absent key is null), as a predicate in
        JSON (the current form of Appendix B or the deprecated term form; ``true``/``false``
        where the partition decides the whole filter). :class:`Rejected` if the filter does not
        bind."""
        ...


@runtime_checkable
class AvroSchemaMapping(Protocol):
    """Capability ``avro-schema``: the Avro schema an implementation writes Avro data files
    with ("Appendix A: Format-specific Requirements", Avro: Data Type Mappings, Field IDs)."""

    def avro_schema(self, schema: JSON) -> JSON:
        """The Avro schema (parsed JSON: a record) of Iceberg schema ``schema`` (Appendix C
        JSON), with ``field-id``, ``element-id``, ``key-id`` and ``value-id`` where Appendix A
        puts them. :class:`Unsupported` for a type the implementation cannot write to Avro."""
        ...


@runtime_checkable
class ScanPlanning(Protocol):
    """Capability ``scan-plan``: the tasks of a scan ("Scan Planning": "Data files that match
    the query filter must be read by the scan."; "Delete files that match the query filter must
    be applied to data files at read time, limited by the scope of the delete file")."""

    def plan_files(self, metadata_path: str, snapshot_id: int | None, row_filter: JSON = True) -> list[dict[str, JSON]]:
        """The data files a scan of snapshot ``snapshot_id`` (the current one when ``None``)
        with ``row_filter`` (as for :meth:`TableScanning.scan`) reads, each as
        ``{"data_file": file_path, "delete_files": [file_path, ...]}`` with the delete files
        attached to it (a deletion vector by the path of its Puffin file), paths as the
        manifests hold them. :class:`Rejected` when the filter does not bind."""
        ...


CAPABILITY_PROTOCOLS: dict[str, type] = {
    HASH: Hashing,
    TRANSFORM: Transforming,
    BINARY: BinarySerializing,
    VALUE_JSON: ValueJson,
    BOUND: BoundSerializing,
    SCHEMA_JSON: SchemaJson,
    PARTITION_SPEC_JSON: PartitionSpecJson,
    METADATA: MetadataReading,
    MANIFEST_READ: ManifestReading,
    MANIFEST_WRITE: ManifestWriting,
    PUFFIN_READ: PuffinReading,
    PUFFIN_WRITE: PuffinWriting,
    TABLE_SCAN: TableScanning,
    EVOLUTION: Evolving,
    MANIFEST_CHECK: ManifestChecking,
    COMMIT_RETRY: CommitRetrying,
    EXPRESSIONS: ExpressionHandling,
    PROJECTION: Projecting,
    METRICS: MetricsEvaluating,
    MANIFEST_PRUNING: ManifestPruning,
    DELETE_PLANNING: DeletePlanning,
    RESIDUAL: ResidualEvaluating,
    AVRO_SCHEMA: AvroSchemaMapping,
    SCAN_PLAN: ScanPlanning,
}


# --- helpers for adapters: the boundary's forms read and written by the reference ---------

@contextmanager
def rejecting() -> Iterator[None]:
    """Turn the reference's refusal (a ``SpecViolation``) into :class:`Rejected`, keeping its
    rule id: for an adapter that calls the reference (or wraps the ``reference`` target)."""
    from iceberg_conformance.reference.errors import SpecViolation
    try:
        yield
    except SpecViolation as e:
        raise Rejected(str(e), rule=e.rule) from e


def parse_type(type_json: JSON) -> Any:
    """The reference's type (``iceberg_conformance.reference.types.IcebergType``) of a boundary
    type: an Iceberg type string or an Appendix C JSON object; :class:`Rejected` when invalid."""
    from iceberg_conformance.reference.types import parse_type as parse
    with rejecting():
        return parse(type_json)


def parse_value(type_json: JSON, value: JSON) -> Any:
    """The Python value of a boundary value (JSON single-value form) of a boundary type, as the
    reference holds it (int for int, long, date, time and timestamps; ``Decimal``; ``bytes``;
    ``uuid.UUID``; ...; ``None`` for null); :class:`Rejected` when it is not of the type."""
    from iceberg_conformance.reference.values import value_from_json
    with rejecting():
        return value_from_json(parse_type(type_json), value)


def value_to_json(type_json: JSON, value: Any) -> JSON:
    """The boundary form (JSON single-value form) of a Python value as :func:`parse_value` gives it."""
    from iceberg_conformance.reference.values import value_to_json as to_json
    with rejecting():
        return to_json(parse_type(type_json), value)


#: the module of the built-in targets: an adapter deriving from one of their classes must name
#: itself and say whether it reports the kit's rule ids (see :func:`check_adapter`)
BUILTIN_TARGETS = "iceberg_conformance.suites.targets."
#: what such an adapter must set in a class of its own
OWN_ATTRIBUTES = ("name", "reports_rules")


def check_adapter(target: object) -> list[str]:
    """Problems with an adapter object: missing attributes, or a declared capability whose
    methods are missing, or a built-in target's ``name`` or ``reports_rules`` inherited by a
    subclass (the name ``reference`` leaves out the differential properties, which compare a
    target with the reference; ``reports_rules`` makes a refusal for another rule a failure).
    ``[]`` when it conforms."""
    problems = []
    if not isinstance(target, Target):
        problems.append("it lacks name, capabilities or version (see suites.api.Target)")
        return problems
    cls = type(target)
    if not cls.__module__.startswith(BUILTIN_TARGETS):
        own = [c for c in cls.__mro__ if not c.__module__.startswith(BUILTIN_TARGETS) and c is not object]
        for attr in OWN_ATTRIBUTES:
            if hasattr(cls, attr) and not any(attr in vars(c) for c in own):
                problems.append(f"{cls.__name__} inherits {attr} = {getattr(cls, attr)!r} from a built-in target: "
                                f"set {attr} in {cls.__name__} (" + ("its own name" if attr == "name" else
                                "True only if every Rejected it raises carries the kit's rule id") + ")")
    for cap in sorted(target.capabilities):
        proto = CAPABILITY_PROTOCOLS.get(cap)
        if proto is None:
            problems.append(f"capability {cap!r} is unknown; known: {', '.join(ALL_CAPABILITIES)}")
        elif not isinstance(target, proto):
            problems.append(f"declares {cap!r} but does not implement {proto.__name__}")
    return problems
