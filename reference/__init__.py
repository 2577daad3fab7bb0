"""Reference implementation of the Apache Iceberg table spec, written to be read.

Each module mirrors one section of the spec and names it in its docstring. The reference is
one target among others: the golden vectors are derived from the spec text and checked by
independent implementations, never copied from this package's output.
"""

from iceberg_conformance import refuse_old_name

refuse_old_name(__name__, "iceberg_conformance.reference")

