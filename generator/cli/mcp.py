"""`ledgerpress mcp`: the agent desk, the site's checks, manifests and drafts as Model Context Protocol tools."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import ROOT, build_now, echo, require_site, say, verbosity

if TYPE_CHECKING:
    from ..desk.site import Desk


@click.command(name="mcp")
@ROOT
@click.option("--http", "port", type=click.IntRange(0, 65535), default=None, metavar="PORT",
              help="Serve MCP's streamable HTTP transport at http://127.0.0.1:PORT/mcp (0: any free port) instead "
                   "of stdio.")
@click.option("--allow-write", is_flag=True,
              help="Let agents start drafts and rewrite drafts (in content/stories/ only; never a published story).")
@click.option("--allow-build", is_flag=True, help="Let agents build the site into public/.")
@verbosity
def mcp_command(root: Path, port: int | None, allow_write: bool, allow_build: bool) -> None:
    """Serve the agent desk over stdio (or HTTP): tools to find manifests, check a story's text, explain a rule,
    start and rewrite drafts, find a story in the running preview and build; read-only unless allowed."""
    require_site(root)
    build_now()  # a SOURCE_DATE_EPOCH that cannot be read stops the desk here, not every check it makes
    from ..desk.site import Desk

    desk = Desk(root.resolve(), allow_write, allow_build)
    allowed = ", ".join([*(["writing drafts"] * allow_write), *(["building"] * allow_build)]) or "read-only"
    try:
        if port is None:
            from ..desk.server import serve_stdio

            say(f"ledgerpress desk for {desk.root} on stdio ({allowed}); calls are logged in "
                ".ledgerpress-cache/desk.log")
            serve_stdio(desk)
        else:
            _serve_http(desk, port, allowed)
    except KeyboardInterrupt:
        pass
    say("Stopped.")


def _serve_http(desk: Desk, port: int, allowed: str) -> None:
    from ..desk.streamable_http import listening, serve_http

    try:
        sock = listening(port)
    except OSError as err:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {err.strerror or err}") from None
    with sock:
        serve_http(desk, sock, lambda url: echo(f"ledgerpress desk for {desk.root} at {url} ({allowed}; "
                                                      "Ctrl-C to stop)", err=True))
