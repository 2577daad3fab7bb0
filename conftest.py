"""The kit's pytest plugin lives in suites/plugin.py; this file only loads it."""

pytest_plugins = ["suites.plugin"]
