"""The golden vectors as package data (``iceberg_conformance.vectors``): case files, binary
files with their sidecars, ``case.schema.json``, ``VERSION`` and ``CHANGELOG.md``. Nothing here
is code the kit imports; the package exists so that an installed kit finds its vectors through
``importlib.resources``. See ``README.md`` beside this file for the format."""

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.vectors")

