"""The JavaScript harness: icebird (npm, ``icebird@0.3.1``) in node behind the protocol
(``harness.mjs``). :func:`command` finds icebird as the consumer matrix does:
``$ICEBERG_CONFORMANCE_NODE_MODULES`` names the directory holding ``node_modules/icebird``
(``npm install --prefix DIR icebird@0.3.1``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from iceberg_conformance.suites.targets.subprocess import HarnessUnavailable

SCRIPT = Path(__file__).resolve().parent / "harness.mjs"


def command() -> list[str]:
    from iceberg_conformance.suites.engines.process import ReaderUnavailable
    from iceberg_conformance.suites.engines.registry import node_modules

    node = shutil.which("node")
    if node is None:
        raise HarnessUnavailable("node is not on PATH (the JavaScript harness runs icebird in node)")
    try:
        modules = node_modules()
    except ReaderUnavailable as e:
        raise HarnessUnavailable(str(e)) from None
    return [node, str(SCRIPT), str(modules)]
