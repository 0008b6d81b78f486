"""The stdio transport's frames, looked at before the SDK reads them: one it cannot parse (a lone surrogate, bytes
that are not UTF-8, JSON nested 100,000 deep, a line past MAX_FRAME) it drops without an answer, and the agent
waits for ever. Each such frame is answered instead, as the HTTP transport answers it (a JSON-RPC error, with the
request's id when one can be read from the frame): the SDK is handed a request for REFUSED in its place, which
the desk's door answers with that error."""

from __future__ import annotations

import io
import json
import re
from typing import Any, BinaryIO, NamedTuple

MAX_FRAME = 8 << 20      # bytes in one line: a story's 1,000,000 bytes, escaped as JSON, fit with room to spare
MAX_FRAME_NESTING = 64   # arrays and objects inside one another (the tools' arguments nest three deep)
REFUSED = "ledgerpress/refused-frame"  # the method of the request a refused frame becomes
PARSE_ERROR, INVALID_REQUEST = -32700, -32600


class Refusal(NamedTuple):
    id: str | int | None
    code: int
    message: str


def refusal(line: bytes) -> Refusal | None:
    """None when the SDK can read this frame; else what to answer it with."""
    if len(line) > MAX_FRAME:
        return Refusal(_id_of(line), INVALID_REQUEST, f"the request is longer than {MAX_FRAME:,} bytes")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        return Refusal(_id_of(line), PARSE_ERROR, f"the request is not UTF-8 (byte {err.start + 1})")
    if _deeper(text, MAX_FRAME_NESTING):
        return Refusal(_id_of(line), PARSE_ERROR, f"the request nests deeper than {MAX_FRAME_NESTING} levels")
    from mcp_types import jsonrpc_message_adapter
    from pydantic import ValidationError

    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        why = f"{first['msg']}" + (f" at {'.'.join(map(str, first['loc']))}" if first.get("loc") else "")
        code = PARSE_ERROR if first.get("type") == "json_invalid" else INVALID_REQUEST
        return Refusal(_id_of(line), code, f"the request cannot be read: {why}"[:300])
    return None


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKET = re.compile(r"[][{}]")


def _deeper(text: str, limit: int) -> bool:
    """Whether arrays and objects nest deeper than limit, outside strings (a count of brackets first: most
    frames hold too few to tell)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        if depth > limit:
            return True
    return False


# The frame's top-level "id", read before any nested value (where JSON-RPC clients write it): the rest of a
# frame that cannot be parsed need not be.
_TOP_ID = re.compile(rb'\s*\{(?:[^{}\[\]"]|"(?:[^"\\]|\\.)*")*?"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\\x00-\x1f]|\\.){0,256}")')


def _id_of(line: bytes) -> str | int | None:
    found = _TOP_ID.match(line[:65536])
    if found is None:
        return None
    try:
        value = json.loads(found[1])
    except ValueError:
        return None
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def substitute(answer: Refusal) -> bytes:
    """The request the SDK reads in a refused frame's place; a frame without an id (a notification, or none
    found) has nothing to answer."""
    if answer.id is None:
        return b""
    request = {"jsonrpc": "2.0", "id": answer.id, "method": REFUSED,
               "params": {"code": answer.code, "message": answer.message}}
    return json.dumps(request, ensure_ascii=True).encode("ascii") + b"\n"


class Frames(io.RawIOBase):
    """The standard input as the SDK reads it: each line checked, a refused one replaced by its substitute."""

    def __init__(self, source: BinaryIO, on_refused: Any = None) -> None:
        self.source, self.pending, self.on_refused = source, b"", on_refused

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self.pending:
            line = self.source.readline(MAX_FRAME + 1)
            if not line:
                return 0
            if len(line) > MAX_FRAME and not line.endswith(b"\n"):
                while (rest := self.source.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass  # the rest of a frame too long to read is dropped as it comes
            found = refusal(line.rstrip(b"\r\n") if len(line) <= MAX_FRAME else line)
            if found is not None and self.on_refused is not None:
                self.on_refused(found)
            self.pending = line if found is None else substitute(found)
        size = min(len(buffer), len(self.pending))
        buffer[:size], self.pending = self.pending[:size], self.pending[size:]
        return size
