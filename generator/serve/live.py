"""What the preview shows: the snapshot of the last good build, its findings as an overlay, and the version
open pages reload on."""

from __future__ import annotations

import datetime as dt
import html
import threading
from dataclasses import dataclass, field

from ..content.findings import Finding

TOOLS = "/__ledgerpress/"  # where the preview's own pages and streams are


@dataclass(frozen=True)
class Snapshot:
    """What the server shows: the last good files, the newest build's findings, the version pages reload on."""

    version: int
    files: dict[str, bytes] | None = None  # None until a build has succeeded
    findings: tuple[Finding, ...] = ()
    seconds: float = 0.0
    tail: bytes = field(default=b"", compare=False)  # injected before </body> of served HTML
    scheduled: dict[str, bytes] = field(default_factory=dict, compare=False)  # a scheduled story's page: its banner
    search: dict[str, bytes] = field(default_factory=dict, compare=False)  # the search index's files among `files`

    @property
    def errors(self) -> list[Finding]:
        return [finding for finding in self.findings if finding.severity == "error"]


def reload_script(version: int) -> str:
    return (f'<script>(()=>{{const s=new EventSource("{TOOLS}events?v={version}");'
            's.addEventListener("reload",()=>{s.close();location.reload()})})()</script>')


def overlay(errors: list[Finding]) -> str:
    """A banner over the last good page: the findings that stopped the newest build, escaped."""
    if not errors:
        return ""
    lines = html.escape("\n".join(str(finding) for finding in errors))
    count = f'{len(errors)} error{"s" * (len(errors) != 1)}'
    return ('<div id="ledgerpress-errors" role="alert" style="position:fixed;left:0;right:0;bottom:0;'
            'z-index:2147483647;max-height:50vh;overflow:auto;margin:0;padding:12px 16px;background:#2b0b0e;'
            'color:#fff;border-top:4px solid #e5484d;font:14px/1.45 ui-monospace,Menlo,Consolas,monospace">'
            f'<strong>Build failed: {count}; showing the last good build.</strong> '
            f'<a href="{TOOLS}errors" style="color:#ffb3b8">All findings</a>'
            f'<pre style="white-space:pre-wrap;margin:8px 0 0">{lines}</pre></div>')


def scheduled_banner(when: dt.datetime) -> bytes:
    """Over a scheduled story's page in the preview: it is not published until a build at or after its time."""
    shown = html.escape(when.strftime("%Y-%m-%d %H:%M UTC"))
    return ('<div id="ledgerpress-scheduled" role="status" style="position:fixed;left:0;right:0;top:0;'
            'z-index:2147483646;margin:0;padding:8px 16px;background:#1f3a5f;color:#fff;border-bottom:4px solid #8fc3ff;'
            'font:15px/1.45 system-ui,sans-serif">'
            f'<strong>Scheduled:</strong> this story is published by the first build at or after {shown}. '
            'Until then <code>ledgerpress build</code> leaves it out; the preview shows it.</div>').encode("utf-8")


def error_page(snapshot: Snapshot) -> bytes:
    """The dedicated page that lists every finding of the newest build (or says it is still building)."""
    if snapshot.version == 0:
        title, lead = "Building…", "The first build is running; this page reloads when it is done."
    elif snapshot.errors:
        title, lead = "Build failed", "Fix these and save: the page reloads by itself."
    else:
        title, lead = "No errors", "The newest build passed every check."
    items = "".join(f"<li><code>{html.escape(str(f))}</code>{' (warning)' * (f.severity != 'error')}</li>"
                    for f in snapshot.findings)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title} · ledgerpress</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"></head>'
            f'<body style="font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem">'
            f'<h1>{title}</h1><p>{lead}</p><ul>{items}</ul>'
            f'<p><a href="/">Home</a></p>{reload_script(snapshot.version)}</body></html>\n').encode("utf-8")


def with_tail(page: bytes, tail: bytes) -> bytes:
    at = page.rfind(b"</body>")
    return page + tail if at < 0 else page[:at] + tail + page[at:]


class Live:
    """The current snapshot and the wake-up for event streams: a new build is swapped in first, announced after."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.snapshot = Snapshot(0)
        self.closed = False

    def swap(self, snapshot: Snapshot) -> None:
        with self._changed:
            self.snapshot = snapshot
            self._changed.notify_all()

    def replace(self, current: Snapshot, snapshot: Snapshot) -> bool:
        """Swap in snapshot only if current is still live (a later build wins over a late search index)."""
        with self._changed:
            if self.snapshot is not current:
                return False
            self.snapshot = snapshot
            self._changed.notify_all()
            return True

    def wait(self, seen: int, timeout: float) -> Snapshot | None:
        """The snapshot once its version differs from seen (or the timeout passed); None when closing."""
        with self._changed:
            self._changed.wait_for(lambda: self.closed or self.snapshot.version != seen, timeout)
            return None if self.closed else self.snapshot

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()


