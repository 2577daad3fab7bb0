"""Assemble a target class from per-area mixin modules of its package.

A built-in target is a package with one module per area (``hashing.py``, ``transforms.py``,
...). Each module defines one class whose name ends in ``Mixin`` and which has a
``CAPABILITIES`` frozenset. ``compose`` imports every module of the package (private ones,
``_*.py``, excepted), and builds the target class from all mixins; its capabilities are the
union of theirs. Adding an area is adding a module, with no edit to a shared file.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from typing import Any


def compose(package: str, name: str, base: type, **attrs: Any) -> type:
    pkg = importlib.import_module(package)
    mixins: list[type] = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if obj.__module__ == module.__name__ and obj.__name__.endswith("Mixin"):
                mixins.append(obj)
    caps = frozenset().union(*(getattr(m, "CAPABILITIES", frozenset()) for m in mixins))
    return type(name, (base, *mixins), {"name": attrs.pop("target_name"), "capabilities": caps,
                                        "__module__": package, **attrs})
