"""``python -m suites`` is ``iceberg-conformance``."""

import sys

from suites.cli import main

sys.exit(main())
