"""An agent at the desk, as tests drive one: `ledgerpress mcp` started as a subprocess and spoken to with the MCP
SDK's own client, over stdio or streamable HTTP, behind plain (blocking) calls."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.commands import LEDGERPRESS, TIMEOUT


class Agent:
    """One connected session: each method waits for its answer."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal, self.session = portal, session

    def call(self, tool: str, **arguments: Any) -> dict:
        """A tool's structured answer: its result, or {"error": {...}} when it refused (isError)."""
        result = self.portal.call(self.session.call_tool, tool, arguments)
        assert result.structured_content is not None, result
        assert bool(result.is_error) == ("error" in result.structured_content), result
        return result.structured_content

    def tools(self) -> list:
        return self.portal.call(self.session.list_tools).tools

    def resources(self) -> list:
        return self.portal.call(self.session.list_resources).resources

    def read(self, uri: str) -> str:
        return self.portal.call(self.session.read_resource, uri).contents[0].text


def _environment(root: Path) -> dict[str, str]:
    """The server's own cache home (builds sign their memos there), whatever the test process holds."""
    return {"XDG_CACHE_HOME": os.environ.get("XDG_CACHE_HOME", str(root / ".cache-home"))}


@asynccontextmanager
async def _stdio(root: Path, flags: tuple[str, ...], errors: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=str(LEDGERPRESS), args=["mcp", "--root", str(root), *flags],
                                   env=_environment(root))
    with open(errors, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
                await session.initialize()
                yield session


@contextmanager
def stdio_agent(root: Path, *flags: str, errors: Path | None = None) -> Iterator[Agent]:
    """An agent talking to `ledgerpress mcp --root ROOT FLAGS` over its standard input and output."""
    with start_blocking_portal() as portal:
        connecting = _stdio(root, flags, errors or root.parent / "desk-stderr.txt")
        with portal.wrap_async_context_manager(connecting) as session:
            yield Agent(portal, session)


@contextmanager
def http_server(root: Path, *flags: str) -> Iterator[str]:
    """`ledgerpress mcp --http 0` running; yields the endpoint's URL it announces."""
    server = subprocess.Popen([str(LEDGERPRESS), "mcp", "--root", str(root), "--http", "0", *flags],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **_environment(root)})
    try:
        said = []  # whatever comes before the line that names the address (a warning of a dependency, say)
        while not (found := re.search(r" at (http://127\.0\.0\.1:\d+/mcp) ", said[-1] if said else "")):
            said.append(server.stderr.readline())
            assert said[-1] and len(said) < 100, "".join(said)
        yield found[1]
    finally:
        server.terminate()
        server.wait(TIMEOUT)
        server.stderr.close()


@asynccontextmanager
async def _http(url: str) -> AsyncIterator[ClientSession]:
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=TIMEOUT) as session:
            await session.initialize()
            yield session


@contextmanager
def http_agent(url: str) -> Iterator[Agent]:
    """An agent talking to a desk over streamable HTTP."""
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_http(url)) as session:
            yield Agent(portal, session)
