"""Errors raised by the reference: every one names the rule, the spec clause and where.

A rule id is stable (``area.rule-name``); vectors name the rule they expect an
implementation to reject input for, and the reference's own error carries that id.
"""

from __future__ import annotations


class SpecViolation(ValueError):
    """Input breaks a rule of the Iceberg spec.

    ``rule`` is the stable rule id, ``clause`` the spec section the rule comes from,
    ``where`` a location (file, JSON path, byte offset) or ``""`` when the caller adds it.
    """

    def __init__(self, rule: str, message: str, *, clause: str = "", where: str = "") -> None:
        self.rule = rule
        self.clause = clause
        self.where = where
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        parts = [f"[{self.rule}]"]
        if self.where:
            parts.append(f"{self.where}:")
        parts.append(self.detail)
        if self.clause:
            parts.append(f"(spec: {self.clause})")
        return " ".join(parts)

    def at(self, where: str) -> "SpecViolation":
        """The same violation, located (prefixing any location already known)."""
        located = f"{where}{self.where}" if self.where.startswith(("/", "[", ".")) else where
        if self.where and not self.where.startswith(("/", "[", ".")):
            located = f"{where}: {self.where}"
        return SpecViolation(self.rule, self.detail, clause=self.clause, where=located)
