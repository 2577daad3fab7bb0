"""The producer x consumer x capability matrix: every consumer (engine) reads every golden table.

* :mod:`.consumers` - the consumers behind one small adapter, each reading a snapshot of a table.
* :mod:`.harness` - what a consumer is given: the table as written, or a relocated copy
  (``file://`` or loopback ``http://`` paths) and a metadata file pinned to one snapshot for
  consumers that read only the current snapshot; the comparison with the expected rows.
* :mod:`.report` - cells, known-failure matching, and the report (JSON, Markdown, HTML heat-map).
* ``capabilities.json`` - what users ask about, each capability mapped to the golden tables
  that exercise it; ``known-failures-consumers.json`` - engine bugs and unsupported features,
  each with the rows that differ (a digest) and an upstream link; ``not-run.json`` - engines that
  could not be run at all, with the reason.
"""
