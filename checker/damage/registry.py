"""Damage cases: the registry, and the choice of victims the cases share.

A case is a function ``fn(overlay, rng) -> where | None`` registered with
``@damage(rule, area, description, also=...)``: it breaks exactly one rule in the overlay and
says where, or returns None when the table offers no victim. Each case picks its victim among
all candidates of the table (any snapshot, any manifest, any entry, any blob of a Puffin file)
with the seeded random choice it is given.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Any, Callable, TypeVar

from iceberg_conformance.checker.damage.overlay import Overlay


@dataclass
class Damage:
    """One way to break one rule. ``apply`` changes the overlay and returns a sentence saying
    where, or None when the table offers no victim."""

    rule: str
    area: str
    description: str
    apply: Callable[[Overlay, random.Random], str | None]
    #: rules a correct checker may also report, as consequences of this damage
    also: tuple[str, ...] = ()
    #: the case's name (unique; the rule itself for the rule's generic case)
    name: str = ""
    #: the shipped bug (an id of the bug corpus, ``bugs/corpus``) the case writes into a table
    bug: str | None = None

    def __post_init__(self) -> None:
        self.name = self.name or self.rule


DAMAGES: list[Damage] = []


def damage(rule: str, area: str, description: str, also: tuple[str, ...] = (), *, name: str | None = None,
           bug: str | None = None) -> Callable[
        [Callable[[Overlay, random.Random], str | None]], Callable[[Overlay, random.Random], str | None]]:
    """Register a damage case breaking ``rule``; ``name`` defaults to the rule (one generic case
    per rule), ``bug`` names the shipped bug a case reproduces."""
    def register(fn: Callable[[Overlay, random.Random], str | None]) -> Callable[[Overlay, random.Random], str | None]:
        DAMAGES.append(Damage(rule, area, description, fn, also, name or "", bug))
        return fn
    return register


T = TypeVar("T")


def pick(rng: random.Random, items: list[T]) -> T | None:
    """One of ``items`` (the seeded choice), or None when there is none."""
    return rng.choice(items) if items else None


def schemas(o: Overlay) -> list[dict[str, Any]]:
    return [s for s in o.doc.get("schemas") or ([o.doc["schema"]] if "schema" in o.doc else []) if isinstance(s, dict)]


def data_entries(o: Overlay, *, content: int = 0, live: bool = True,
                  where: Callable[[dict[str, Any]], bool] | None = None) -> list[tuple[str, int, dict[str, Any]]]:
    out = []
    for p, i, e in o.entries():
        df = e["data_file"]
        if int(df.get("content", 0) or 0) != content:
            continue
        if live and e.get("status") == 2:
            continue
        if where is not None and not where(e):
            continue
        out.append((p, i, e))
    return out


def is_dv(e: dict[str, Any]) -> bool:
    return e["data_file"].get("content_offset") is not None


def dv_targets(o: Overlay) -> set[str]:
    return {str(e["data_file"].get("referenced_data_file")) for _p, _i, e in o.entries()
            if int(e["data_file"].get("content", 0) or 0) == 1}


def pick_entry(o: Overlay, rng: random.Random, cands: list[tuple[str, int, dict[str, Any]]]
                ) -> tuple[str, int, dict[str, Any]] | None:
    return pick(rng, cands)


def bump(o: Overlay, rng: random.Random, cands: list[tuple[str, int, dict[str, Any]]], key: str) -> str | None:
    """Add one to ``data_file.<key>`` of a random candidate entry."""
    c = pick(rng, cands)
    if c is None:
        return None
    p, i, e = c
    e["data_file"][key] = int(e["data_file"][key]) + 1
    o.touch_manifest(p)
    return f"{os.path.basename(p)} entries[{i}].{key} plus one"


def dvs(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return data_entries(o, content=1, where=is_dv)


def equality_deletes(o: Overlay) -> list[tuple[str, int, dict[str, Any]]]:
    return data_entries(o, content=2, where=lambda e: bool(e["data_file"].get("equality_ids")))
