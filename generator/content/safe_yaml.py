"""YAML to data, with the line and column of every node and whether each scalar was quoted, bounded: no alias
and no nesting past MAX_NESTING. A few hundred bytes of aliases expand to gigabytes (PyYAML's constructor
copies nothing, but everything that walks the result does), and libyaml's composer recurses once per level
(a 60 KB list of lists crashes the process), so both are refused, as an LP001 at their place, before the
composer or anything else sees them."""

from __future__ import annotations

import re
from typing import Any

import yaml

from .findings import Finding, Loc, SourceMap
from .limits import MAX_NESTING, MAX_NUMBER_DIGITS

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_INT = "tag:yaml.org,2002:int"
_INDENT = re.compile(r"\n +")
_COMPACT = re.compile(r"(?:[-?:][ \t]+){2,}")  # `- - - x`: block collections nested on one line
_TWO = re.compile(r"[-?:][ \t]+[-?:][ \t]")  # (a quick search for the first two of those)


class _Refused(Exception):
    """The document is refused at this place (a libyaml mark, or a (line, column) of the file), for this reason."""

    def __init__(self, place: Any, reason: str) -> None:
        super().__init__(reason)
        self.place, self.reason = place, reason

    def finding(self, shown: str, offset: int) -> Finding:
        if isinstance(self.place, tuple):
            return Finding(shown, *self.place, "LP001", self.reason)
        return _at(shown, offset, self.place, self.reason)


def parse_yaml(text: str, shown: str, offset: int) -> tuple[Any, SourceMap, list[Finding]]:
    """YAML to data, with the line and column of every node (lines counted after `offset` lines) and whether
    each scalar was quoted; any problem is an LP001 at its place, and then no data."""
    source = SourceMap(shown)
    loader = LOADER(text)
    findings: list[Finding] = []
    try:
        if nesting_bound(text) > MAX_NESTING:
            _scan(loader)
            loader.dispose()
            loader = LOADER(text)
        node = loader.get_single_node()
        if node is not None:
            _record(node, (), source, offset, findings, 0, set() if "*" in text else None)
        data = _constructed(node, loader) if node is not None else None
    except _Refused as refused:
        return None, source, [refused.finding(shown, offset)]
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        fix = _fix(text, mark) if mark is not None else None
        if fix is not None:
            return None, source, [_at(shown, offset, mark, f"front matter is not valid YAML: {fix}")]
        problem = err.problem or err.context or "invalid YAML"
        if err.context and err.context_mark and err.problem_mark:
            start = err.context_mark
            problem += f" ({err.context} that starts at {offset + start.line + 1}:{start.column + 1})"
        return None, source, [_at(shown, offset, err.problem_mark or err.context_mark,
                                  f"front matter is not valid YAML: {problem}")]
    except (yaml.YAMLError, ValueError, OverflowError, TypeError) as err:  # the safe constructor's own failures
        return None, source, [Finding(shown, offset + 1, 1, "LP001", f"front matter is not valid YAML: {err}")]
    finally:
        loader.dispose()
    return data, source, findings


_FIELD = re.compile(r"(\s*(?:- )?[\w-]+):[ \t]+(.*?)\s*")


def _fix(text: str, mark: Any) -> str | None:
    """The common mistakes, said as their fix rather than in the parser's words: a tab, a value holding ': '
    unquoted, a quotation mark inside a value in the same marks."""
    lines = text.split("\n")
    line = lines[mark.line] if mark.line < len(lines) else ""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" in indent or line[mark.column:mark.column + 1] == "\t":  # (a tab inside a quoted value is text)
        return "a tab: YAML indents and separates with spaces only: expected spaces in its place"
    field = _FIELD.fullmatch(line)
    if field is None:
        return None
    key, value = field[1], field[2]
    if value[:1] == '"' and value.count('"') > 2 and mark.column > len(key) + 2:
        inner = value[1:-1] if value.endswith('"') else value[1:]
        example = f"'{inner}'" if "'" not in inner else '"' + inner.replace('"', '\\"') + '"'
        return (f"a quotation mark inside a value in quotation marks ends it early: expected the value in single "
                f"quotes, or each inner mark written \\\", e.g. {key.strip()}: {example}")
    if value[:1] not in ('"', "'", "[", "{") and ": " in value:
        quoted = value.replace("\\", "\\\\").replace('"', '\\"')
        return (f"the value of '{key.strip().removeprefix('- ')}' holds ': ', which YAML reads as a new field: expected "
                f'the value in quotation marks, e.g. {key.strip()}: "{quoted}"')
    return None


def _at(shown: str, offset: int, mark: Any, message: str) -> Finding:
    line, col = (offset + mark.line + 1, mark.column + 1) if mark is not None else (offset + 1, 1)
    return Finding(shown, line, col, "LP001", message)


def nesting_bound(text: str) -> int:
    """A bound on how deep lists and mappings nest in text, without parsing it: one level per flow bracket,
    two per column of indentation (a list may share its mapping's column), and one per indicator of a
    collection nested on one line. Quoted text only makes it larger."""
    indent = max(map(len, _INDENT.findall("\n" + text)), default=0)
    compact = max(map(len, _COMPACT.findall(text)), default=0) if _TWO.search(text) else 2
    return text.count("[") + text.count("{") + 2 * (indent + 1) + compact // 2 + 1


def _scan(loader: Any) -> None:
    """Refuse an alias or nesting past MAX_NESTING, found in libyaml's event stream (which keeps its own
    stack and builds nothing): what parse_yaml runs first when nesting_bound cannot rule them out."""
    depth = 0
    while (event := _next_event(loader)) is not None and not isinstance(event, yaml.StreamEndEvent):
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(event.start_mark, f"an alias (*{event.anchor}) is not allowed here: write the value out")
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_NESTING:
                raise _Refused(event.start_mark, f"lists and mappings are nested deeper than {MAX_NESTING} levels")
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


def _next_event(loader: Any) -> Any:
    """The next event; libyaml's scanner runs ahead of the events (a flow bracket may open a key) and, from
    PyYAML 6.0.3, refuses a thousand levels itself: the same refusal, in our words."""
    try:
        return loader.get_event()
    except yaml.MarkedYAMLError as err:
        if "nesting depth" not in str(err.problem):
            raise
        raise _Refused(err.problem_mark, f"lists and mappings are nested deeper than {MAX_NESTING} levels") from None


def _record(node: yaml.Node, loc: Loc, source: SourceMap, offset: int, findings: list[Finding], depth: int,
            seen: set[int] | None) -> None:  # (a walk down the tree: where it is, and what it fills, at each call)
    """Fill the source map for node and its children; a key given twice is LP001. A node met twice (the
    composer shares the node an alias names; `seen` is kept when the text has a '*') or nested past
    MAX_NESTING refuses the document."""
    mark = node.start_mark
    if depth > MAX_NESTING:
        raise _Refused(mark, f"lists and mappings are nested deeper than {MAX_NESTING} levels")
    if seen is not None:
        _once(node, source.at(loc), seen)
    source.marks.setdefault(loc, (offset + mark.line + 1, mark.column + 1))
    if isinstance(node, yaml.ScalarNode):
        source.quoted[loc] = node.style in ("'", '"')
        if node.tag != _STR and len(node.value) <= 64:  # (an id written unquoted is read on, as written)
            source.plain[loc] = node.value
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record(item, (*loc, index), source, offset, findings, depth + 1, seen)
    elif isinstance(node, yaml.MappingNode):
        names: set[str] = set()
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else str(key.value)
            where = (offset + key.start_mark.line + 1, key.start_mark.column + 1)
            if name in names:
                findings.append(Finding(source.path, *where, "LP001", f"key '{name}' is given twice"))
            names.add(name)
            if seen is not None:
                _once(key, where, seen)
            source.marks[(*loc, name)] = where
            _record(value, (*loc, name), source, offset, findings, depth + 1, seen)


def _once(node: yaml.Node, where: tuple[int, int], seen: set[int]) -> None:
    """The composer gives an alias the very node its anchor named: a node met twice is an alias."""
    if id(node) in seen:
        raise _Refused(where, "an alias (*name) is not allowed here: write the value out")
    seen.add(id(node))


def _constructed(node: yaml.Node, loader: Any) -> Any:
    """What loader.construct_document(node) gives, built directly for plain mappings, lists and scalars (the
    safe constructor's generators cost more than the parse); anything else (merge keys, other tags, keys
    that are not scalars) goes through the constructor itself."""
    try:
        return _built(node, loader)
    except _Unusual:
        return loader.construct_document(node)


class _Unusual(Exception):
    pass


def _built(node: yaml.Node, loader: Any) -> Any:
    if isinstance(node, yaml.ScalarNode):
        if node.tag == _STR:
            return node.value
        if node.tag == _INT and len(node.value) > MAX_NUMBER_DIGITS:
            # no field is a long number, and 0x… or 1:2:… pass Python's digit limit until a message prints them
            raise _Refused(node.start_mark, f"front matter is not valid YAML: {node.value[:20]!r}… is a number of "
                                            f"{len(node.value):,} characters (the limit is {MAX_NUMBER_DIGITS})")
        try:
            return loader.construct_object(node)
        except (ValueError, OverflowError) as err:  # a 13th month, an integer of 5,000 digits
            kind = node.tag.rsplit(":", 1)[-1]
            if kind == "timestamp":
                return node.value  # (a day that does not exist is the field's to refuse, as not a date)
            raise _Refused(node.start_mark, f"front matter is not valid YAML: {node.value[:40]!r} is not a valid "
                                            f"{kind} ({err})") from None
    if isinstance(node, yaml.MappingNode) and node.tag == _MAP:
        mapping = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag not in (_STR, _INT):
                raise _Unusual
            mapping[_built(key, loader)] = _built(value, loader)
        return mapping
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
        return [_built(item, loader) for item in node.value]
    raise _Unusual
