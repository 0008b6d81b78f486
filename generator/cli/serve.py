"""`ledgerpress serve`: the preview server."""

from __future__ import annotations

import functools
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..serve import Rebuilt

from .options import (
    ROOT,
    build_now,
    detail,
    echo,
    findings_summary,
    level,
    print_findings,
    require_site,
    say,
    verbosity,
)


@click.command(name="serve")
@ROOT
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Interface to listen on (0.0.0.0: every interface, to preview from another device).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--drafts", is_flag=True, help="Include stories marked draft: true.")
@click.option("--open", "open_browser", is_flag=True, help="Open the preview in your web browser once it listens.")
@verbosity
def serve_command(root: Path, host: str, port: int, drafts: bool, open_browser: bool) -> None:
    """Preview the site: built in memory, rebuilt on every save, open pages reload; public/ is not touched."""
    require_site(root)  # never watch a folder that is not a site (the build's own scratch files would trigger it)
    build_now()  # a SOURCE_DATE_EPOCH that cannot be read stops the preview here, not every rebuild
    from ..serve import Preview

    try:
        preview = Preview(root, host, port, drafts=drafts,
                          on_build=functools.partial(_print_rebuild, quiet=level() < 0),
                          on_notes=functools.partial(print_findings, err=True))
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    echo(f"Serving {root.resolve()} at {preview.url}/ (Ctrl-C to stop)", err=True)
    if preview.everywhere:
        click.echo(f"Listening on every interface: from another device, use this machine's address with port "
                   f"{preview.port}", err=True)
    detail(f"watching {', '.join(str(path) for path in preview.watched())}{' (drafts included)' * drafts}")
    if open_browser:  # on a thread: a browser command may not return until the browser closes
        threading.Thread(target=_open, args=(f"{preview.url}/",), name="open-browser", daemon=True).start()
    from ..desk.preview import announce, withdraw

    announcement = announce(root, preview.url, drafts)  # where agents (`ledgerpress mcp`) find the preview
    try:
        preview.run()
    finally:
        withdraw(announcement)
    say("Stopped.")


def _open(url: str) -> None:
    """The socket listens already: the browser's first request waits for the server thread, never fails."""
    import webbrowser

    if not webbrowser.open(url):
        click.echo(f"could not open a web browser: visit {url} yourself", err=True)


def _print_rebuild(rebuilt: Rebuilt, quiet: bool = False) -> None:
    """Each rebuild's findings and outcome (run on the watcher's thread: -q is passed in, not looked up)."""
    snapshot = rebuilt.snapshot
    if rebuilt.error is not None:  # a bug in ledgerpress, not in the content: show where it broke
        import traceback

        click.echo("".join(traceback.format_exception(rebuilt.error)).rstrip(), err=True)
    print_findings(list(snapshot.findings), err=True)
    cause = f" after {', '.join(rebuilt.sources[:3])}{' …' * (len(rebuilt.sources) > 3)}" if rebuilt.sources else ""
    if rebuilt.ok:
        if not quiet:
            echo(f"built in {rebuilt.seconds:.2f} s{cause}: {len(rebuilt.rewritten)} files changed", err=True)
    else:
        echo(f"build failed in {rebuilt.seconds:.2f} s{cause}: {findings_summary(list(snapshot.findings))}; "
             f"{'showing the last good build' if snapshot.files else 'no good build yet'}", err=True)
