"""Self-tests of the kit (vectors, adapters, the suites' power to catch broken targets).

The ``pytester`` plugin they use is loaded by the top-level conftest.py.
"""
