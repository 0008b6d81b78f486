"""`ledgerpress serve`: the preview server."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..serve import Rebuilt

from .options import ROOT, findings_summary, print_findings


@click.command(name="serve")
@ROOT
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (0.0.0.0: your network).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port.")
@click.option("--drafts", is_flag=True, help="Include stories marked draft: true.")
def serve_command(root: Path, host: str, port: int, drafts: bool) -> None:
    """Preview the site: built in memory, rebuilt on every save, open pages reload; public/ is not touched."""
    from ..serve import Preview

    try:
        preview = Preview(root, host, port, drafts=drafts, on_build=_print_rebuild)
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    click.echo(f"Serving {root.resolve()} at {preview.url}/ (Ctrl-C to stop)", err=True)
    preview.run()
    click.echo("Stopped.", err=True)


def _print_rebuild(rebuilt: Rebuilt) -> None:
    snapshot = rebuilt.snapshot
    if rebuilt.error is not None:  # a bug in ledgerpress, not in the content: show where it broke
        import traceback

        click.echo("".join(traceback.format_exception(rebuilt.error)).rstrip(), err=True)
    print_findings(list(snapshot.findings), err=True)
    cause = f" after {', '.join(rebuilt.sources[:3])}{' …' * (len(rebuilt.sources) > 3)}" if rebuilt.sources else ""
    if rebuilt.ok:
        click.echo(f"built in {rebuilt.seconds:.2f} s{cause}: {len(rebuilt.changed)} files changed", err=True)
    else:
        click.echo(f"build failed in {rebuilt.seconds:.2f} s{cause}: {findings_summary(list(snapshot.findings))}; "
                   f"{'showing the last good build' if snapshot.files else 'no good build yet'}", err=True)
