"""The stdio desk answers every frame it cannot read: a lone surrogate, bytes that are not UTF-8, JSON nested
100,000 deep, a line past MAX_FRAME each got no answer, and the agent waited for ever (the HTTP transport
answers 400). Each is answered with a JSON-RPC error bearing the request's id, and the desk goes on."""

from __future__ import annotations

import io
import json
import select
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types import jsonrpc_message_adapter

from generator.desk.frames import MAX_FRAME, MAX_FRAME_NESTING, PARSE_ERROR, Frames, Refusal, refusal
from tests.commands import LEDGERPRESS
from tests.conftest import base_files, write_tree

CALL = b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read_story","arguments":{"path":%s}}}'
HOSTILE = {
    "lone surrogate": CALL % (2, b'"\\ud800"'),
    "not UTF-8": CALL % (3, b'"\xff\xfe"'),
    "nested 100,000 deep": CALL % (4, b"[" * 100_000 + b"]" * 100_000),
    "longer than a frame": CALL % (5, b'"' + b"a" * MAX_FRAME + b'"'),
}


def _id(line: bytes) -> int:
    return int(line.split(b'"id":', 1)[1].split(b",", 1)[0])


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_each_unreadable_frame_is_refused_with_its_id(name: str):
    found = refusal(HOSTILE[name])
    assert found is not None and found.id == _id(HOSTILE[name])
    assert found.code in (PARSE_ERROR, -32600) and found.message


def test_a_readable_frame_is_left_to_the_sdk_and_a_deep_one_is_counted_outside_strings():
    assert refusal(CALL % (1, b'"content/stories/2026-11-21/a.md"')) is None
    shallow = CALL % (6, json.dumps("[" * 5000 + "{" * 5000).encode())  # brackets in a string nest nothing
    assert refusal(shallow) is None
    nested = b"[" * (MAX_FRAME_NESTING - 3) + b"]" * (MAX_FRAME_NESTING - 3)  # in three levels of the frame
    assert refusal(CALL % (7, nested)) is None and refusal(CALL % (7, b"[" + nested + b"]")) is not None


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.text(max_size=300).map(lambda text: text.encode("utf-8", "surrogatepass")),
                 st.builds(lambda ident, text: CALL % (ident, json.dumps(text).encode()), st.integers(0, 10**6),
                           st.text(max_size=100))))
def test_the_frame_check_and_the_sdk_agree_on_any_bytes(line: bytes):
    """A frame let through is one the SDK reads; one refused, one it would have dropped unanswered."""
    found = refusal(line)
    try:
        jsonrpc_message_adapter.validate_json(line.decode("utf-8"), by_name=False)
        readable = True
    except Exception:  # noqa: BLE001 (whatever the SDK's parse raises, it drops the frame)
        readable = False
    assert (found is None) == readable
    assert found is None or isinstance(found, Refusal)


def test_frames_replace_a_refused_line_by_its_substitute_and_pass_the_rest():
    good = CALL % (1, b'"x"')
    source = io.BytesIO(good + b"\n" + HOSTILE["not UTF-8"] + b"\n\n" + b"garbage\n" + good + b"\n")
    lines = io.BufferedReader(Frames(source)).read().splitlines()
    assert lines[0] == good and lines[-1] == good and len(lines) == 3
    assert json.loads(lines[1])["id"] == 3 and json.loads(lines[1])["params"]["code"] == PARSE_ERROR


def test_the_stdio_desk_answers_every_frame_it_cannot_read(tmp_path: Path):
    root = write_tree(tmp_path / "site", base_files())
    desk = subprocess.Popen([str(LEDGERPRESS), "mcp", "--root", str(root)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    answers = select.poll()  # (not select(): a long test run holds descriptors past its limit of 1024)
    answers.register(desk.stdout, select.POLLIN)

    def ask(line: bytes) -> dict:
        desk.stdin.write(line + b"\n")
        desk.stdin.flush()
        if not answers.poll(30_000):
            raise AssertionError(f"no answer to {line[:80]!r}")
        return json.loads(desk.stdout.readline())

    try:
        ask(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).encode())
        desk.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for name, line in sorted(HOSTILE.items()):
            answer = ask(line)
            assert answer["id"] == _id(line) and answer["error"]["code"] in (PARSE_ERROR, -32600), (name, answer)
        assert "tools" in ask(b'{"jsonrpc":"2.0","id":9,"method":"tools/list"}')["result"]
    finally:
        desk.stdin.close()
        desk.wait(timeout=30)
