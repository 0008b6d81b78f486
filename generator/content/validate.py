"""Validating parsed data against a model: every pydantic error becomes a finding at the line of its field."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ValidationError

from .findings import Finding, Loc, SourceMap


def _matches(loc: Loc, pattern: tuple) -> bool:
    return len(loc) == len(pattern) and all(
        isinstance(part, want) if isinstance(want, type) else part == want for part, want in zip(loc, pattern)
    )


def _is_id(loc: Loc, id_locs: tuple) -> bool:
    return any(_matches(loc[: len(pattern)], pattern) for pattern in id_locs if len(loc) >= len(pattern))


def validate(model: type[BaseModel], data: Any, source: SourceMap, id_locs: tuple) -> tuple[Any, list[Finding]]:
    """The model, or findings at the line of every field that failed (LP002, LP003, LP004)."""
    try:
        value = model.model_validate(data)
    except ValidationError as err:
        return None, _dedupe([_error_finding(model, e, source, id_locs) for e in err.errors()])
    unquoted = [loc for loc, quoted in source.quoted.items() if not quoted and _is_id(loc, id_locs)]
    return value, [source.finding(loc, "LP004", f"{_dotted(loc)}: id must be a quoted string") for loc in unquoted]


def _error_finding(model: type[BaseModel], error: dict, source: SourceMap, id_locs: tuple) -> Finding:
    loc = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        return source.finding(loc, "LP003", f"unknown field '{_dotted(loc)}'{_suggest(model, loc)}")
    if kind == "missing":
        return source.finding(loc, "LP002", f"required field '{_dotted(loc)}' is missing")
    if _is_id(loc, id_locs):
        shown = repr(error.get("input"))
        why = "is not a quoted string" if kind == "string_type" else "does not match ^[A-Za-z0-9_-]{1,64}$"
        return source.finding(loc, "LP004", f"{_dotted(loc)}: id {shown} {why}")
    return source.finding(loc, "LP002", f"{_dotted(loc)}: {error['msg']}")


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """A union field fails once per member type; report each place once."""
    seen: dict[tuple, Finding] = {}
    for finding in findings:
        seen.setdefault((finding.line, finding.col, finding.code), finding)
    return list(seen.values())


def _dotted(loc: Loc) -> str:
    return ".".join(str(part) for part in loc if not (isinstance(part, str) and part[:1].isupper()))


def _suggest(model: type[BaseModel], loc: Loc) -> str:
    """A hint for top-level typos: 'titel' -> 'title'."""
    if len(loc) != 1:
        return ""
    close = difflib.get_close_matches(str(loc[0]), list(model.model_fields), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""
