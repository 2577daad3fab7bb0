"""Engines that read Iceberg tables, and the producer x consumer x capability matrix.

* :mod:`.readers` - reading a snapshot with the reference, PyIceberg, DuckDB and Iceberg Java,
  rows in the spec's JSON single-value form, compared as multisets;
* :mod:`.consumers` - every consumer (engine) of the matrix behind one small adapter;
* :mod:`.workspace` - what a consumer is given: the table as written, or a relocated copy
  (``file://`` or loopback ``http://`` paths) and a metadata file pinned to one snapshot for
  consumers that read only the current snapshot; the comparison with the expected rows;

The consumer matrix's judging and report are :mod:`iceberg_conformance.suites.harness.consumer_matrix`.
Data: ``capabilities.json`` (what users ask about, each capability mapped to the golden tables
that exercise it), ``known-failures-consumers.json``, ``known-failures-readers.json`` and
``known-failures-scan.json`` (engine bugs and unsupported features, with upstream links),
``not-run.json`` (engines that could not be run at all, with the reason).
"""
