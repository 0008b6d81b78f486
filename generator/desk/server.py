"""The desk as an MCP server (the official SDK's MCPServer): its tools, its resources (the site's keys and rules,
the user guide), the door every call goes through, and the stdio transport."""

from __future__ import annotations

import io
import logging
import sys

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.server.mcpserver.resources import FileResource

from .. import __version__
from ..content.findings import printable
from ..checks import RULES
from ..checks.rulebook import explained
from .calls import Journal, door
from .errors import DeskError
from .explain_rule import guide_pages, rules_listing, site_facts
from .frames import Frames, Refusal
from .site import Desk
from .tools import argument_models, register

INSTRUCTIONS = """\
This desk serves one ledgerpress site: stories whose every paragraph cites source records (manifests).
Work like this: find manifests (list_manifests, get_manifest), start a draft (draft_story), write the whole
file and check it (check_story; nothing is written) until it has no finding, then save it (update_story,
with the content_hash you last read). Each finding names its rule: explain_rule shows an example that fails
and one that passes. Read ledgerpress://site for the newsroom, beat and trust keys, and ledgerpress://docs/stories.md
for the story format. The desk writes drafts only, inside content/stories/; a person publishes them."""


def make_server(desk: Desk, transport: str) -> MCPServer:
    """A server for one site: every tool, every resource, every call logged."""
    app = MCPServer("ledgerpress", title="ledgerpress desk", version=__version__, instructions=INSTRUCTIONS,
                    log_level="WARNING")
    register(app, desk)
    _resources(app, desk)
    app.middleware.append(door(Journal(desk.root, transport), argument_models()))
    return app


def _resources(app: MCPServer, desk: Desk) -> None:
    def answered(make):  # a resource the site cannot give (a broken site.toml) says why
        def read() -> str:
            try:
                return make()
            except DeskError as err:
                raise ResourceError(f"{err.code}: {err.message}") from None
        read.__name__ = make.__name__
        return read

    app.resource("ledgerpress://site", name="site", title="This site's keys and settings",
                 description="Newsroom, beat and trust keys a story may use; the manifest age and repeat windows; "
                             "rule severities; whether this desk may write and build.",
                 mime_type="application/json")(answered(lambda: site_facts(desk)))
    app.resource("ledgerpress://rules", name="rules", title="Every rule",
                 description="Every rule code, what it checks, and its severity in this site.",
                 mime_type="application/json")(answered(lambda: rules_listing(desk)))

    @app.resource("ledgerpress://rules/{code}", name="rule", title="One rule explained",
                  description="A rule with an example that fails and one that passes (as `ledgerpress rules CODE`).",
                  mime_type="text/plain")
    def rule(code: str) -> str:
        if code.upper() not in RULES:
            raise ResourceError(f"unknown_rule: no rule has the code '{code[:20]}': ledgerpress://rules lists them")
        return explained(code.upper())

    for name, (title, path) in guide_pages().items():
        app.add_resource(FileResource(uri=f"ledgerpress://docs/{name}", name=f"docs/{name}", title=title,
                                      description=f"The user guide: {title}.", mime_type="text/markdown",
                                      path=path.resolve()))


def serve_stdio(desk: Desk) -> None:
    """Over the standard streams, every line checked first (frames.py): a frame the SDK cannot read is answered."""
    sys.stdin = io.TextIOWrapper(io.BufferedReader(Frames(sys.stdin.buffer, _logged)), encoding="utf-8")
    make_server(desk, "stdio").run("stdio")


def _logged(refused: Refusal) -> None:
    """On the desk's error output, one line: a frame without an id has no one to be answered to."""
    logging.getLogger("ledgerpress.desk").warning("refused a frame (id %s): %s", printable(repr(refused.id)),
                                                  printable(refused.message))
