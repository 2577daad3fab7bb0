"""Every built-in adapter matches the Protocols of the capabilities it declares, and its
known-failure data is well formed and still matches tests that exist."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from iceberg_conformance.suites.api import ALL_CAPABILITIES, CAPABILITY_PROTOCOLS, check_adapter
from iceberg_conformance.suites.harness.known import of_target as known_failures
from iceberg_conformance.suites.targets import BUILTIN, TargetLoadError, load_target

TARGETS_DIR = Path(__file__).resolve().parent.parent / "suites" / "targets"


def test_every_capability_has_a_protocol() -> None:
    assert set(ALL_CAPABILITIES) == set(CAPABILITY_PROTOCOLS)


#: the implementation package each built-in adapter wraps: absent → skip, present → must load
IMPLEMENTATION = {"reference": "reference", "pyiceberg": "pyiceberg",
                  "pyiceberg-core": "pyiceberg_core", "java": "pyspark",
                  "harness-python": "reference", "harness-java": "pyspark", "harness-js": None}
#: harnesses that also need a program outside Python (a JDK, node with icebird)
EXTERNAL = {"harness-java": "a JDK", "harness-js": "node and icebird"}


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_builtin_adapter_conforms(name: str) -> None:
    module = IMPLEMENTATION[name]
    if module is not None and importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (extra [{name}])")
    try:
        adapter = load_target(name)
    except TargetLoadError as e:
        if name not in EXTERNAL:
            raise
        pytest.skip(f"{name} needs {EXTERNAL[name]}: {e}")
    assert check_adapter(adapter) == []
    assert adapter.name == name
    assert adapter.capabilities, f"{name} declares no capability"
    assert isinstance(adapter.version, str) and adapter.version


def test_reference_has_every_foundation_capability() -> None:
    reference = load_target("reference")
    for cap in ("hash", "transform", "binary", "value-json", "schema-json", "partition-spec-json"):
        assert cap in reference.capabilities, f"the reference lacks {cap}"


@pytest.mark.parametrize("path", sorted(TARGETS_DIR.rglob("*known-failures*.json")),
                         ids=lambda p: p.relative_to(TARGETS_DIR).as_posix())
def test_known_failure_files_are_well_formed(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert set(data) <= {"known_failures", "advisories"}, f"{path.name}: keys {sorted(data)}"
    for i, entry in enumerate(data.get("known_failures", []) + data.get("advisories", [])):
        # spec_quote: the sentence a known failure breaks (required of built-ins: test_known_failures.py)
        assert {"match", "reason", "link"} <= set(entry) <= {"match", "reason", "link", "spec_quote"}, (
            f"{path.name}[{i}]: keys {sorted(entry)}")
        assert entry["link"].startswith("https://"), f"{path.name}[{i}]: link is not a URL"
        assert len(entry["reason"]) >= 15, f"{path.name}[{i}]: reason too short to explain anything"
        assert entry["match"].startswith("test_"), (
            f"{path.name}[{i}]: match is '<test function>: <case id glob>' (or a bare test function "
            "for tests without vectors)")


def test_unknown_target_is_a_usage_error() -> None:
    with pytest.raises(TargetLoadError, match="unknown target"):
        load_target("no-such-target")
    with pytest.raises(TargetLoadError, match="cannot import"):
        load_target("no_such_module:Target")


def test_known_failures_load_for_builtins() -> None:
    for name in BUILTIN:
        try:
            adapter = load_target(name)
        except TargetLoadError:
            continue
        for kf in known_failures(adapter):
            assert kf.reason and kf.link


def test_static_protocol_check_lists_every_declared_capability() -> None:
    """``tests/typecheck/targets.py`` (checked by mypy) names, for each built-in target, the
    Protocol of every capability it declares, and nothing else."""
    from iceberg_conformance.suites.api import CAPABILITY_PROTOCOLS
    from tests.typecheck.targets import CHECKED

    for name in BUILTIN:
        try:
            adapter = load_target(name)
        except TargetLoadError as e:
            pytest.skip(f"{name}: {e}")
        declared = sorted(CAPABILITY_PROTOCOLS[c].__name__ for c in adapter.capabilities)
        assert sorted(CHECKED[name]) == declared, f"{name}: update tests/typecheck/targets.py"
