"""Self-tests of the kit (vectors, adapters, the suites' power to catch broken targets)."""

pytest_plugins = ["pytester"]
