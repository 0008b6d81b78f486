"""Read content/ into models; every problem with a file becomes a finding at its line and column."""

from __future__ import annotations

import difflib
import functools
import hashlib
import itertools
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import frontmatter
import yaml
from pydantic import BaseModel, ValidationError

from .config import CONFIG_NAME, SiteConfig, load_config
from .models import (
    FrontMatter, Finding, Loc, Manifest, ManifestFile, Page, PageMatter, SourceMap, Story, StoryFile,
)

_HANDLER = frontmatter.YAMLHandler()
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STORY_ID_LOCS = (("ledger", int, "manifest"), ("ledger", int, "claims", int), ("key_facts", int, "cites", int))
_MANIFEST_ID_LOCS = (("id",), ("claims", int, "id"))


@dataclass
class Content:
    """Everything read from one site root, and what was wrong with it."""

    root: Path
    config: SiteConfig | None
    manifests: dict[str, ManifestFile] = field(default_factory=dict)
    stories: list[Story] = field(default_factory=list)
    broken: list[StoryFile] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    manifest_files: dict[str, tuple] = field(default_factory=dict)  # shown path -> (stat, what loading it gave)


def load_content(root: Path, drafts: bool = True, base_url: str | None = None, stories: bool = True,
                 known: dict[str, tuple] | None = None, stamps: Mapping[str, Sequence] | None = None) -> Content:
    """Read site.toml, manifests, stories (unless the caller loads them itself) and pages under root/content.
    `known`: the manifest_files of an earlier load; a manifest whose file has the same stat is not read again
    (the stat as `stamps`, a scan's by shown path, gives it, else as the file has it now)."""
    content_dir = root / "content"
    config, findings = load_config(content_dir / CONFIG_NAME, base_url, f"content/{CONFIG_NAME}")
    found = Content(root, config, findings=findings)
    manifests = os.path.join(content_dir, "manifests")
    for name in _names(manifests, ".json"):
        path, shown = os.path.join(manifests, name), f"content/manifests/{name}"
        scanned = stamps.get(shown) if stamps else None
        stamp = (scanned[0], scanned[1]) if scanned is not None else _stamp(path)
        before = known.get(shown) if known else None
        loaded = before[1] if before is not None and stamp is not None and before[0] == stamp else load_manifest(path, shown)
        found.manifest_files[shown] = (stamp, loaded)
        _add(found, loaded)
    for path, shown in story_files(root) if stories else []:
        _add(found, load_story(path, shown))
    for path in sorted((content_dir / "pages").glob("**/*.md")):
        _add(found, load_page(path, _shown(root, path), content_dir / "pages"))
    if not drafts:
        found.stories = [story for story in found.stories if not story.meta.draft]
    return found


def story_files(root: Path) -> list[tuple[str, str]]:
    """(path, path as shown) of every story file (content/stories/<folder>/<name>.md), by folder, then name.
    Strings, not Paths: a large site has tens of thousands, and each build lists them all."""
    top = os.path.join(root, "content", "stories")
    return [(f"{top}{os.sep}{folder}{os.sep}{name}", f"content/stories/{folder}/{name}")  # os.path.join costs more
            for folder in _names(top, dirs=True) for name in _names(f"{top}{os.sep}{folder}", ".md")]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _names(folder: str | Path, suffix: str = "", dirs: bool = False) -> list[str]:
    """The sorted names of the files (or folders) in folder ending in suffix, hidden ones left out."""
    try:
        with os.scandir(folder) as entries:
            return sorted(entry.name for entry in entries if not entry.name.startswith(".")
                          and entry.name.endswith(suffix) and (entry.is_dir() if dirs else entry.is_file()))
    except OSError:
        return []


def add_story(found: Content, loaded: tuple[Story | StoryFile | None, list[Finding]], drafts: bool = True) -> None:
    """Add a story loaded elsewhere (a build worker), as load_content would have."""
    story, _ = loaded
    if drafts or not (isinstance(story, Story) and story.meta.draft):
        _add(found, loaded)
    else:
        found.findings.extend(loaded[1])


def _shown(root: Path, path: Path) -> str:
    """The path as findings print it: relative to the site root."""
    return path.relative_to(root).as_posix()


def _add(found: Content, loaded: tuple[Any, list[Finding]]) -> None:
    item, findings = loaded
    found.findings.extend(findings)
    if isinstance(item, ManifestFile | StoredManifest):
        found.manifests.setdefault(item.id if isinstance(item, StoredManifest) else item.manifest.id, item)
    elif isinstance(item, Story):
        found.stories.append(item)
    elif isinstance(item, StoryFile):
        found.broken.append(item)
    elif isinstance(item, Page):
        found.pages.append(item)


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


def _front_matter(path: Path, shown: str, data: bytes | None = None) -> tuple[tuple | None, list[Finding]]:
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


class StoredManifest:
    """A manifest file as an earlier build read it, kept in the build memo while its stat is the same: its id
    and digest at hand, and the file read again only when a stage needs its claims (a story citing it was
    edited, or its page is rendered again). Only plain manifests are kept this way (see ManifestFile)."""

    plain = True

    def __init__(self, found: ManifestFile, file: str) -> None:
        self.path, self.name, self.digest, self.id, self.file = found.path, found.name, found.digest, found.manifest.id, file

    @functools.cached_property
    def loaded(self) -> ManifestFile:
        found, _ = load_manifest(self.file, self.path)
        if found is None:
            raise OSError(f"{self.path} changed while the site was being built")
        return found

    @property
    def manifest(self) -> Manifest:
        return self.loaded.manifest

    @property
    def source(self) -> SourceMap:
        return self.loaded.source

    def __getstate__(self) -> dict:
        return {name: value for name, value in vars(self).items() if name != "loaded"}


def stored_manifests(root: Path, files: dict[str, tuple]) -> dict[str, tuple]:
    """Content.manifest_files as the build memo keeps them between runs: plain manifests as StoredManifest
    (far quicker to load than the models), the others not at all (read again next time)."""
    kept = {}
    for shown, (stamp, (found, findings)) in files.items():
        if isinstance(found, StoredManifest):
            kept[shown] = (stamp, (found, findings))
        elif isinstance(found, ManifestFile) and found.plain and not findings:
            kept[shown] = (stamp, (StoredManifest(found, os.path.join(root, shown)), findings))
    return kept


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def story_body(root: Path, shown: str) -> str:
    """A story's body alone, read again (what load_story kept as `body`): site-wide checks that compare
    texts read the few they need instead of holding every body."""
    text, _ = read_text(os.path.join(root, shown), shown)
    parts = split_front_matter(text) if text is not None else None
    return parts[2] if parts is not None else ""


def load_story(path: str | Path, shown: str, data: bytes | None = None) -> tuple[Story | StoryFile | None, list[Finding]]:
    """A story file (or its bytes, already read) as a Story, or a StoryFile when its front matter is wrong."""
    path = Path(path)
    parsed, findings = _front_matter(path, shown, data)
    if parsed is None:
        return None, findings
    data, source, body, body_line = parsed
    if data is None or findings:
        return StoryFile(shown, body, body_line), findings
    meta, problems = validate(FrontMatter, data, source, _STORY_ID_LOCS)
    if meta is None or problems:
        return StoryFile(shown, body, body_line), problems
    return Story(shown, path.parent.name, path.stem, meta, body, body_line, source), []


def load_page(path: Path, shown: str, pages_dir: Path) -> tuple[Page | None, list[Finding]]:
    parsed, findings = _front_matter(path, shown)
    if parsed is None or parsed[0] is None or findings:
        return None, findings
    data, source, body, body_line = parsed
    meta, problems = validate(PageMatter, data, source, ())
    if meta is None:
        return None, problems
    relative = path.relative_to(pages_dir).with_suffix("").as_posix()
    url_path = "/" + re.sub(r"(^|/)index$", "", relative).strip("/") + "/"
    return Page(shown, url_path.replace("//", "/"), meta, body, body_line), problems


def load_manifest(path: str | Path, shown: str) -> tuple[ManifestFile | None, list[Finding]]:
    text, findings = read_text(path, shown)
    if text is None:
        return None, findings
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        return None, [Finding(shown, err.lineno, err.colno, "LP100", f"not valid JSON: {err.msg}")]
    quick = SourceMap(shown)
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError:
        manifest = None
    if manifest is not None and _plain(manifest, stem):
        return ManifestFile(shown, stem, manifest, quick, text_digest(text), plain=True), []
    return _slow_manifest(text, data, stem, shown)


def _plain(manifest: Manifest, name: str) -> bool:
    """True when no manifest rule can fire, so no source positions are needed."""
    ids = [claim.id for claim in manifest.claims]
    return manifest.id == name and len(ids) == len(set(ids))


def _slow_manifest(text: str, data: Any, name: str, shown: str) -> tuple[ManifestFile | None, list[Finding]]:
    """Re-read the JSON as YAML (a superset) to learn where each field is, then validate."""
    _, source, _ = parse_yaml(text, shown, 0)
    if not isinstance(data, dict):
        return None, [Finding(shown, 1, 1, "LP100", "a manifest must be a JSON object")]
    manifest, findings = validate(Manifest, data, source, _MANIFEST_ID_LOCS)
    findings = [f if f.code != "LP002" else _as(f, "LP100") for f in findings]
    findings = [f if f.code != "LP003" else _as(f, "LP100") for f in findings]
    if manifest is None:
        return None, findings
    return ManifestFile(shown, name, manifest, source, text_digest(text)), findings


def _as(finding: Finding, code: str) -> Finding:
    return Finding(finding.path, finding.line, finding.col, code, finding.message, finding.severity)
