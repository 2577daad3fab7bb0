"""Reference target: capabilities ``manifest-read`` and ``manifest-write`` (reference.manifests),
and the commit retry rules (``commit_retry``, used by ``suites/test_commit.py``).

Reading rejects a file with any error finding, naming the first finding's rule. ``check_manifest``
(not part of the Protocol; a validator's extra) runs the full check, with a manifest-list entry
as context when given.
"""

from __future__ import annotations

from typing import Any

from iceberg_conformance.reference import commit
from iceberg_conformance.reference import manifests as m
from iceberg_conformance.suites.api import COMMIT_RETRY, MANIFEST_CHECK, MANIFEST_READ, MANIFEST_WRITE, Rejected


def _raise_first(findings: list[Any]) -> None:
    errors = [f for f in findings if f.severity == "error"]
    if errors:
        raise Rejected("; ".join(str(f) for f in errors), rule=errors[0].rule)


class ManifestsMixin:
    CAPABILITIES = frozenset({MANIFEST_READ, MANIFEST_WRITE, MANIFEST_CHECK, COMMIT_RETRY})

    def read_manifest(self, path: str, format_version: int) -> list[Any]:
        entries, findings = m.read_manifest(path, format_version)
        # a reader refuses what is structurally wrong; semantic checks are check_manifest's
        _raise_first([f for f in findings if f.rule in _READ_RULES])
        return entries

    def read_manifest_inherited(self, path: str, format_version: int, manifest_list_entry: Any) -> list[Any]:
        """Entries with inherited values filled in from the manifest-list entry."""
        return m.inherit(self.read_manifest(path, format_version), manifest_list_entry, format_version)

    def read_manifest_list(self, path: str, format_version: int) -> list[Any]:
        entries, findings = m.read_manifest_list(path, format_version)
        _raise_first(findings)
        return entries

    def check_manifest(self, path: str, format_version: int, manifest_list_entry: Any = None) -> list[Any]:
        """Read and fully validate; raise Rejected on any error finding."""
        ctx = m.ManifestContext(format_version, manifest_file=manifest_list_entry)
        entries, findings = m.read_manifest(path, format_version, ctx)
        _raise_first(findings)
        return entries

    def commit_retry(self, spec: Any) -> Any:
        """``{"retry": True}`` when the commit can be reapplied; Rejected (with the rule) if not."""
        d = commit.retry_decision(spec["operation"], spec["base"], spec["current"],
                                  files_to_delete=spec.get("files_to_delete", ()),
                                  current_live_files=spec.get("current_live_files", ()))
        if not d.retry:
            raise Rejected(d.reason, rule=d.rule)
        return {"retry": True}

    def write_manifest(self, path: str, manifest: Any) -> None:
        m.write_manifest(path, manifest)

    def write_manifest_list(self, path: str, manifest_list: Any) -> None:
        m.write_manifest_list(path, manifest_list)


_READ_RULES = frozenset({
    "avro.unreadable", "avro.union", "avro.unmapped-type", "avro.map-array", "manifests.field-id-missing",
    "manifests.field-missing", "manifests.status", "manifests.header-missing", "manifests.header-content",
    "manifests.header-format-version", "manifests.header-schema", "manifests.header-partition-spec",
    "manifests.header-id", "manifests.content", "manifests.undecodable", "manifests.deprecated-field",
    "manifests.partition-field-ids",
})
