"""The kit's pytest plugins live in suites/; this file only loads them."""

pytest_plugins = ["suites.plugin", "suites.plugin_tables", "pytester"]
