from iceberg_conformance.checker.cli import entry

entry()
