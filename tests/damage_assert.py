"""One assertion for the tests of damage cases: every single-violation copy of a table that a
rule's damage case writes is reported by that rule, and by nothing else at error level."""

from __future__ import annotations

from pathlib import Path


def assert_damage_reported(table: str, out: Path, rule: str) -> None:
    """Write the damaged copies of ``table`` for ``rule`` under ``out`` and check each: the
    pristine copy has no error, each damaged copy is reported (not MISSED) and brings no other
    error (not NOISY)."""
    from iceberg_conformance.checker.damage import self_test, write_damaged

    pristine, copies, skipped = write_damaged(table, str(out), rules=[rule])
    assert rule not in skipped and copies, f"{rule}: no victim in {table}"
    control, verdicts = self_test(str(out), copies, pristine)
    assert control == [], f"the pristine copy of {table} has errors: {control}"
    for v in verdicts:
        assert v.reported, f"MISSED {v.copy.rule}: {v.copy.where} -> {v.error_rules}"
        assert not v.extra_errors, f"NOISY {v.copy.rule}: {v.copy.where} -> {v.extra_errors}"
