"""The desk over MCP's streamable HTTP transport: the SDK's own client gets what it gets over stdio, on
127.0.0.1 only, and a request whose Host or Origin is not that address is refused (MCP's DNS-rebinding rule)."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import base_files, write_tree
from tests.desk_agent import http_agent, http_server
from tests.test_desk import EXPECTED, MISTAKES, MISTAKES_PATH

INITIALIZE = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "test", "version": "1"}}})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("desk-http") / "site", base_files())


@pytest.fixture(scope="module")
def url(site: Path) -> Iterator[str]:
    with http_server(site, "--allow-write") as address:
        yield address


def _post(url: str, headers: dict[str, str]) -> int:
    """POST an initialize request with exactly these extra headers (Host included); the status."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.putrequest("POST", parts.path, skip_host="Host" in headers)
        for name, value in {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                            "Content-Length": str(len(INITIALIZE)), **headers}.items():
            connection.putheader(name, value)
        connection.endheaders(INITIALIZE.encode())
        return connection.getresponse().status
    finally:
        connection.close()


def test_an_agent_over_http_checks_drafts_and_updates(url: str, site: Path):
    with http_agent(url) as agent:
        assert "check_story" in {tool.name for tool in agent.tools()}
        found = agent.call("check_story", text=MISTAKES, path=MISTAKES_PATH)["findings"]
        assert [(f["line"], f["column"], f["code"], f["did_you_mean"]) for f in found] == EXPECTED
        drafted = agent.call("draft_story", title="Night buses return", newsroom="city", beat="policy",
                             date="2026-11-25T08:00:00Z")
        text = drafted["text"].replace('description: ""', 'description: "Night buses run again from Monday."')
        stale = agent.call("update_story", path=drafted["path"], text=text, expected_hash="0" * 32)
        assert stale["error"]["code"] == "stale" and (site / drafted["path"]).read_text() == drafted["text"]
        updated = agent.call("update_story", path=drafted["path"], text=text, expected_hash=drafted["content_hash"])
        assert "error" not in updated and (site / drafted["path"]).read_text() == text
    log = [json.loads(line) for line in (site / ".ledgerpress-cache/desk.log").read_text().splitlines()]
    assert [line["tool"] for line in log] == ["check_story", "draft_story", "update_story", "update_story"]
    assert {line["transport"] for line in log} == {"http"}


def test_only_this_address_may_call_and_only_from_it(url: str):
    address = urlsplit(url).netloc
    port = urlsplit(url).port
    assert urlsplit(url).hostname == "127.0.0.1"
    assert _post(url, {}) == 200
    assert _post(url, {"Host": f"localhost:{port}", "Origin": f"http://localhost:{port}"}) == 200
    assert _post(url, {"Origin": f"http://{address}"}) == 200
    assert _post(url, {"Origin": "http://evil.example"}) == 403
    assert _post(url, {"Origin": "null"}) == 403
    assert _post(url, {"Origin": f"http://127.0.0.1:{port + 1}"}) == 403
    assert _post(url, {"Host": f"evil.example:{port}"}) == 421
    assert _post(url, {"Host": "127.0.0.1"}) == 421
    with pytest.raises(ConnectionRefusedError):  # bound to 127.0.0.1 alone, not to every address
        socket.create_connection(("127.0.0.2", port), timeout=5).close()
