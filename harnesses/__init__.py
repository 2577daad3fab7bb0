"""Harnesses: programs that put an Iceberg implementation behind the harness protocol
(``docs/harness-protocol.md``, ``protocol.schema.json``), one folder per language."""
