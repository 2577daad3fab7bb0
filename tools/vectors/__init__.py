"""The vector generators: each writes the case files of one area of ``vectors/`` from the
spec's rules (``python -m tools.vectors.<area>`` from the repository root), cross-checked by the
independent implementations it can reach. Generation is code, output is data: the files under
``vectors/`` are what these write, and they need nothing of Python to be read.
"""

from pathlib import Path

#: the vectors tree of the checkout these tools live in
VECTORS = Path(__file__).resolve().parents[2] / "vectors"
