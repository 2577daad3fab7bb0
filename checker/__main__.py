import sys

from iceberg_conformance.checker.cli import main

sys.exit(main())
