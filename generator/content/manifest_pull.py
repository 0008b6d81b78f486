"""Pulling manifests from the service that holds them ([manifests] store): each answer fetched within one
bound on the whole wait, checked as a manifest file, and written only if it passes."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import quote, urlsplit

from .config import ManifestsTable
from .findings import Finding
from .manifest_store import manifest_text, write_replacing
from .manifest_files import load_manifest
from .models import ID_PATTERN, ManifestFile

TOKEN_VARIABLE = "LEDGERPRESS_MANIFEST_TOKEN"
_ID = re.compile(ID_PATTERN)
_RETRY_STATUSES = frozenset({500, 502, 503, 504})


Outcome = Literal["written", "updated", "unchanged", "failed"]


@dataclass
class Pulled:
    """What pulling one id did: the file's fate, or why it failed (an error, or findings about the answer)."""

    id: str
    url: str
    outcome: Outcome = "failed"
    error: str = ""
    findings: list[Finding] = field(default_factory=list)
    tries: list[str] = field(default_factory=list)  # one line per answer or failure before the last


class StoreError(Exception):
    """The store cannot be asked at all (no store configured, a token that must not be sent)."""


_TOKEN = re.compile(r"[\x21-\x7e]+")  # what an HTTP header value may carry, without spaces (RFC 6750 b64token and more)


def bearer(token: str) -> str:
    """The token as it goes in the Authorization header: without the spaces and line ends around it (a file
    saved on Windows ends in CR LF). Never in a message: one that holds another character is refused as such."""
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        bad = next((n for n, char in enumerate(token, 1) if not _TOKEN.fullmatch(char)), 0)
        raise StoreError(f"{TOKEN_VARIABLE} holds a character an HTTP header cannot carry (character {bad} of "
                         f"{len(token)}, a space or a control character): set it to the token alone")
    return token


Judge = Callable[[ManifestFile], list[Finding]]  # the manifest rules (LP101, LP102, ...) as the site sets them


def pull(root: Path, store: ManifestsTable, ids: list[str], token: str | None, judge: Judge = lambda found: []
         ) -> Iterator[Pulled]:
    """Fetch each id from the store, check the answer as `check` would check it saved as content/manifests/
    <id>.json (loading, then `judge`), and write it only if no error remains."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    if token and not _safe_for_token(store.store):
        raise StoreError(f"{TOKEN_VARIABLE} is set, and the store is plain http on another machine: "
                         "use https, or unset the token")
    token = bearer(token) if token else None
    retry = Retry(total=store.retries, connect=store.retries, read=store.retries, status=store.retries,
                  other=0, backoff_factor=store.backoff, backoff_max=30,
                  status_forcelist=_RETRY_STATUSES, allowed_methods=frozenset({"GET"}), raise_on_status=False,
                  respect_retry_after_header=False)
    with requests.Session() as session:
        session.max_redirects = 5  # (requests follows them; it drops the token when one leaves the host or https)
        # A store on this machine is asked directly, never through a proxy of http_proxy & co: the proxy would
        # read the token in plain text, and reach its own loopback. (https goes through one as a tunnel.)
        session.trust_env = not _on_this_machine(store.store)
        session.mount("http://", HTTPAdapter(max_retries=retry))
        session.mount("https://", HTTPAdapter(max_retries=retry))
        session.headers.update({"Accept": "application/json", "User-Agent": "ledgerpress"})
        if token:
            session.headers["Authorization"] = f"Bearer {token}"
        for manifest_id in ids:
            pulled = _pull_one(session, root, store, manifest_id, bool(token), judge)
            if token and token in pulled.error:  # (an error that quotes a header: never the token)
                pulled.error = pulled.error.replace(token, "<token>")
            yield pulled


def _safe_for_token(url: str) -> bool:
    """A bearer token goes over https, or plain http to this machine only."""
    return urlsplit(url).scheme == "https" or _on_this_machine(url)


def _on_this_machine(url: str) -> bool:
    """A loopback address, or localhost (127.example.org is somebody else's)."""
    host = urlsplit(url).hostname or ""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _pull_one(session, root: Path, store: ManifestsTable, manifest_id: str, token: bool, judge: Judge) -> Pulled:
    url = store.store.replace("{id}", quote(manifest_id, safe=""))
    pulled = Pulled(manifest_id, url)
    if not _ID.fullmatch(manifest_id):
        pulled.error = f"'{manifest_id}' is not a manifest id (letters, digits, '_' and '-', at most 64)"
        return pulled
    budget = whole_wait(store)
    try:
        with _at_most(budget):
            body = _fetch(session, store, pulled, token)
    except _Expired:
        pulled.error = f"{url}: no whole answer within {budget:g} s (twice the timeout a try, and the waits between)"
        return pulled
    return pulled if body is None else _save(root, pulled, body, judge)


def whole_wait(store: ManifestsTable) -> float:
    """The longest one manifest may take: each try `timeout` for the answer to start and as long again for the
    rest of it, and the waits between tries."""
    waits = sum(min(store.backoff * 2 ** n, 30) for n in range(1, store.retries))
    return (store.retries + 1) * 2 * store.timeout + waits


class _Expired(Exception):
    pass


@contextlib.contextmanager
def _at_most(seconds: float) -> Iterator[None]:
    """Raise _Expired in this block once `seconds` are spent, whatever it waits on: a store that sends its
    headers a byte a second keeps every read within the timeout, and the answer from ever ending. A signal
    reaches the main thread only: elsewhere each wait is bounded alone."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise _Expired

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _fetch(session, store: ManifestsTable, pulled: Pulled, token: bool) -> bytes | None:
    """The answer's body, or None with pulled.error saying why there is none."""
    import requests
    import urllib3

    url, manifest_id = pulled.url, pulled.id
    try:
        answer = session.get(url, timeout=(store.timeout, store.timeout), stream=True)
    except (requests.exceptions.ConnectionError, requests.exceptions.Timeout, requests.exceptions.RetryError) as err:
        pulled.error = f"{url}: no answer after {store.retries} retries ({_reason(err)})"
        return None
    except requests.exceptions.RequestException as err:
        pulled.error = f"{url}: {_reason(err)}"
        return None
    with answer:
        pulled.tries = _history(answer)
        pulled.error = _status_error(answer.status_code, manifest_id, url, token, len(pulled.tries))
        if pulled.error:
            return None
        try:
            return _read_bounded(answer, store)
        except _TooLong as err:
            pulled.error = f"{url}: {err}"
        except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError) as err:
            pulled.error = f"{url}: the answer broke off ({_reason(err)})"
    return None


def _history(answer) -> list[str]:
    """The tries urllib3 made before this answer: status or error, each."""
    retries = getattr(answer.raw, "retries", None)
    return [f"{item.method} {item.url}: {item.status or type(item.error).__name__}"
            for item in (retries.history if retries is not None else ())]


def _status_error(status: int, manifest_id: str, url: str, token: bool, retried: int) -> str:
    if status == 200:
        return ""
    if status in (401, 403):
        return (f"{url}: the store refused the token ({status}): check {TOKEN_VARIABLE}" if token else
                f"{url}: the store wants a token ({status}): set {TOKEN_VARIABLE}")
    if status in (404, 410):
        return f"{url}: the store has no manifest '{manifest_id}' ({status})"
    tail = f" after {retried} retries" if retried else ""
    return f"{url}: the store answered {status}{tail}"


class _TooLong(Exception):
    pass


def _read_bounded(answer, store: ManifestsTable) -> bytes:
    """The answer's body, refused past max_bytes or past the timeout from its first byte to its last."""
    deadline = time.monotonic() + store.timeout
    declared = answer.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > store.max_bytes:
        raise _TooLong(f"the answer is {int(declared):,} bytes, more than max_bytes ({store.max_bytes:,})")
    chunks, size = [], 0
    while chunk := answer.raw.read1(65536, decode_content=True):  # what one receive brings, then the clock
        size += len(chunk)
        if size > store.max_bytes:
            raise _TooLong(f"the answer is longer than max_bytes ({store.max_bytes:,})")
        if time.monotonic() > deadline:
            raise _TooLong(f"the answer took longer than timeout ({store.timeout:g} s) to arrive")
        chunks.append(chunk)
    return b"".join(chunks)


def _reason(err: Exception) -> str:
    """The innermost cause, in a line (requests wraps urllib3's errors two or three deep)."""
    inner: BaseException = err
    while inner.args and isinstance(inner.args[0], BaseException):
        inner = inner.args[0]
    reason = getattr(inner, "reason", None)
    text = str(reason if isinstance(reason, BaseException | str) else inner)
    return text.splitlines()[0] if text else type(inner).__name__


def _save(root: Path, pulled: Pulled, body: bytes, judge: Judge) -> Pulled:
    """Check the answer as content/manifests/<id>.json would be checked; write it only if no error remains."""
    shown = f"content/manifests/{pulled.id}.json"
    found, findings = load_manifest(f"{pulled.id}.json", shown, body)
    if found is not None:
        findings = [*findings, *judge(found)]
    if found is None or any(f.severity == "error" for f in findings):
        pulled.findings = [Finding(f.path, f.line, f.col, f.code, f"{f.message} (in the store's answer from "
                                   f"{pulled.url}: not written)", f.severity) for f in findings]
        return pulled
    pulled.findings = findings  # warnings, as [checks] sets them
    text = manifest_text(json.loads(body))
    path = root / shown
    try:
        before = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        before = None
    if before == text:
        pulled.outcome = "unchanged"
        return pulled
    write_replacing(path, text)
    pulled.outcome = "written" if before is None else "updated"
    return pulled
