"""iceberg-conformance: a conformance kit for Apache Iceberg implementations.

The kit's parts live in one import namespace while the repository keeps its top-level layout
(the build configuration maps the folders):

* :mod:`iceberg_conformance.reference` (``reference/``): the reference implementation;
* :mod:`iceberg_conformance.suites` (``suites/``): the conformance suites, the pytest plugin
  and the command line;
* :mod:`iceberg_conformance.checker` (``checker/``): the table checker.
"""


def refuse_old_name(module_name: str, new_name: str) -> None:
    """Refuse to import a part of the kit under its old top-level name (``suites.api``,
    ``reference.types``, ... as a checkout's directory on ``sys.path`` offers them): that loads a
    second copy of the kit beside ``iceberg_conformance.*``, whose ``Rejected`` and types are other
    classes, and every expected refusal is then reported as a crash."""
    if module_name != new_name:
        raise ImportError(
            f"{module_name} is the old import name of {new_name}: import {new_name} (and "
            f"iceberg_conformance.* for every part of the kit) instead; see CHANGELOG.md, 'Adapter API'. "
            "Importing the old name loads a second copy of the kit whose Rejected, Unsupported and types "
            "are other classes than the suites use.", name=module_name)
