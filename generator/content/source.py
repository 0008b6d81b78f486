"""Reading a content file: bytes to text (LP001 at the first byte that is not UTF-8), the front-matter block, and YAML with the line and column of every node."""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any

import frontmatter
import yaml

from .findings import Finding, Loc, SourceMap

_HANDLER = frontmatter.YAMLHandler()


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_text(path: str | Path, shown: str, data: bytes | None = None) -> tuple[str | None, list[Finding]]:
    """The file (or its bytes, already read) as text, or an LP001 at the first byte that is not UTF-8."""
    if data is None:
        with open(path, "rb") as source:
            data = source.read()
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), []
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        return None, [Finding(shown, line, col, "LP001", f"file is not UTF-8 ({err.reason} at byte {err.start})")]


def split_front_matter(text: str) -> tuple[str, int, str, int] | None:
    """(front matter, its line offset, body, its line offset), or None without a front-matter block."""
    if not _HANDLER.detect(text):
        return None
    bounds = list(itertools.islice(_HANDLER.FM_BOUNDARY.finditer(text), 2))  # not every rule in the body
    if len(bounds) < 2 or bounds[0].start() != 0:
        return None
    first, second = bounds[0], bounds[1]
    front = text[first.end(): second.start()]
    body = text[second.end():]
    return front, text[: first.end()].count("\n"), body, text[: second.end()].count("\n")


def parse_yaml(text: str, shown: str, offset: int) -> tuple[Any, SourceMap, list[Finding]]:
    """YAML to data, with the line and column of every node and whether each scalar was quoted."""
    source = SourceMap(shown)
    loader = _LOADER(text)
    try:
        node = loader.get_single_node()
        data = _constructed(node, loader) if node is not None else None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        line, col = (offset + mark.line + 1, mark.column + 1) if mark else (offset + 1, 1)
        problem = err.problem or err.context or "invalid YAML"
        if err.context and err.context_mark and err.problem_mark:
            start = err.context_mark
            problem += f" ({err.context} that starts at {offset + start.line + 1}:{start.column + 1})"
        return None, source, [Finding(shown, line, col, "LP001", f"front matter is not valid YAML: {problem}")]
    except yaml.YAMLError as err:
        return None, source, [Finding(shown, offset + 1, 1, "LP001", f"front matter is not valid YAML: {err}")]
    finally:
        loader.dispose()
    findings: list[Finding] = []
    if node is not None:
        _record(node, (), source, offset, findings)
    return data, source, findings


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"


def _constructed(node: yaml.Node, loader: yaml.BaseLoader) -> Any:
    """What loader.construct_document(node) gives, built directly for plain mappings, lists and scalars (the
    safe constructor's generators cost more than the parse); anything else (merge keys, other tags, keys
    that are not scalars) goes through the constructor itself."""
    try:
        return _built(node, loader)
    except _Unusual:
        return loader.construct_document(node)


class _Unusual(Exception):
    pass


def _built(node: yaml.Node, loader: yaml.BaseLoader) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return node.value if node.tag == _STR else loader.construct_object(node)
    if isinstance(node, yaml.MappingNode) and node.tag == _MAP:
        mapping = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag not in (_STR, "tag:yaml.org,2002:int"):
                raise _Unusual
            mapping[_built(key, loader)] = _built(value, loader)
        return mapping
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ:
        return [_built(item, loader) for item in node.value]
    raise _Unusual


def _record(node: yaml.Node, loc: Loc, source: SourceMap, offset: int, findings: list[Finding]) -> None:
    """Fill the source map for node and its children; a key given twice is LP001."""
    mark = node.start_mark
    source.marks.setdefault(loc, (offset + mark.line + 1, mark.column + 1))
    if isinstance(node, yaml.ScalarNode):
        source.quoted[loc] = node.style in ("'", '"')
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _record(item, (*loc, index), source, offset, findings)
    elif isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else str(key.value)
            where = (offset + key.start_mark.line + 1, key.start_mark.column + 1)
            if name in seen:
                findings.append(Finding(source.path, *where, "LP001", f"key '{name}' is given twice"))
            seen.add(name)
            source.marks[(*loc, name)] = where
            _record(value, (*loc, name), source, offset, findings)


def listed(folder: str | Path, suffix: str = "", dirs: bool = False) -> list[str]:
    """The sorted names of the files (or folders) in folder ending in suffix, hidden ones left out."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if not entry.name.startswith(".")
                          and entry.name.endswith(suffix) and (entry.is_dir() if dirs else entry.is_file()))
    except OSError:
        return []


def front_matter(path: Path, shown: str, data: bytes | None = None) -> tuple[tuple | None, list[Finding]]:
    """(data, source map, body, body line) of a Markdown file with front matter."""
    text, findings = read_text(path, shown, data)
    if text is None:
        return None, findings
    parts = split_front_matter(text)
    if parts is None:
        return None, [Finding(shown, 1, 1, "LP001", "no front matter: the file must start with a '---' line")]
    front, front_line, body, body_line = parts
    data, source, findings = parse_yaml(front, shown, front_line)
    if data is not None and not isinstance(data, dict):
        findings.append(Finding(shown, front_line + 1, 1, "LP002", "front matter must be a mapping of fields"))
    return (data if isinstance(data, dict) else None, source, body, body_line), findings
