"""iceberg-conformance: a conformance kit for Apache Iceberg implementations.

The kit's parts live in one import namespace while the repository keeps its top-level layout
(the build configuration maps the folders):

* :mod:`iceberg_conformance.reference` (``reference/``): the reference implementation;
* :mod:`iceberg_conformance.suites` (``suites/``): the conformance suites, the pytest plugin
  and the command line;
* :mod:`iceberg_conformance.checker` (``checker/``): the table checker.
"""
