"""Validating parsed data against a model: every pydantic error becomes a finding at the line of its field,
saying what was wrong and what is expected, with an example (not pydantic's own wording)."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from pydantic import BaseModel, ValidationError

from .findings import Finding, Loc, SourceMap, close_match, did_you_mean

# An example value for each field, by its name (the last name in its path), as a user would write it.
EXAMPLES = {
    "title": '"Council funds the Quay Street busway"',
    "description": '"The council approved the busway budget after a year of rising ridership."',
    "published": "2026-11-21T10:30:00Z", "updated": "2026-11-22 (or 2026-11-22T08:00:00Z)",
    "date": "2026-11-22 (or 2026-11-22T08:00:00Z)", "edition": '"2026-11-21T10"',
    "newsroom": "city-desk", "beat": "policy", "trust": "confirmed",
    "ledger": '[{manifest: "1792456955874654825", claims: ["1792457372012113615"]}]',
    "manifest": '"1792456955874654825"', "claims": '["1792457372012113615"]', "cites": '["1792456955874654825"]',
    "key_facts": '[{text: "The vote was 9 to 2.", labels: ["council record"], cites: ["1792456955874654825"]}]',
    "labels": '["council record"]', "text": '"The vote was 9 to 2."', "slug": "council-funds-the-busway",
    "unresolved": '["When construction starts."]', "related": '["2026-11-20/council-backs-the-busway"]',
    "decision_card": '{useful_for: ["Commuters"], not_for: ["Drivers"], compare_against: ["Last year\'s plan"]}',
    "useful_for": '["Commuters on Quay Street"]', "not_for": '["Drivers looking for parking rules"]',
    "compare_against": '["Last year\'s transit plan"]', "draft": "true",
    "corrections": '[{date: 2026-11-22, text: "An earlier version gave the wrong budget.", manifest: "1792456955874654825"}]',
    "waive": '{LP023: "archival source, cited for background"}',
    "id": '"1792456955874654825"', "source": '{"name": "council-minutes", "url": "https://council.example.org/minutes/11"}',
    "name": '"council-minutes"', "url": '"https://council.example.org/minutes/11"', "brief": '"One paragraph on the record."',
    "retracted": '{"date": "2026-11-28T09:00:00Z", "note": "The council corrected its minutes."}', "note": '"Withdrawn by the source."',
    "authors": '["ana-lima"]', "image": '{src: "ferry-road.jpg", alt: "Buses queue on Ferry Road", credit: "Ana Lima"}',
    "src": '"ferry-road.jpg"', "alt": '"Buses queue on Ferry Road"', "credit": '"Ana Lima"', "caption": '"Ferry Road at 8 a.m."',
}
# The same for manifest files, in JSON.
MANIFEST_EXAMPLES = {
    "id": '"1792456955874654825"', "title": '"Council minutes, November session"',
    "source": '{"name": "council-minutes", "url": "https://council.example.org/minutes/11"}',
    "name": '"council-minutes"', "url": '"https://council.example.org/minutes/11"', "published": '"2026-11-20T09:00:00Z"',
    "date": '"2026-11-28T09:00:00Z"', "brief": '"One paragraph on what the record is."',
    "claims": '[{"id": "1792457372012113615", "text": "The vote was 9 to 2."}]', "text": '"The vote was 9 to 2."',
    "retracted": '{"date": "2026-11-28T09:00:00Z", "note": "The council corrected its minutes."} (a claim: true)',
    "note": '"The council corrected its minutes."',
}
_KINDS = {
    "string_type": "text", "list_type": "a list", "dict_type": "a mapping of fields", "model_type": "a mapping of fields",
    "model_attributes_type": "a mapping of fields", "bool_type": "true or false", "bool_parsing": "true or false",
    "too_short": "at least one entry", "string_too_short": "non-empty text",
    "int_type": "a whole number", "float_type": "a number",
}
_FORMS = {"url": "an http or https URL", "slug": "a slug (lower-case letters and digits joined by single hyphens)",
          "authors": "an author slug (lower-case letters and digits joined by single hyphens)",
          "email": "an email address",
          "edition": "an edition (YYYY-MM-DDTHH, or YYYY-MM-DD when editions are days)",
          "waive": "a rule code (LP and three digits)"}
_DATES = ("timezone_aware", "datetime_parsing", "datetime_type", "datetime_from_date_parsing", "date_from_datetime_parsing",
          "date_parsing", "date_type", "date_from_datetime_inexact", "datetime_object_invalid")
_UNION_TAGS = ("datetime", "date", "str", "bool", "int")


def _matches(loc: Loc, pattern: tuple) -> bool:
    return len(loc) == len(pattern) and all(
        isinstance(part, want) if isinstance(want, type) else part == want for part, want in zip(loc, pattern)
    )


def _is_id(loc: Loc, id_locs: tuple) -> bool:
    return any(_matches(loc[: len(pattern)], pattern) for pattern in id_locs if len(loc) >= len(pattern))


def validate(model: type[BaseModel], data: Any, source: SourceMap, id_locs: tuple,
             examples: dict[str, str] | None = None, context: dict[str, Any] | None = None) -> tuple[Any, list[Finding]]:
    """The model, or findings at the line of every field that failed (LP002, LP003, LP004); `examples`: the
    example value of each field as the file's own syntax writes it (YAML front matter by default); `context`:
    the site's settings a field's validator reads (the edition's form)."""
    try:
        value = model.model_validate(data, context=context)
    except ValidationError as err:
        shown = examples or EXAMPLES
        findings = _dedupe([_error_finding(model, e, source, id_locs, shown) for e in err.errors()])
        as_written = _ids_as_written(data, err, source, id_locs)
        if as_written is None:
            return None, findings
        try:  # only ids written without quotes were wrong: read on with them as written (LP004 says so), so
            value = model.model_validate(as_written, context=context)  # that no other finding waits a run
        except ValidationError:
            return None, findings
        return value, findings
    unquoted = [loc for loc, quoted in source.quoted.items() if not quoted and _is_id(loc, id_locs)]
    return value, [source.finding(loc, "LP004", f"{_dotted(loc)}: id must be a quoted string: expected "
                                  f"\"{_value_at(data, loc)}\" (YAML reads unquoted digits as a number, 0123 as 83)") for loc in unquoted]


def _ids_as_written(data: Any, err: ValidationError, source: SourceMap, id_locs: tuple) -> Any:
    """data with each id YAML read as a number (digits written without quotes) put back as the text written,
    when those are all the errors; None otherwise."""
    places = []
    for error in err.errors():
        loc = field_loc(tuple(error["loc"]))
        if not (_is_id(loc, id_locs) and error["type"] == "string_type" and loc in source.plain):
            return None
        places.append(loc)
    copied = copy.deepcopy(data)
    for loc in places:
        holder = copied
        for part in loc[:-1]:
            holder = holder[part]
        holder[loc[-1]] = source.plain[loc]
    return copied


def _value_at(data: Any, loc: Loc) -> Any:
    for part in loc:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return "…"
    return data


def _error_finding(model: type[BaseModel], error: dict, source: SourceMap, id_locs: tuple,
                   examples: dict[str, str]) -> Finding:
    loc = field_loc(tuple(error["loc"])) + tuple((error.get("ctx") or {}).get("at", ()))
    kind = error["type"]
    if kind == "extra_forbidden" and error["loc"] and loc[-1:] != tuple(error["loc"][-1:]):
        loc = (*loc, error["loc"][-1])  # the unknown key as written, whatever it holds ('[' looks like a tag)
    name = _dotted(loc)
    if kind == "extra_forbidden":
        return source.finding(loc, "LP003", f"unknown field '{name}'{_suggest(model, loc)}: expected one of "
                                            f"{', '.join(_fields(model, loc))}")
    if kind == "missing":
        return source.finding(loc, "LP002", f"required field '{name}' is missing: expected e.g. {_example(loc, examples)}")
    if _is_id(loc, id_locs):
        shown = repr(error.get("input"))
        why = "is not a quoted string" if kind == "string_type" else "does not match ^[A-Za-z0-9_-]{1,64}$"
        return source.finding(loc, "LP004", f"{name}: id {shown} {why}: expected 1-64 letters, digits, '_' or '-' "
                                            "in quotes (YAML reads unquoted digits as a number, 0123 as 83), "
                                            "e.g. \"1792456955874654825\"")
    return source.finding(loc, "LP002", _problem(name, kind, error, _example(loc, examples)))


def field_loc(loc: Loc) -> Loc:
    """The field's own path, without pydantic's tags: union members ('datetime', 'DecisionCard'), '[key]'."""
    kept: list[str | int] = []
    for at, part in enumerate(loc):
        key = at + 1 < len(loc) and loc[at + 1] == "[key]"  # a mapping's key, as the user wrote it
        tag = isinstance(part, str) and not key and (
            "[" in part or (part[:1].isupper() and not part.isupper()) or (part in _UNION_TAGS and bool(kept) and isinstance(kept[-1], str)))
        if not tag:
            kept.append(part)
    return tuple(kept)


def _problem(name: str, kind: str, error: dict, example: str) -> str:
    """What was wrong with the value and what is expected instead, with an example."""
    value = error.get("input")
    shown = _shown(value)
    if kind == "timezone_aware":
        at = _naive(value)
        return (f"{name}: {shown} has no time zone: expected ISO 8601 with one, e.g. {at}Z (UTC) or {at}+02:00 "
                "(two hours ahead of UTC)")
    if kind in _DATES:
        why = error["msg"].split(", ", 1)[1] if "outside expected range" in error["msg"] else ""
        return (f"{name}: {shown} is not a date and time{f' ({why})' if why else ''}: expected ISO 8601 with a time "
                f"zone, e.g. {example}")
    if kind == "string_pattern_mismatch":
        form = next((form for field, form in _FORMS.items() if field in name.split(".")), "in the expected form")
        return f"{name}: {shown} is not {form}: expected e.g. {example}"
    if kind == "string_too_long":
        return f"{name} is {len(str(value))} characters long: expected at most {error['ctx']['max_length']}"
    if kind == "value_error" or "at" in (error.get("ctx") or {}):
        return f"{name}: {error['msg'].removeprefix('Value error, ')}"
    if kind in ("too_short", "string_too_short"):
        return f"{name} is empty: expected {_KINDS[kind]}, e.g. {example}"
    if kind in _KINDS:
        return f"{name}: {shown} is not {_KINDS[kind]}: expected e.g. {example}"
    return f"{name}: {shown} is not valid ({error['msg'].lower()}): expected e.g. {example}"


def _naive(value: Any) -> str:
    """A date and time without a zone as ISO 8601 writes it whole (a day alone is its midnight): what a zone is
    added to, so that the example given is itself a value the field accepts."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return f"{value.isoformat()}T00:00:00"
    try:
        return dt.datetime.fromisoformat(str(value).strip()).replace(tzinfo=None).isoformat(timespec="seconds")
    except ValueError:
        return "2026-11-21T10:30:00"


def _shown(value: Any) -> str:
    if isinstance(value, dt.date):
        value = value.isoformat()
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 40 else text[:39] + "…"


def _example(loc: Loc, examples: dict[str, str]) -> str:
    """The field's example as the file writes it: `name: value` (YAML) or `"name": value` (JSON)."""
    name = next((part for part in reversed(loc) if isinstance(part, str) and part in examples), "")
    example = examples.get(name, '"…"')
    if not name or isinstance(loc[-1], int):
        return example
    return f'"{name}": {example}' if examples is MANIFEST_EXAMPLES else f"{name}: {example}"


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """A union field fails once per member type; report each place once."""
    seen: dict[tuple, Finding] = {}
    for finding in findings:
        seen.setdefault((finding.line, finding.col, finding.code), finding)
    return list(seen.values())


def _dotted(loc: Loc) -> str:
    return ".".join(str(part) for part in loc)


def _fields(model: type[BaseModel], loc: Loc) -> list[str]:
    """The fields allowed where an unknown one was found."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or current is None:
            continue
        field = current.model_fields.get(part) if hasattr(current, "model_fields") else None
        current = _model_of(field.annotation) if field else None
    return list(current.model_fields) if current is not None and hasattr(current, "model_fields") else []


def _model_of(annotation: Any) -> Any:
    """The model a field holds, itself or in a list or optional."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        if (found := _model_of(arg)) is not None:
            return found
    return None


def _suggest(model: type[BaseModel], loc: Loc) -> str:
    """A hint for typos: 'titel' -> 'title', 'key_facts.0.cite' -> 'cites'."""
    return did_you_mean(close_match(str(loc[-1]), _fields(model, loc)))
