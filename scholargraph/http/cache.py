"""The on-disk cache under ``SCHOLARGRAPH_HOME``, so re-running or resuming a review asks no service
twice for the same thing.

Two stores share one SQLite file, ``{home}/http-cache.sqlite``:

- **HTTP responses** (requests-cache): every session made by
  :func:`scholargraph.http.policy.http_session` reads and writes it. That covers PubMed
  (Bio.Entrez's requests are carried by such a session, always as POST, so POST is cacheable here),
  arXiv (the client's session is replaced by one), OpenAlex (pyalex's paginator session is replaced
  by one, and the enrichment look-ups use one) and the Materials Project (``MPRester(session=...)``
  takes one; only mp_api's own ``heartbeat`` checks, two bare ``requests.get`` per endpoint and
  process, escape it).
- **Web results** (:class:`ResultStore`): ddgs talks through primp, not requests, so its answers
  cannot be cached at the HTTP level; the hits of a search are stored instead. Web pages are
  stored as their extracted main text: caching the HTTP response would read the whole body and
  defeat the page size and time caps.

Keys and identity never reach the file: they are left out of the cache keys and redacted from the
stored requests (``SECRET_PARAMETERS``). A failed search keeps nothing (:func:`all_or_nothing`),
so a later run never pairs a cached PubMed history (WebEnv) with a fresh fetch, and only complete
documents are kept (:func:`is_complete`), so a truncated or malformed answer is asked again.

``SCHOLARGRAPH_NO_CACHE=1`` (the CLI's ``--no-cache``) bypasses both stores: nothing is read or
written. ``scholargraph cache info`` says what the file holds, ``scholargraph cache clear``
deletes it (:func:`cache_summary`, :func:`clear_cache`).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import requests
from lxml import etree
from requests_cache import CachedSession, SQLiteCache
from requests_cache.backends.sqlite import SQLiteDict
from requests_cache.policy.settings import DEFAULT_IGNORED_PARAMS

from scholargraph.settings import Settings

CACHE_FILE = "http-cache.sqlite"

EXPIRE_AFTER = timedelta(days=7)
"""How long an answer is reused. A week covers re-running a review, resuming it after an
interruption and iterating on its options, while the catalogues move on (PubMed and arXiv add
records daily, OpenAlex refreshes citation counts and retractions): an answer older than a week
is worth asking for again."""

ROBOTS_EXPIRE_AFTER = timedelta(hours=24)
"""How long a robots.txt decision ("disallowed") is reused: RFC 9309 asks crawlers not to rely on
a cached robots.txt for more than 24 hours."""

CACHED_METHODS = ("GET", "HEAD", "POST")
"""POST is cached because PubMed's requests are all POSTs (the key travels in the body)."""

SECRET_PARAMETERS = tuple(dict.fromkeys((
    *DEFAULT_IGNORED_PARAMS,
    "x-api-key",  # the Materials Project header, as mp_api spells it
    "api_key",  # NCBI (in the POST body) and OpenAlex (in a URL, if ever)
    "email", "mailto", "From",  # contact addresses: not secret, but not needed to match
)))
"""Query parameters, form fields and headers kept out of cache keys and redacted when stored."""



_XML_TYPES = ("xml", "atom")
_ATOM = "{http://www.w3.org/2005/Atom}"
_OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


def cache_path(settings: Settings) -> Path:
    """Where the cache lives: ``{SCHOLARGRAPH_HOME}/http-cache.sqlite``."""
    return settings.home / CACHE_FILE


def is_complete(response: requests.Response) -> bool:
    """Whether a response is a whole document worth keeping.

    An empty body, JSON that does not parse, XML that is cut short, an HTML error page served
    where XML was due, or an Atom page without entries although the feed counts some (arXiv
    occasionally serves such a spurious empty page, which its client retries) are not kept, so
    the next run asks again. A feed that found nothing (``totalResults`` 0) is a real answer.
    """
    body = response.content
    if not body or not body.strip():
        return False
    content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if "json" in content_type:
        try:
            json.loads(body)
        except ValueError:
            return False
        return True
    if any(kind in content_type for kind in _XML_TYPES):
        return _is_complete_xml(body)
    return True


def _is_complete_xml(body: bytes) -> bool:
    try:
        root = etree.fromstring(body, etree.XMLParser(resolve_entities=False, no_network=True,
                                                      recover=False))
    except etree.XMLSyntaxError:
        return False
    tag = etree.QName(root).localname.lower()
    if tag == "html":
        return False
    if root.tag == f"{_ATOM}feed" and root.find(f"{_ATOM}entry") is None:
        return root.findtext(f"{_OPENSEARCH}totalResults", "").strip() == "0"
    return True


_backends: dict[Path, SQLiteCache] = {}
_backends_lock = threading.Lock()


def _backend(path: Path) -> SQLiteCache:
    """One SQLite backend per file and process, shared by every session (it serialises writes).

    Expired answers are dropped when a process first opens the file, so it does not grow
    without bound.
    """
    with _backends_lock:
        if path not in _backends:
            path.parent.mkdir(parents=True, exist_ok=True)
            backend = SQLiteCache(path, busy_timeout=30_000, wal=True)
            backend.delete(expired=True, vacuum=False)
            _backends[path] = backend
        return _backends[path]


_written: ContextVar[list[tuple[SQLiteCache, str]] | None] = ContextVar(
    "scholargraph_cache_written", default=None)


T = TypeVar("T")

_answered: ContextVar[list[datetime] | None] = ContextVar("scholargraph_cache_answered",
                                                          default=None)


@contextmanager
def _collected(variable: ContextVar[list[T] | None]) -> Iterator[list[T]]:
    """A fresh list that ``variable`` holds within the block, for the code below to add to."""
    collected: list[T] = []
    token = variable.set(collected)
    try:
        yield collected
    finally:
        variable.reset(token)


@contextmanager
def cached_answer_times() -> Iterator[list[datetime]]:
    """Within the block, the times (UTC) at which the cached answers served were stored: a
    search answered from the cache reached the catalogue as it was then, not as it is now, and
    its log entry and the day an update searches from must say so."""
    with _collected(_answered) as times:
        yield times


_sent: ContextVar[list[str] | None] = ContextVar("scholargraph_requests_sent", default=None)
_recorded_as: ContextVar[tuple[tuple[str, str], ...]] = ContextVar(
    "scholargraph_recorded_as", default=())


@contextmanager
def requests_sent() -> Iterator[list[str]]:
    """Within the block, each request sent (or answered from the cache) as one line,
    ``METHOD URL`` with a POST's form fields as the URL's query: what a search asked of its
    service, date filter and page size included, so the search log says what a colleague sends
    to run it again. Keys and contact addresses are left out (:func:`recorded_request`)."""
    with _collected(_sent) as lines:
        yield lines


@contextmanager
def recorded_as(addresses: dict[str, str]) -> Iterator[None]:
    """Within the block, requests to an address of ``addresses`` (a prefix) are recorded as
    sent to the address it maps to: an offline run's replay server, on a port of the moment,
    stands in for the official service, whose address the log then names (``run.offline``
    says the recorded corpus answered)."""
    token = _recorded_as.set(tuple(sorted(addresses.items(), key=lambda item: -len(item[0]))))
    try:
        yield
    finally:
        _recorded_as.reset(token)


def note_sent(line: str) -> None:
    """Add ``line`` to the requests of the enclosing :func:`requests_sent` block (a client
    that does not talk through requests, such as ddgs, says what it asked)."""
    lines = _sent.get()
    if lines is not None:
        lines.append(_as_recorded(line))


def _as_recorded(line: str) -> str:
    method, _, url = line.partition(" ")
    for prefix, official in _recorded_as.get():
        if url.startswith(prefix):
            return f"{method} {official}{url[len(prefix):]}"
    return line


def recorded_request(method: str, url: str, body: Any,
                     secret_parameters: tuple[str, ...]) -> str:
    """``METHOD URL?QUERY`` of a request, a form body's fields joined to the URL's query, the
    parameters named in ``secret_parameters`` (keys, contact addresses) left out; a body that
    is not a form (JSON) is not shown."""
    parts = urlsplit(url)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str) and body and "=" in body and not body.lstrip().startswith(("{", "[")):
        pairs += parse_qsl(body, keep_blank_values=True)
    secret = {name.lower() for name in secret_parameters}
    query = urlencode([(name, value) for name, value in pairs if name.lower() not in secret])
    host = parts.netloc.rsplit("@", 1)[-1]  # no user name or password
    return f"{method} {urlunsplit((parts.scheme, host, parts.path, query, ''))}"


URLRewrite = tuple[str, str]
"""``(official_prefix, endpoint)``: a URL a client hard-codes, and where it is sent instead."""


class RewritingSession(requests.Session):
    """A session that sends requests a client addresses to the official service to the
    endpoint in force (a mirror, a proxy, the replay server), *before* anything else sees them.

    The cache keys what this produces, so an answer is stored under the address that really
    gave it: recorded answers from the replay server can never answer a request meant for the
    real service.
    """

    rewrite: URLRewrite | None = None
    secret_parameters: tuple[str, ...] = SECRET_PARAMETERS
    """Parameters left out of the requests :func:`requests_sent` records."""

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> Any:
        if self.rewrite and request.url and request.url.startswith(self.rewrite[0]):
            request.url = self.rewrite[1] + request.url[len(self.rewrite[0]):]
        if _sent.get() is not None and request.url:
            note_sent(recorded_request(request.method or "GET", request.url, request.body,
                                       self.secret_parameters))
        return super().send(request, **kwargs)


class ReviewCachedSession(RewritingSession, CachedSession):
    """A requests-cache session, keyed by the URL really asked, that tells
    :func:`all_or_nothing` what it wrote."""

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> Any:  # type: ignore[override]
        response = super().send(request, **kwargs)
        written = _written.get()
        key = getattr(response, "cache_key", None)
        if written is not None and key and not getattr(response, "from_cache", False):
            written.append((cast(SQLiteCache, self.cache), key))
        answered = _answered.get()
        stored = getattr(response, "created_at", None)
        if answered is not None and getattr(response, "from_cache", False) \
                and isinstance(stored, datetime):
            answered.append(stored if stored.tzinfo else stored.replace(tzinfo=UTC))
        return response


def new_session(settings: Settings, rewrite: URLRewrite | None = None,
                secret_parameters: tuple[str, ...] = ()) -> RewritingSession:
    """A session reading and writing the on-disk cache, or a plain one with ``no_cache``;
    either sends what a client addresses to ``rewrite[0]`` to ``rewrite[1]``. The headers and
    parameters in ``secret_parameters`` join :data:`SECRET_PARAMETERS` out of the cache."""
    secret = tuple(dict.fromkeys((*SECRET_PARAMETERS, *secret_parameters)))
    session = RewritingSession() if settings.no_cache else _cached_session(settings, secret)
    session.rewrite = rewrite
    session.secret_parameters = secret
    return session


def _cached_session(settings: Settings, ignored: tuple[str, ...]) -> ReviewCachedSession:
    return ReviewCachedSession(
        backend=_backend(cache_path(settings)),
        expire_after=EXPIRE_AFTER,
        allowable_methods=CACHED_METHODS,
        allowable_codes=(200,),
        ignored_parameters=list(dict.fromkeys(ignored)),
        match_headers=False,
        filter_fn=is_complete,
        autoclose=False,
    )


@contextmanager
def all_or_nothing() -> Iterator[None]:
    """Responses cached inside the block are removed again if the block raises.

    A search is one unit: a PubMed history (WebEnv) from ESearch is only good with the EFetch
    pages that followed it, so a search that fails half-way leaves nothing behind. Scopes nest;
    the outermost failure clears what its inner scopes kept.
    """
    outer = _written.get()
    written: list[tuple[SQLiteCache, str]] = []
    token = _written.set(written)
    try:
        yield
    except BaseException:
        for backend, key in written:
            backend.delete(key)
        raise
    finally:
        _written.reset(token)
    if outer is not None:
        outer.extend(written)


class ResultStore:
    """JSON values by key with an expiry, in a table of the cache file (web hits and pages)."""

    def __init__(self, path: Path, table: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._table = SQLiteDict(path, table_name=table, serializer=None, busy_timeout=30_000,
                                 wal=True)
        with self._table.connection(commit=True) as connection:  # expired entries, as above
            connection.execute(f"DELETE FROM {table} WHERE json_extract(value, '$.expires') < ?",
                               (time.time(),))

    @staticmethod
    def key(*parts: Any) -> str:
        """A stable key for ``parts`` (a hash: nothing of them is stored in the key)."""
        return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()

    def get(self, key: str) -> Any | None:
        """The stored value, or ``None`` when missing or expired. Inside
        :func:`cached_answer_times`, the time it was stored is added to the block's times, as
        for the HTTP answers: web hits and pages read from the store are dated to when the
        web was asked, not to this run."""
        try:
            raw = self._table[key]
        except KeyError:
            return None
        entry = json.loads(raw)
        if entry["expires"] < time.time():
            del self._table[key]
            return None
        answered = _answered.get()
        if answered is not None and isinstance(entry.get("stored"), int | float):
            answered.append(datetime.fromtimestamp(entry["stored"], UTC))
        return entry["value"]

    def close(self) -> None:
        self._table.close()

    def put(self, key: str, value: Any, expire_after: timedelta = EXPIRE_AFTER) -> None:
        now = time.time()
        entry = {"expires": now + expire_after.total_seconds(), "stored": now, "value": value}
        self._table[key] = json.dumps(entry)


_stores: dict[tuple[Path, str], ResultStore] = {}


def result_store(settings: Settings, table: str) -> ResultStore | None:
    """The store ``table`` of the cache file in force, or ``None`` with ``no_cache``."""
    if settings.no_cache:
        return None
    path = cache_path(settings)
    with _backends_lock:
        if (path, table) not in _stores:
            _stores[(path, table)] = ResultStore(path, table)
        return _stores[(path, table)]


def _cache_files(settings: Settings) -> list[Path]:
    """The cache's SQLite file and the journal files SQLite keeps beside it."""
    path = cache_path(settings)
    return [p for p in (path, *(path.with_name(path.name + end) for end in ("-wal", "-shm")))
            if p.exists()]


def _table_counts(path: Path) -> dict[str, int]:
    """Rows per table of the cache file, read without opening it as a cache (nothing expires)."""
    import sqlite3

    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: connection.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
                for table in tables}


def cache_summary(settings: Settings) -> str:
    """Where the cache is, how large, and how many answers of each kind it keeps."""
    path = cache_path(settings)
    if not path.exists():
        return f"no cache yet at {path}"
    size = sum(p.stat().st_size for p in _cache_files(settings))
    counts = _table_counts(path)
    lines = [f"{path} ({size / 2**20:.1f} MiB; answers are kept {EXPIRE_AFTER.days} days, "
             f"robots.txt decisions {ROBOTS_EXPIRE_AFTER.total_seconds() / 3600:.0f} hours)"]
    lines += [f"  {table}: {rows}" for table, rows in sorted(counts.items())
              if table != "redirects"]
    return "\n".join(lines)


def clear_cache(settings: Settings) -> int:
    """Delete the cache file of ``settings``; the number of entries it held."""
    path = cache_path(settings)
    if not path.exists():
        return 0
    held = sum(rows for table, rows in _table_counts(path).items() if table != "redirects")
    close_cache_files(path)
    for file in _cache_files(settings):
        file.unlink()
    return held


def close_cache_files(path: Path | None = None) -> None:
    """Close the cache file at ``path`` (every one this process opened when ``None``).

    A process keeps each cache file it used open for the next request; one that moves on from a
    home (the test suite gives every test a fresh one) would otherwise hold several file
    handles per home until it ends. A session that asks again later reopens the file."""
    with _backends_lock:
        for opened in [p for p in _backends if path in (None, p)]:
            _backends.pop(opened).close()
        for key in [k for k in _stores if path in (None, k[0])]:
            _stores.pop(key).close()
