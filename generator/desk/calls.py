"""Every tool call goes through one door: one at a time on the site, logged to .ledgerpress-cache/desk.log with
its arguments' digest, and every refusal (the desk's own, an unknown tool, arguments its schema rejects) answered
in one shape: `{"error": {"code", "message", …}}` with isError set, never a traceback."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

from ..content.layout import CACHE_DIR
from ..content.findings import shown_name
from .errors import DeskError
from .frames import INVALID_REQUEST, REFUSED
from .site import Desk

LOG_NAME = "desk.log"
_logger = logging.getLogger("ledgerpress.desk")


def refusal(error: DeskError) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"{error.code}: {error.message}")],
                          structured_content={"error": error.as_dict()}, is_error=True)


def guarded(desk: Desk, name: str, run: Callable[..., Any]) -> Callable[..., Any]:
    """A tool's function, run alone on the site; what it refuses becomes a refusal, and so does a bug (whose
    traceback goes to the desk's error output, not to the agent)."""

    @functools.wraps(run)
    def call(**arguments: Any) -> Any:
        try:
            with desk.lock:
                return run(**arguments)
        except DeskError as err:
            return refusal(err)
        except OSError as err:  # the site's files, not ledgerpress: a full disk, a file where a folder goes
            named = err.filename if isinstance(err.filename, (str, bytes, os.PathLike)) else None  # not a descriptor
            where = shown_name(os.path.relpath(os.fsdecode(named), desk.root)) if named else "the site"
            return refusal(DeskError("file_system", f"{name} could not read or write {where}: "
                                     f"{err.strerror or err}", path=where))
        except Exception:
            _logger.exception("tool %s failed", name)
            return refusal(DeskError("internal_error", f"{name} failed inside ledgerpress (a bug, not your "
                                     "input; its traceback is in the desk's error output): try another call"))

    return call


def digest(arguments: Any) -> str:
    """The arguments' SHA-256, over their canonical JSON (keys sorted): the log keeps this, not the texts."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class Journal:
    """desk.log: one JSON line per tool call (time, transport, tool, arguments' digest, outcome, milliseconds)."""

    def __init__(self, root: Path, transport: str) -> None:
        self.path = root / CACHE_DIR / LOG_NAME
        self.transport = transport
        self._lock = threading.Lock()

    def record(self, tool: str, arguments: Any, outcome: str, seconds: float) -> None:
        line = json.dumps({"time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds"),
                           "transport": self.transport, "tool": tool, "arguments": digest(arguments),
                           "outcome": outcome, "ms": round(seconds * 1000)}, ensure_ascii=False)
        try:
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as log:
                    log.write(line + "\n")
        except OSError as err:  # the call itself is done: a log that cannot be written must not undo it
            _logger.warning("cannot write %s: %s", self.path, err.strerror)


def door(journal: Journal, arguments_of: Mapping[str, type[BaseModel]]) -> Callable[..., Awaitable[Any]]:
    """Middleware for the server: every `tools/call` is logged, and an error the SDK words (an unknown tool,
    arguments that fail the input schema) is given the desk's shape, with each problem by field.
    `arguments_of`: each tool's arguments as a model (what its input schema says)."""

    async def middleware(ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        if ctx.method == REFUSED:  # a frame the stdio transport could not read (desk/frames.py)
            params = ctx.params if isinstance(ctx.params, Mapping) else {}
            raise MCPError(int(params.get("code", INVALID_REQUEST)), str(params.get("message", "")))
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params if isinstance(ctx.params, Mapping) else {}
        name, arguments = str(params.get("name", "")), params.get("arguments") or {}
        started, outcome = time.monotonic(), "failed"
        try:
            result = await call_next(ctx)
            if isinstance(result, dict) and result.get("isError") and "structuredContent" not in result:
                error = _worded(name, arguments, arguments_of, result)
                result = {**result, "content": [{"type": "text", "text": f"{error.code}: {error.message}"}],
                          "structuredContent": {"error": error.as_dict()}}
            outcome = _outcome(result)
            return result
        finally:
            journal.record(name[:100], arguments, outcome, time.monotonic() - started)

    return middleware


def _worded(name: str, arguments: Any, arguments_of: Mapping[str, type[BaseModel]], result: dict) -> DeskError:
    if name not in arguments_of:
        return DeskError("unknown_tool", f"no tool is named '{name[:60]}': expected one of "
                         f"{', '.join(sorted(arguments_of))}", known=sorted(arguments_of))
    try:
        arguments_of[name].model_validate(arguments)
        problems = []
    except ValidationError as err:
        problems = [{"field": ".".join(str(part) for part in error["loc"]) or "(arguments)", "problem": error["msg"]}
                    for error in err.errors(include_url=False)]
    if problems:
        listed = "; ".join(f"{problem['field']}: {problem['problem']}" for problem in problems[:10])
        return DeskError("invalid_arguments", f"{name}'s arguments do not fit its input schema: {listed}",
                         problems=problems[:10])
    texts = [block.get("text", "") for block in result.get("content") or [] if isinstance(block, dict)]
    return DeskError("invalid_arguments", f"{name} refused its arguments: {' '.join(texts)[:500]}")


def _outcome(result: Any) -> str:
    if not isinstance(result, dict):
        return "ok"
    if not result.get("isError"):
        return "ok"
    error = (result.get("structuredContent") or {}).get("error") or {}
    return f"refused:{error.get('code', 'unknown')}"
