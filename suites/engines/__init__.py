"""Engines that read Iceberg tables, and the producer x consumer x capability matrix.

* :mod:`.registry` - every engine behind one small adapter (``ENGINES``): what it reads, the
  form its row filter takes, and how it reads a snapshot unfiltered and under filters;
* :mod:`.query` - a row filter in each engine's own query form (SQL dialects, dataframe
  expressions), translated literally;
* :mod:`.filtering` - the judge of a filtered read: the engine's own unfiltered read, kept by
  its own evaluation of the condition;
* :mod:`.rows` - rows in the spec's JSON single-value form, compared as multisets;
* :mod:`.process` - engines running native code read in a process of their own;
* :mod:`.workspace` - what a consumer is given: the table as written, or a relocated copy
  (``file://`` or loopback ``http://`` paths) and a metadata file pinned to one snapshot for
  consumers that read only the current snapshot; the comparison with the expected rows;
* :mod:`.command` - ``iceberg-conformance scan``: any engine on a user's table.

The consumer matrix's judging and report are :mod:`iceberg_conformance.suites.harness.consumer_matrix`.
Data: ``capabilities.json`` (what users ask about, each capability mapped to the golden tables
that exercise it), ``known-failures-consumers.json``, ``known-failures-readers.json`` and
``known-failures-scan.json`` (engine bugs and unsupported features, with upstream links),
``not-run.json`` (engines that could not be run at all, with the reason).
"""
