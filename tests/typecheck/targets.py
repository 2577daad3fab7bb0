"""Each built-in target satisfies, statically, the Protocol of every capability it declares.

Not a pytest module: ``mypy`` checks it (``tox -e mypy``, and CI's wheel lane), against the
installed package. A target whose method no longer matches its Protocol's signature is a type
error here; ``tests/test_adapters.py`` checks that the lists below are the capabilities each
target declares, so they cannot drift apart.
"""

from __future__ import annotations

from typing import Protocol

from iceberg_conformance.suites import api
from iceberg_conformance.suites.targets.reference import ReferenceTarget
from iceberg_conformance.suites.targets.pyiceberg import PyIcebergTarget
from iceberg_conformance.suites.targets.pyiceberg_core import PyIcebergCoreTarget
from iceberg_conformance.suites.targets.java import JavaTarget
from iceberg_conformance.suites.targets.subprocess import HarnessTarget

#: target -> the Protocols checked below (one per declared capability)
CHECKED: dict[str, tuple[str, ...]] = {
    "reference": (
        "AvroSchemaMapping", "BinarySerializing", "BoundSerializing", "CommitRetrying",
        "DeletePlanning", "Evolving", "ExpressionHandling", "Hashing", "ManifestChecking",
        "ManifestPruning", "ManifestReading", "ManifestWriting", "MetadataReading",
        "MetricsEvaluating", "PartitionSpecJson", "Projecting", "PuffinReading", "PuffinWriting",
        "ResidualEvaluating", "ScanPlanning", "SchemaJson", "TableScanning", "Transforming",
        "ValueJson"
    ),
    "pyiceberg": (
        "AvroSchemaMapping", "BinarySerializing", "CommitRetrying", "DeletePlanning",
        "ExpressionHandling", "Hashing", "ManifestPruning", "ManifestReading", "ManifestWriting",
        "MetadataReading", "MetricsEvaluating", "PartitionSpecJson", "Projecting", "PuffinReading",
        "ResidualEvaluating", "ScanPlanning", "SchemaJson", "TableScanning", "Transforming",
        "ValueJson"
    ),
    "pyiceberg-core": (
        "Transforming",
    ),
    # the harness targets are one class, HarnessTarget, checked against every Protocol below;
    # these lists are what each built-in harness declares
    "harness-java": (
        "AvroSchemaMapping", "BinarySerializing", "DeletePlanning", "Hashing", "MetadataReading",
        "PartitionSpecJson", "SchemaJson", "Transforming", "ValueJson"
    ),
    "harness-js": (
        "TableScanning",
    ),
    "java": (
        "AvroSchemaMapping", "BinarySerializing", "DeletePlanning", "ExpressionHandling", "Hashing",
        "ManifestPruning", "MetadataReading", "MetricsEvaluating", "PartitionSpecJson",
        "Projecting", "ResidualEvaluating", "ScanPlanning", "SchemaJson", "TableScanning",
        "Transforming", "ValueJson"
    ),
}
#: the reference behind the protocol declares what the reference declares
CHECKED["harness-python"] = CHECKED["reference"]


def _reference(t: ReferenceTarget) -> None:
    _AvroSchemaMapping: api.AvroSchemaMapping = t
    _BinarySerializing: api.BinarySerializing = t
    _BoundSerializing: api.BoundSerializing = t
    _CommitRetrying: api.CommitRetrying = t
    _DeletePlanning: api.DeletePlanning = t
    _Evolving: api.Evolving = t
    _ExpressionHandling: api.ExpressionHandling = t
    _Hashing: api.Hashing = t
    _ManifestChecking: api.ManifestChecking = t
    _ManifestPruning: api.ManifestPruning = t
    _ManifestReading: api.ManifestReading = t
    _ManifestWriting: api.ManifestWriting = t
    _MetadataReading: api.MetadataReading = t
    _MetricsEvaluating: api.MetricsEvaluating = t
    _PartitionSpecJson: api.PartitionSpecJson = t
    _Projecting: api.Projecting = t
    _PuffinReading: api.PuffinReading = t
    _PuffinWriting: api.PuffinWriting = t
    _ResidualEvaluating: api.ResidualEvaluating = t
    _ScanPlanning: api.ScanPlanning = t
    _SchemaJson: api.SchemaJson = t
    _TableScanning: api.TableScanning = t
    _Transforming: api.Transforming = t
    _ValueJson: api.ValueJson = t


def _pyiceberg(t: PyIcebergTarget) -> None:
    _AvroSchemaMapping: api.AvroSchemaMapping = t
    _BinarySerializing: api.BinarySerializing = t
    _CommitRetrying: api.CommitRetrying = t
    _DeletePlanning: api.DeletePlanning = t
    _ExpressionHandling: api.ExpressionHandling = t
    _Hashing: api.Hashing = t
    _ManifestPruning: api.ManifestPruning = t
    _ManifestReading: api.ManifestReading = t
    _ManifestWriting: api.ManifestWriting = t
    _MetadataReading: api.MetadataReading = t
    _MetricsEvaluating: api.MetricsEvaluating = t
    _PartitionSpecJson: api.PartitionSpecJson = t
    _Projecting: api.Projecting = t
    _PuffinReading: api.PuffinReading = t
    _ResidualEvaluating: api.ResidualEvaluating = t
    _ScanPlanning: api.ScanPlanning = t
    _SchemaJson: api.SchemaJson = t
    _TableScanning: api.TableScanning = t
    _Transforming: api.Transforming = t
    _ValueJson: api.ValueJson = t


def _pyiceberg_core(t: PyIcebergCoreTarget) -> None:
    _Transforming: api.Transforming = t


def _java(t: JavaTarget) -> None:
    _AvroSchemaMapping: api.AvroSchemaMapping = t
    _BinarySerializing: api.BinarySerializing = t
    _DeletePlanning: api.DeletePlanning = t
    _ExpressionHandling: api.ExpressionHandling = t
    _Hashing: api.Hashing = t
    _ManifestPruning: api.ManifestPruning = t
    _MetadataReading: api.MetadataReading = t
    _MetricsEvaluating: api.MetricsEvaluating = t
    _PartitionSpecJson: api.PartitionSpecJson = t
    _Projecting: api.Projecting = t
    _ResidualEvaluating: api.ResidualEvaluating = t
    _ScanPlanning: api.ScanPlanning = t
    _SchemaJson: api.SchemaJson = t
    _TableScanning: api.TableScanning = t
    _Transforming: api.Transforming = t
    _ValueJson: api.ValueJson = t


class _EveryProtocol(
        api.AvroSchemaMapping, api.BinarySerializing, api.BoundSerializing, api.CommitRetrying,
        api.DeletePlanning, api.Evolving, api.ExpressionHandling, api.Hashing, api.ManifestChecking,
        api.ManifestPruning, api.ManifestReading, api.ManifestWriting, api.MetadataReading,
        api.MetricsEvaluating, api.PartitionSpecJson, api.Projecting, api.PuffinReading,
        api.PuffinWriting, api.ResidualEvaluating, api.ScanPlanning, api.SchemaJson,
        api.TableScanning, api.Transforming, api.ValueJson, Protocol
):
    """Every capability's Protocol: the harness target has every operation, and declares
    those its harness declares."""


def _harness(t: HarnessTarget) -> None:
    _every: _EveryProtocol = t
