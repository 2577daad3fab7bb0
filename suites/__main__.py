"""``python -m iceberg_conformance.suites`` is ``iceberg-conformance``."""

import sys

from iceberg_conformance.suites.cli import main

sys.exit(main())
