"""The harness: what runs a vector case against a target and says what happened.

* :mod:`.judge` - run one case against a target and judge the result (a structured failure);
* :mod:`.known` - a target's known failures and advisories, and the one matcher for them;
* :mod:`.values` - JSON single values compared by meaning;
* :mod:`.plugin` - the pytest plugin: options, markers, parametrization, outcomes;
* :mod:`.report` - the target x area matrix (JSON, Markdown, HTML);
* :mod:`.tables_plugin` - the pytest plugin for tables given on the command line;
* :mod:`.consumer_matrix` - judging a consumer's reading of a golden table, and the producer x
  consumer x capability report;
* :mod:`.agreement` - Iceberg Java as an independent oracle of the vectors (a report).

The adapter Protocol the targets implement is :mod:`iceberg_conformance.suites.api`.
"""

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.suites.harness")

