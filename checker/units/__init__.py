"""The units of a check, one module per kind: what each unit reads and which rules it judges.

:mod:`.metadata`, :mod:`.snapshot`, :mod:`.manifest` (with :mod:`.columnar`, its fast path),
:mod:`.datafile` (with :mod:`.metrics`), :mod:`.deletes`, :mod:`.statistics` and
:mod:`.lineage`. Each takes the :class:`~checker.run.CheckRun` it belongs to and a
:class:`~checker.plan.Unit`, and returns findings.
"""
