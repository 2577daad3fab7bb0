"""The kit's pytest plugins are loaded through their ``pytest11`` entry points
(``iceberg_conformance.suites.harness.plugin`` and ``.plugin_tables``) once the kit is installed;
pytest's own ``pytester`` for the self-tests is named in ``addopts`` (``-p pytester``), not here:
a ``pytest_plugins`` in this file breaks ``pytest --target X`` run from another directory, which
collects the suites below this file without it being the rootdir's conftest."""
