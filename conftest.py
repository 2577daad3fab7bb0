"""The kit's pytest plugins are loaded through their ``pytest11`` entry points
(``iceberg_conformance.suites.harness.plugin`` and ``.plugin_tables``) once the kit is installed;
this file adds only pytest's own ``pytester`` for the self-tests."""

pytest_plugins = ["pytester"]
