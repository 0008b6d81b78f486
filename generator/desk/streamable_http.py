"""The desk over MCP's streamable HTTP transport: on 127.0.0.1 only, and every request's Host and Origin checked
against this address (the SDK's DNS-rebinding guard: a wrong Host is 421, a foreign Origin 403)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import anyio
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings

from .server import make_server
from .site import Desk

HOST = "127.0.0.1"
PATH = "/mcp"


def listening(port: int) -> socket.socket:
    """The socket, bound before the server starts (so that port 0 gives a port the guard can name)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def guard(port: int) -> TransportSecuritySettings:
    """Only requests addressed to this loopback port, from no page or a page of this address."""
    hosts = [f"{HOST}:{port}", f"localhost:{port}"]
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=hosts,
                                     allowed_origins=[f"http://{host}" for host in hosts])


def serve_http(desk: Desk, sock: socket.socket, ready: Callable[[str], None]) -> None:
    """Serve until interrupted; `ready` is told the endpoint's URL once the server is up."""
    port = sock.getsockname()[1]
    app = make_server(desk, "http").streamable_http_app(streamable_http_path=PATH, transport_security=guard(port),
                                                        host=HOST)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))

    async def run() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(server.serve, [sock])
            while not server.started:
                if server.should_exit:
                    return
                await anyio.sleep(0.02)
            ready(f"http://{HOST}:{port}{PATH}")

    anyio.run(run)
