"""Where a running preview of the site is, and a build on request. `ledgerpress serve` announces its address in
the site's cache folder while it runs (a file it removes when it stops), so another process can find it."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..content.layout import CACHE_DIR
from ..engine import Folder, Options
from ..engine import build as build_site
from ..engine.scratch import running
from ..output.whole_files import write_whole
from .checking import finding_out
from .paths import story_path
from .schemas import BuildOut, PreviewOut
from .site import Desk

ANNOUNCEMENT = "serve.json"
LOOPBACK = {"127.0.0.1", "localhost", "::1", "0.0.0.0", "::"}  # the only previews the desk asks anything


@dataclass(frozen=True)
class Announcement:
    """This preview's announcement, and the one it replaced: a preview of the same site that still runs (on
    another port) is announced again when this one stops first."""

    path: Path
    replaced: dict | None


def announce(root: Path, url: str, drafts: bool) -> Announcement | None:
    """Say where this preview listens (written whole under another name, then put in place); None if the site's
    folder cannot be written (the preview runs all the same, unannounced)."""
    path = root / CACHE_DIR / ANNOUNCEMENT
    replaced = announced(root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, json.dumps({"url": url, "pid": os.getpid(), "drafts": drafts}).encode("utf-8"))
    except OSError:
        return None
    return Announcement(path, replaced)


def withdraw(announcement: Announcement | None) -> None:
    """Remove this process's announcement, putting back the one it replaced if that preview still runs (a later
    preview of the same site may have replaced this one: keep that)."""
    if announcement is None:
        return
    found = _read(announcement.path)
    if found is None or found.get("pid") != os.getpid():
        return
    earlier = announcement.replaced
    if earlier is not None and running(earlier["pid"]):
        with contextlib.suppress(OSError):
            write_whole(announcement.path, json.dumps(earlier).encode("utf-8"))
            return
    announcement.path.unlink(missing_ok=True)


def announced(root: Path) -> dict | None:
    """The running preview's announcement, if its process still runs."""
    found = _read(root / CACHE_DIR / ANNOUNCEMENT)
    if found is None or not isinstance(found.get("url"), str) or not isinstance(found.get("pid"), int):
        return None
    return found if running(found["pid"]) else None


def _read(path: Path) -> dict | None:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def preview_url(desk: Desk, shown: str) -> PreviewOut:
    """The story's page in the running preview, and whether the preview serves it."""
    story_path(desk.root, shown)
    day, name = shown.split("/")[2:]
    found = announced(desk.root)
    if found is None:
        return PreviewOut(running=False, url=None, story_url=None, served=None, drafts=None,
                          note="no `ledgerpress serve` runs for this site: a person starts one (with --drafts to "
                               "see drafts)")
    url = found["url"].rstrip("/")
    page = f"{url}/stories/{day}/{name.removesuffix('.md')}/"
    served = _answers(page) if urlsplit(url).hostname in LOOPBACK else None
    drafts = bool(found.get("drafts"))
    if served:
        note = "the preview serves this story; it rebuilds on every save"
    elif served is None:
        note = "the preview listens on another machine's address: the desk does not ask it"
    else:
        note = ("the preview has no page for this story: it leaves drafts out unless serve runs with --drafts, and "
                "keeps the last good build while a story has errors (check_story says which)")
    return PreviewOut(running=True, url=url + "/", story_url=page, served=served, drafts=drafts, note=note)


ASK_S = 2.0  # how long the desk waits for a preview's answer, from connecting to its status line


def _answers(url: str) -> bool:
    """Whether the preview answers 200 to HEAD url within ASK_S as a whole: urllib's timeout bounds each read,
    and a preview stopped or stuck mid-answer (a byte a second) would hold the tool call for ever."""
    parts = urlsplit(url)
    deadline = time.monotonic() + ASK_S
    request = (f"HEAD {parts.path or '/'} HTTP/1.0\r\nHost: {parts.netloc}\r\n\r\n").encode("ascii", "replace")
    head = b""
    try:
        with socket.create_connection((parts.hostname, parts.port or 80), timeout=ASK_S) as connection:
            connection.sendall(request)
            while b"\r\n" not in head and len(head) < 1024 and (left := deadline - time.monotonic()) > 0:
                connection.settimeout(left)
                chunk = connection.recv(1024)
                if not chunk:
                    break
                head += chunk
    except (OSError, ValueError):
        return False
    return head.split(b"\r\n", 1)[0].split(b" ")[1:2] == [b"200"] and b"\r\n" in head


def build(desk: Desk, drafts: bool = False, search: bool = True) -> BuildOut:
    """The site built into public/ as `ledgerpress build` builds it, through the same call, in this process."""
    desk.may_build()
    report = build_site(desk.root, Folder(desk.root / "public"), Options(drafts=drafts, search=search))
    counts = report.counts
    return BuildOut(ok=report.ok, refused=report.refused, findings=[finding_out(f) for f in report.findings],
                    up_to_date=report.up_to_date, stories=counts.stories, pages=counts.pages, files=counts.files,
                    written=counts.written, unchanged=counts.unchanged, deleted=counts.deleted,
                    scheduled=[path for path, _, _ in report.scheduled], notes=report.notes,
                    summary=report.refused or report.summary())
