"""Tables in object stores: ``s3://``, ``gs://``, ``abfs(s)://`` and ``file://`` through
``pyarrow.fs``, the file-system layer PyIceberg's FileIO uses.

A table named by a URI is read once into a local spool directory (metadata, and for a full check
every file under the table's location; one listing, then many files fetched at once: :func:`_copy`), and
checked there as a table relocated from its URI (:class:`~checker.find.Locator`), so every rule
runs unchanged and confinement keeps its meaning (the table's location, plus ``--allow-root``).
The check begins once the metadata files (JSON) are there: manifest lists, manifests, then data
and delete files go on arriving while it runs (:func:`arrive`), and a unit or planning step that
reads one not there yet waits for it.
Every finding is then named by the URI, not the spool path (:func:`name_by_uri`).

Configuration is the file systems' own: for S3 the AWS environment (``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_PROFILE``, ``AWS_REGION`` /
``AWS_DEFAULT_REGION``) and an endpoint override (``--s3-endpoint`` or ``AWS_ENDPOINT_URL_S3`` /
``AWS_ENDPOINT_URL``: MinIO, a loopback server); Google's and Azure's default credentials for
``gs://`` and ``abfs(s)://``.
"""

from __future__ import annotations

import dataclasses
import datetime
import os
import shutil
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, TypeVar
from urllib.parse import urlparse

from iceberg_conformance.checker.find import Current, current_metadata, filling_marker, has_version, newer_metadata
from iceberg_conformance.reference.findings import Finding

T = TypeVar("T")
R = TypeVar("R")

#: schemes read through pyarrow.fs; equivalent spellings of one store map to its first
SCHEMES: dict[str, tuple[str, ...]] = {"s3": ("s3", "s3a", "s3n"), "gs": ("gs", "gcs"), "abfs": ("abfs", "abfss"),
                                        "file": ("file",)}


#: seconds a store may take to connect or answer one request before the check says it does not
#: answer ($ICEBERG_CONFORMANCE_STORE_TIMEOUT)
TIMEOUT_S = float(os.environ.get("ICEBERG_CONFORMANCE_STORE_TIMEOUT", "30"))


def _aws(s3_endpoint: str | None) -> tuple[str | None, str | None, tuple[str, str, str | None] | None]:
    """The S3 settings of the environment: the endpoint override (``s3_endpoint``, else
    ``AWS_ENDPOINT_URL_S3`` / ``AWS_ENDPOINT_URL``) as a URL, the region, and the access key,
    secret key and session token when the keys are given (else the SDK's own chain)."""
    endpoint = s3_endpoint or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint and "://" not in endpoint:
        endpoint = f"http://{endpoint}"
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or None
    key, secret = os.environ.get("AWS_ACCESS_KEY_ID"), os.environ.get("AWS_SECRET_ACCESS_KEY")
    return endpoint or None, region, (key, secret, os.environ.get("AWS_SESSION_TOKEN") or None) if key and secret else None


class StoreError(Exception):
    """A URI the checker cannot read: an unknown scheme, or a store that does not answer."""


def scheme_of(uri: str) -> str | None:
    """The scheme of ``uri`` (lower case), None for a plain path."""
    head = uri.split("/", 1)[0]
    return head[:-1].lower() if head.endswith(":") and "://" in uri else None


def is_store_uri(uri: str) -> bool:
    """Whether ``uri`` names an object store (any scheme but ``file``)."""
    s = scheme_of(uri)
    return s is not None and s != "file"


def known_schemes() -> list[str]:
    return [f"{s}://" for group in SCHEMES.values() for s in group]


def filesystem(uri: str, s3_endpoint: str | None = None) -> tuple[Any, str]:
    """(pyarrow file system, path inside it) for ``uri``; StoreError for a scheme it does not read."""
    import pyarrow.fs as pafs

    scheme = scheme_of(uri)
    family = next((k for k, names in SCHEMES.items() if scheme in names), None)
    if family is None:
        raise StoreError(f"{uri}: the scheme {scheme}:// is not one the checker reads (it reads "
                         f"{', '.join(known_schemes())} and local paths)")
    parsed = urlparse(uri)
    if family == "s3":
        endpoint, region, keys = _aws(s3_endpoint)
        kwargs: dict[str, Any] = {}
        if endpoint:
            ep = urlparse(endpoint)
            kwargs["endpoint_override"] = ep.netloc
            kwargs["scheme"] = ep.scheme or "http"
        if region:
            kwargs["region"] = region
        if keys:
            kwargs.update(access_key=keys[0], secret_key=keys[1], **({"session_token": keys[2]} if keys[2] else {}))
        # otherwise the AWS SDK's default chain: AWS_PROFILE and ~/.aws, instance roles
        return (pafs.S3FileSystem(connect_timeout=TIMEOUT_S, request_timeout=TIMEOUT_S, **kwargs),
                f"{parsed.netloc}{parsed.path}".rstrip("/"))
    if family == "file":
        return pafs.LocalFileSystem(), parsed.path.rstrip("/") or "/"
    if family == "gs":
        # without a limit the client retries a missing credential for 15 minutes, silently
        return (pafs.GcsFileSystem(retry_time_limit=datetime.timedelta(seconds=TIMEOUT_S)),
                f"{parsed.netloc}{parsed.path}".rstrip("/"))
    fs, path = pafs.FileSystem.from_uri(uri)
    return fs, path.rstrip("/")


@dataclass
class Spooled:
    """A table read from a store into ``directory``: ``uri`` (the table's URI as given, without
    a trailing slash) is ``directory`` there; ``current`` the metadata file to check, local."""

    uri: str
    directory: str
    current: Current
    #: how it was read: the S3 endpoint given, and whether the data and delete files were left out
    s3_endpoint: str | None = None
    metadata_only: bool = False
    #: the store's metadata files of the same or a higher version than the one named directly
    #: (:func:`~checker.find.newer_metadata` of the listing; the spool holds only those it reads)
    newer: tuple[str, ...] = ()

    def relocate(self) -> list[tuple[str, str]]:
        """The recorded prefixes that are the spool directory: the URI in each spelling of its scheme."""
        scheme = scheme_of(self.uri) or ""
        rest = self.uri[len(scheme) + 3:]
        names = next((g for g in SCHEMES.values() if scheme in g), (scheme,))
        return [(f"{s}://{rest}", self.directory) for s in names]


def _listing(fs: Any, path: str) -> list[Any]:
    import pyarrow.fs as pafs

    try:
        return [i for i in fs.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
                if i.type == pafs.FileType.File]
    except OSError as e:
        raise StoreError(f"{path}: cannot list it ({e})") from e


def spool(uri: str, *, metadata_only: bool = False, s3_endpoint: str | None = None, later: bool = False) -> Spooled:
    """Read the table at ``uri`` (its directory, the one holding ``metadata/``; or one of its
    metadata files) into a new temporary directory (:func:`remove` deletes it): ``metadata/``
    always, everything else under the table's directory unless ``metadata_only``. StoreError when
    it cannot be read or holds no table. ``later``: only the metadata files (JSON) now; the rest
    (manifest lists and manifests, then data and delete files) is read by :func:`arrive`, while
    the check runs."""
    import pyarrow.fs as pafs

    fs, path = filesystem(uri, s3_endpoint)
    store = _Store(fs, _s3_client(s3_endpoint) if scheme_of(uri) in SCHEMES["s3"] else None)
    named_file: str | None = None
    try:
        info = fs.get_file_info(path)
    except OSError as e:
        raise StoreError(f"{uri}: the store does not answer ({e})") from e
    if info.type == pafs.FileType.File:
        if os.path.basename(os.path.dirname(path)) != "metadata":
            raise StoreError(f"{uri}: a file that is not in a table's metadata/ directory")
        named_file = os.path.basename(path)
        path = os.path.dirname(os.path.dirname(path))
        uri = uri.rstrip("/").rsplit("/", 2)[0]
    uri = uri.rstrip("/")
    directory = tempfile.mkdtemp(prefix="iceberg-conformance-")
    try:
        local_table = os.path.join(directory, "table")
        # one listing: metadata/ alone, or (full check) every file under the table's directory
        files = _listing(fs, f"{path}/metadata" if metadata_only else path)
        if not any(i.path.startswith(f"{path}/metadata/") for i in files):
            raise StoreError(f"no Iceberg table at {uri} (no metadata/ there: expected a table's directory or one of "
                             "its metadata files)")
        # metadata files (JSON) wait: a check reads the current one and those its metadata-log
        # names, and a table keeps many more (every commit writes one)
        meta = f"{path}/metadata/"
        listed = [i.path[len(meta):] for i in files if i.path.startswith(meta) and "/" not in i.path[len(meta):]]
        json_names = [n for n in listed if ".metadata.json" in n]
        held = set(json_names) if all(map(has_version, json_names)) else set()
        os.makedirs(os.path.join(local_table, "metadata"))
        now = [i for i in files if not (i.path.startswith(meta) and i.path[len(meta):] in held)]
        if later:
            # the check needs the metadata files (JSON) and version-hint.text before it begins;
            # it reads the rest as it goes: manifest lists and manifests first, then the data
            def first(i: Any) -> bool:
                name = i.path[len(meta):] if i.path.startswith(meta) else "/"
                return "/" not in name and (".metadata.json" in name or name == "version-hint.text")
            rest = sorted((i for i in now if not first(i)), key=lambda i: not i.path.startswith(meta))
            if rest:
                _FILLERS[local_table] = _Filler(store, _jobs(rest, path, local_table), local_table)
            now = [i for i in now if first(i)]
        _copy(store, now, path, local_table)
        if named_file is not None:
            current = Current(os.path.join(local_table, "metadata", named_file), "named directly")
        else:
            found = current_metadata(local_table, listed)
            if found is None:
                raise StoreError(f"no Iceberg table at {uri} (its metadata/ holds no metadata file)")
            current = found
        name = os.path.basename(current.path)
        if name in held:
            _copy(store, [i for i in files if i.path == meta + name], path, local_table)
        doc = _current_doc(current.path)
        if held:  # the files the current one's metadata-log names
            wanted = _logged_names(doc, held) - {name}
            _copy(store, [i for i in files if i.path.startswith(meta) and i.path[len(meta):] in wanted], path,
                  local_table)
        filler = _FILLERS.get(local_table)
        if filler is not None:
            # as planning reads them: snapshot by snapshot, a manifest list and then its manifests,
            # which were written in that order (files written at once: the lists in snapshot order)
            order = _list_order(doc)
            filler.jobs.sort(key=lambda job: (not job[0].startswith(meta), job[3],
                                              order.get(job[0].rsplit("/", 1)[-1], len(order)), job[0]))
    except OSError as e:
        _FILLERS.pop(os.path.join(directory, "table"), None)
        shutil.rmtree(directory, ignore_errors=True)
        raise StoreError(f"{uri}: reading the table from the store failed ({e})") from e
    except BaseException:  # nothing is left behind, whatever stopped the copy
        _FILLERS.pop(os.path.join(directory, "table"), None)
        shutil.rmtree(directory, ignore_errors=True)
        raise
    newer = newer_metadata(current.path, listed) if named_file is not None else ()
    return Spooled(uri, local_table, current, s3_endpoint, metadata_only, newer)


def spooled_here(spooled: Spooled) -> None:
    """Make ``spooled.directory`` hold the table on this machine: on another machine than the one
    that read it (a Spark executor), read it from the store into the same directory, once per
    machine (concurrent callers wait for the first), so units planned against the spool read the
    same files there."""
    import fcntl

    # the table is there once its marker is: a move across file systems copies file by file
    done = spooled.directory + ".complete"
    if os.path.isdir(spooled.directory) and (os.path.exists(done) or not os.path.exists(spooled.directory + ".lock")):
        return  # the driver's own spool (no lock beside it), or a finished one
    parent = os.path.dirname(spooled.directory)
    os.makedirs(parent, exist_ok=True)
    with open(spooled.directory + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(done) and os.path.isdir(spooled.directory):
            return
        shutil.rmtree(spooled.directory, ignore_errors=True)  # a copy an earlier task left half done
        got = spool(spooled.uri, metadata_only=spooled.metadata_only, s3_endpoint=spooled.s3_endpoint)
        try:
            shutil.move(got.directory, spooled.directory)
        finally:
            remove(got)
        open(done, "w").close()


def reading_from(spooled: Spooled, fn: Callable[[T], R]) -> Callable[[T], R]:
    """``fn`` (a unit batch's runner) run where the spool of ``spooled`` may not exist yet
    (:func:`spooled_here` first)."""
    def run(batch: T) -> R:
        spooled_here(spooled)
        return fn(batch)
    return run


#: a metadata file that does not read as JSON (see :func:`_current_doc`)
_UNREAD = object()


def _current_doc(current: str) -> Any:
    """The local metadata file ``current`` as JSON, read as the check reads it (a larger file is
    its finding), or :data:`_UNREAD`."""
    import json

    from iceberg_conformance.reference.metadata import read_metadata_bytes

    data, _findings = read_metadata_bytes(current)
    try:
        return json.loads(data) if data is not None else _UNREAD
    except (ValueError, RecursionError):
        return _UNREAD


def _logged_names(doc: Any, held: set[str]) -> set[str]:
    """Of the ``held`` metadata file names, those the ``metadata-log`` of the metadata document
    ``doc`` names (by file name; every held one when it did not read as JSON: the check then
    reports why, with every file there as listed)."""
    if doc is _UNREAD:
        return set(held)
    log = doc.get("metadata-log") if isinstance(doc, dict) else None
    if not isinstance(log, list):
        return set()
    return {str(e.get("metadata-file", "")).rsplit("/", 1)[-1] for e in log if isinstance(e, dict)} & held


def _list_order(doc: Any) -> dict[str, int]:
    """File name of each manifest list the metadata document ``doc`` names -> its place among
    the snapshots."""
    snaps = doc.get("snapshots") if isinstance(doc, dict) else None
    out: dict[str, int] = {}
    for s in snaps if isinstance(snaps, list) else []:
        ml = s.get("manifest-list") if isinstance(s, dict) else None
        if isinstance(ml, str):
            out.setdefault(ml.rsplit("/", 1)[-1], len(out))
    return out


#: files fetched at once from a store (each its own request)
COPY_THREADS = 16
#: bytes asked of the store at once per file (COPY_THREADS of them may be held at a time)
COPY_CHUNK = 8 << 20


#: a file to copy: (store path, local path, size as listed, -1 when the listing gives none;
#: when it was last written, as listed, 0 when not given)
Job = tuple[str, str, int, float]


def _jobs(files: list[Any], source: str, target: str) -> list[Job]:
    """:data:`Job` of each listed file of ``files`` (under ``source``) at the same relative path
    under ``target``, their directories made. A name that would land outside ``target`` (a key
    holding ``..``) is refused."""
    root = os.path.abspath(target)  # the kit's own directory: as the check's units name its files
    jobs = []
    for info in files:
        rel = info.path[len(source) + 1:] if info.path.startswith(source + "/") else ""
        local = os.path.normpath(os.path.join(root, rel))
        if not rel or os.path.isabs(rel) or not local.startswith(root + os.sep):
            raise StoreError(f"{info.path}: a name that is not a path under {source}; nothing is copied")
        when = info.mtime.timestamp() if info.mtime is not None else 0.0
        jobs.append((info.path, local, info.size if isinstance(info.size, int) else -1, when))
    for d in sorted({job[1].rsplit(os.sep, 1)[0] for job in jobs}):
        os.makedirs(d, exist_ok=True)
    return jobs


class _Store:
    """How the files of a store are read: pyarrow's file system, and for ``s3://`` botocore's
    ``GetObject`` where botocore is installed. pyarrow's reader asks for an object's size (a HEAD
    request) before it reads it; the listing gives the size, so one ranged GET per
    :data:`COPY_CHUNK` does, half the requests. A GET botocore cannot make (no credentials it
    finds, an error it does not retry) leaves the file, and the files after it, to pyarrow,
    whose error is the one the check reports."""

    def __init__(self, fs: Any, s3: Any = None) -> None:
        self.fs, self.s3 = fs, s3

    def read(self, job: Job, out: Any) -> None:
        """Copy the file of ``job`` into the open file ``out``."""
        if self.s3 is not None and job[2] >= 0:
            try:
                self._get(job, out)
                return
            except Exception:  # noqa: BLE001 - botocore's many kinds: pyarrow reads it instead
                self.s3 = None
                out.seek(0)
                out.truncate()
        # one ranged request per COPY_CHUNK bytes (a stream's reads would ask once per megabyte)
        with self.fs.open_input_file(job[0]) as src:
            size, at = src.size(), 0
            while at < size:
                out.write(src.read_at(min(COPY_CHUNK, size - at), at))
                at += COPY_CHUNK

    def _get(self, job: Job, out: Any) -> None:
        bucket, _, key = job[0].partition("/")
        size, at = job[2], 0
        while True:
            end = min(at + COPY_CHUNK, size)
            asked = {"Range": f"bytes={at}-{end - 1}"} if size else {}
            got = self.s3.get_object(Bucket=bucket, Key=key, **asked)
            body = got["Body"].read()
            total = str(got.get("ContentRange") or "").rpartition("/")[2]
            # an object written again since the listing (version-hint.text) is read by pyarrow as it is now
            if len(body) != end - at or (size and total != str(size)):
                raise StoreError(f"{job[0]}: {len(body)} bytes of {total or '?'} where the listing gives "
                                 f"{end - at} of {size}")
            out.write(body)
            at = end
            if at >= size:
                return


def _s3_client(s3_endpoint: str | None) -> Any:
    """A botocore S3 client configured as :func:`filesystem` configures pyarrow's (the endpoint
    override, the AWS environment, else botocore's own chain: profiles, instance roles), or None
    without botocore."""
    try:
        import botocore.session
        from botocore.config import Config
    except ImportError:
        return None
    endpoint, region, keys = _aws(s3_endpoint)
    kwargs: dict[str, Any] = {"endpoint_url": endpoint, "region_name": region}
    if keys:
        kwargs.update(aws_access_key_id=keys[0], aws_secret_access_key=keys[1], aws_session_token=keys[2])
    try:
        return botocore.session.get_session().create_client(
            "s3", config=Config(connect_timeout=TIMEOUT_S, read_timeout=TIMEOUT_S, max_pool_connections=2 * COPY_THREADS,
                                retries={"max_attempts": 3, "mode": "standard"}), **kwargs)
    except Exception:  # noqa: BLE001 - a configuration botocore refuses: pyarrow reads
        return None


def _fetch(store: _Store, job: Job, partial: str | None = None) -> None:
    """Copy one file (:data:`Job`); with ``partial`` (a directory on the same file system) it is
    written there and appears in its place whole."""
    target = job[1] if partial is None else tempfile.mkstemp(dir=partial)[1]
    with open(target, "xb" if partial is None else "wb") as out:
        store.read(job, out)
    if partial is not None:
        os.replace(target, job[1])


def _copy(store: _Store, files: list[Any], source: str, target: str) -> None:
    """The listed ``files`` (under ``source``) into ``target`` at the same relative paths
    (:func:`_jobs`), :data:`COPY_THREADS` at a time."""
    from concurrent.futures import ThreadPoolExecutor

    jobs = _jobs(files, source, target)
    pool = ThreadPoolExecutor(max_workers=COPY_THREADS)
    try:
        for _ in pool.map(lambda job: _fetch(store, job), jobs):
            pass
    finally:  # the first failure ends the copy: the files not yet begun are not fetched
        pool.shutdown(wait=True, cancel_futures=True)


class _Filler:
    """The files of a spool left for later (:func:`spool` with ``later``), copied in the
    background once started by :data:`COPY_THREADS` threads, each file appearing whole, in the
    order of ``jobs`` (:meth:`prioritize` reorders those not begun). While it runs,
    :func:`~checker.find.filling_marker` of the directory exists; a check that finds a file
    missing there waits for it (:func:`~checker.find.watch`). The first failure ends the copy:
    the files not begun are not fetched."""

    def __init__(self, store: _Store, jobs: list[Job], directory: str) -> None:
        import threading

        self.store, self.jobs, self.directory = store, jobs, directory
        self.error: BaseException | None = None
        self.stopped = False
        self.started = False
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._next = 0
        self._running = 0

    def start(self) -> None:
        import threading

        self.started = True
        partial = os.path.join(os.path.dirname(self.directory), "partial")
        try:
            os.makedirs(partial, exist_ok=True)
            open(filling_marker(self.directory), "x").close()
        except OSError as e:  # nothing began: said by join()
            self.error = e
            self._done.set()
            return
        for _ in range(COPY_THREADS):
            with self._lock:
                self._running += 1
            try:
                threading.Thread(target=self._work, args=(partial,), name="iceberg-conformance-copy",
                                 daemon=True).start()
            except RuntimeError as e:  # no more threads here: the ones started end the copy
                with self._lock:
                    self.error = self.error or e
                self._ended()
                return

    def _ended(self) -> None:
        """One copying thread fewer; the last one removes the marker and says the copy ended."""
        with self._lock:
            self._running -= 1
            last = self._running == 0
        if last:
            try:
                os.remove(filling_marker(self.directory))
            except OSError:
                pass
            self._done.set()

    def _take(self) -> Job | None:
        with self._lock:
            if self.stopped or self.error is not None or self._next >= len(self.jobs):
                return None
            self._next += 1
            return self.jobs[self._next - 1]

    def _work(self, partial: str) -> None:
        try:
            while (job := self._take()) is not None:
                try:
                    _fetch(self.store, job, partial)
                except BaseException as e:  # noqa: BLE001 - said by join()
                    with self._lock:
                        self.error = self.error or e
        finally:
            self._ended()

    def prioritize(self, wanted: list[str]) -> None:
        """Fetch the files not begun in the order of the local paths ``wanted`` (the check's
        units, in the order they run), the others after them."""
        rank = {p: i for i, p in enumerate(wanted)}
        meta = os.path.join(self.directory, "metadata") + os.sep
        with self._lock:  # files no unit names: those of metadata/ (statistics) first, the others last
            rest = self.jobs[self._next:]
            rest.sort(key=lambda job: rank.get(job[1], -1 if job[1].startswith(meta) else len(rank)))
            self.jobs[self._next:] = rest

    def join(self) -> None:
        """Wait for the copy to end; StoreError when it failed."""
        if self.started:
            self._done.wait()
        if self.error is not None and not self.stopped:
            raise StoreError(f"reading the table's files from the store failed ({self.error})") from self.error


#: spool directory -> its files left for later (:func:`spool` with ``later``)
_FILLERS: dict[str, _Filler] = {}


def arrive(spooled: Spooled) -> list[str]:
    """Begin copying the files :func:`spool` left for later, in the background; the directories
    they arrive in (for :func:`~checker.check.check_table`'s ``arriving``), none when nothing
    was left. :func:`arrived` waits for the copy to end."""
    filler = _FILLERS.get(spooled.directory)
    if filler is None or filler.started:
        return []
    filler.start()
    return [spooled.directory]


def prioritize(spooled: Spooled, wanted: list[str]) -> None:
    """Let the files of ``spooled`` still to arrive come in the order of the local paths
    ``wanted`` (the units of the check, as they will run)."""
    filler = _FILLERS.get(spooled.directory)
    if filler is not None:
        filler.prioritize(wanted)


def arrived(spooled: Spooled) -> None:
    """Wait until every file of ``spooled`` has arrived; StoreError when the copy failed (the
    check of what did arrive says nothing then)."""
    filler = _FILLERS.get(spooled.directory)
    if filler is not None:
        if not filler.started:
            filler.start()
        try:
            filler.join()
        finally:  # interrupted, :func:`remove` still finds it to stop it
            if filler._done.is_set():
                _FILLERS.pop(spooled.directory, None)


def remove(spooled: Spooled) -> None:
    """Delete the spool directory (a copy still filling it is stopped first)."""
    filler = _FILLERS.pop(spooled.directory, None)
    if filler is not None:
        filler.stopped = True
        if filler.started:
            filler._done.wait()
    shutil.rmtree(os.path.dirname(spooled.directory), ignore_errors=True)


def name_by_uri(text: str, spooled: Spooled) -> str:
    """``text`` with the spool directory written as the table's URI."""
    return text.replace(spooled.directory, spooled.uri)


def findings_by_uri(findings: list[Finding], spooled: Spooled) -> list[Finding]:
    """The findings with every spool path written as the table's URI."""
    return [dataclasses.replace(f, file=name_by_uri(f.file, spooled), message=name_by_uri(f.message, spooled),
                                location=name_by_uri(f.location, spooled)) for f in findings]
