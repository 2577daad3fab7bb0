"""What a user names, as tables to check: local paths, object-store URIs and catalog names.

:func:`resolve` turns one name into :class:`Source` objects: a metadata file, table directory or
warehouse on disk (:func:`~checker.find.find_current`); an ``s3://``, ``gs://``, ``abfs(s)://``
or ``file://`` URI of a table or of one of its metadata files (:mod:`checker.stores`); or, with a
catalog, ``namespace.table`` or a whole ``namespace`` (PyIceberg's catalog layer and its
configuration: ``.pyiceberg.yaml``, ``PYICEBERG_CATALOG__<NAME>__<KEY>`` environment variables).
:func:`check_source` checks one and names every finding as the user knows the table (its URI,
not the local copy).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from iceberg_conformance.checker.check import check_table, TableResult
from iceberg_conformance.checker.find import Current, find_current, local_path, Locator, newer_metadata
from iceberg_conformance.checker.plan import Unit
from iceberg_conformance.checker.stores import (
    arrive, arrived, findings_by_uri, is_store_uri, name_by_uri, prioritize, remove, scheme_of, spool, Spooled,
    StoreError,
)


class SourceError(Exception):
    """A name that gives no table: the message says why."""


@dataclass
class Source:
    """One table to check: ``label`` as the user knows it, the metadata file (``current``, local)
    and why it is current, and the prefixes to relocate (a store's URI to its local copy)."""

    label: str
    current: Current
    relocate: list[tuple[str, str]] = field(default_factory=list)
    spooled: Spooled | None = None

    def close(self) -> None:
        if self.spooled is not None:
            remove(self.spooled)
            self.spooled = None


def _from_store(uri: str, why: str | None, metadata_only: bool, s3_endpoint: str | None, label: str) -> Source:
    try:
        got = spool(uri, metadata_only=metadata_only, s3_endpoint=s3_endpoint, later=True)
    except StoreError as e:
        raise SourceError(str(e)) from e
    except OSError as e:
        raise SourceError(f"{uri}: cannot be read ({e})") from e
    current = got.current
    if why is not None:  # a catalog's pointer: the store's newer metadata files are its orphans
        current = Current(current.path, why, got.newer)
    current = Current(current.path, name_by_uri(current.why, got), current.newer)
    return Source(label, current, got.relocate(), got)


def resolve(name: str, *, catalog: str | None = None, metadata_only: bool = False,
            s3_endpoint: str | None = None) -> list[Source]:
    """The tables ``name`` names (see the module); SourceError when it names none."""
    if catalog is not None:
        return _from_catalog(catalog, name, metadata_only, s3_endpoint)
    if is_store_uri(name) or (scheme_of(name) is not None and local_path(name) is None):
        return [_from_store(name, None, metadata_only, s3_endpoint, name)]
    found = find_current(name)
    if not found:
        raise SourceError(f"no Iceberg table at {name} (expected a metadata file, a table directory with metadata/, "
                          "or a warehouse)")
    return [Source(c.path, c) for c in found]


def load_catalog(name: str) -> Any:
    """PyIceberg's catalog ``name`` from its configuration; SourceError when it cannot load."""
    try:
        from pyiceberg.catalog import load_catalog as load
        from pyiceberg.utils.config import Config
    except ImportError as e:
        raise SourceError("--catalog needs PyIceberg (pip install 'iceberg-conformance[pyiceberg]')") from e
    try:
        # the configuration as it is now (PyIceberg reads it once, when it is imported)
        return load(name, **(Config().get_catalog_config(name) or {}))
    except Exception as e:  # noqa: BLE001 - PyIceberg raises many kinds for a bad configuration
        raise SourceError(f"catalog {name}: {type(e).__name__}: {e}") from e


def catalog_tables(cat: Any, name: str) -> list[tuple[str, ...]]:
    """The identifiers ``name`` names in ``cat``: a table (``db.table``), every table of a
    namespace (``db``), or every table of the catalog (``""``)."""
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

    if name:
        ident = tuple(name.split("."))
        try:
            if len(ident) > 1 and cat.table_exists(ident):
                return [ident]
        except (NoSuchTableError, NoSuchNamespaceError):
            pass
        try:
            return sorted(tuple(t) for t in cat.list_tables(ident))
        except NoSuchNamespaceError as e:
            raise SourceError(f"catalog {cat.name}: no table or namespace {name}") from e
    out: list[tuple[str, ...]] = []

    def walk(ns: tuple[str, ...]) -> None:
        for child in cat.list_namespaces(ns) if ns else cat.list_namespaces():
            child = tuple(child)
            out.extend(tuple(t) for t in cat.list_tables(child))
            if child != ns:
                try:
                    walk(child)
                except NotImplementedError:
                    pass
    walk(())
    return sorted(set(out))


def _from_catalog(catalog: str, name: str, metadata_only: bool, s3_endpoint: str | None) -> list[Source]:
    cat = load_catalog(catalog)
    idents = catalog_tables(cat, name)
    if not idents:
        raise SourceError(f"catalog {catalog}: no table in {name or 'the catalog'}")
    endpoint = s3_endpoint or (cat.properties.get("s3.endpoint") if isinstance(cat.properties, dict) else None)
    out = []
    for ident in idents:
        label = ".".join(ident)
        try:
            location = str(cat.load_table(ident).metadata_location)
        except Exception as e:  # noqa: BLE001
            raise SourceError(f"catalog {catalog}: table {label} does not load: {type(e).__name__}: {e}") from e
        why = f"catalog {catalog} points at it for {label}"
        local = local_path(location)
        if local is not None and not is_store_uri(location):
            out.append(Source(f"{catalog}:{label}", Current(local, why, newer_metadata(local))))
        else:
            out.append(_from_store(location, why, metadata_only, endpoint, f"{catalog}:{label}"))
    return out


def check_source(source: Source, *, relocate: list[tuple[str, str]] | None = None,
                 **kwargs: Any) -> TableResult:
    """:func:`~checker.check.check_table` of one source, its findings named as the user knows
    the table. ``relocate``: the user's own moves, after the source's. SourceError when the
    table's files stop arriving from its store."""
    s = source.spooled
    if s is None:
        return check_table(source.current, relocate=source.relocate + list(relocate or []), **kwargs)
    # the data and delete files arrive while the metadata is checked, in the order the units read them
    moves = source.relocate + list(relocate or [])
    told = kwargs.pop("planned", None)

    def planned(units: list[Unit]) -> None:
        locate = Locator(moves)
        prioritize(s, [p for u in units if (p := locate(u.path)) is not None])
        if told is not None:
            told(units)
    result = check_table(source.current, relocate=moves, arriving=arrive(s), planned=planned, **kwargs)
    try:
        arrived(s)
    except StoreError as e:
        raise SourceError(f"{s.uri}: {e}") from e
    return dataclasses.replace(result, table=name_by_uri(result.table, s), findings=findings_by_uri(result.findings, s),
                               chosen=name_by_uri(result.chosen, s))


def resolve_all(names: list[str], *, catalog: str | None = None, metadata_only: bool = False,
                s3_endpoint: str | None = None) -> list[Source]:
    """:func:`resolve` of every name (with a catalog and no name: the whole catalog)."""
    out: list[Source] = []
    for n in names or ([""] if catalog is not None else []):
        out.extend(resolve(n, catalog=catalog, metadata_only=metadata_only, s3_endpoint=s3_endpoint))
    return out
