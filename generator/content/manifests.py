"""Manifest files: content/manifests/<id>.json, one source record each."""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .findings import Finding, SourceMap
from .limits import MAX_MANIFEST_BYTES, MAX_NESTING, MAX_NUMBER_DIGITS
from .models import Manifest, ManifestFile
from .source import parse_yaml, read_text, text_digest
from .validate import validate

_MANIFEST_ID_LOCS = (("id",), ("claims", int, "id"))


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


def load_manifest(path: str | Path, shown: str) -> tuple[ManifestFile | None, list[Finding]]:
    text, findings = read_text(path, shown, limit=MAX_MANIFEST_BYTES, code="LP100")
    if text is None:
        return None, [_as(f, "LP100") for f in findings]
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        data = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as err:
        return None, [Finding(shown, err.lineno, err.colno, "LP100", f"not valid JSON: {err.msg}")]
    except RecursionError:
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: nested deeper than {MAX_NESTING} levels")]
    except ValueError as err:  # an integer past MAX_NUMBER_DIGITS
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: {err}")]
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(data):
        return None, [Finding(shown, 1, 1, "LP100", "not valid JSON: a \\u escape names half of a character "
                                                    "(a lone surrogate), which no output can hold")]
    quick = SourceMap(shown)
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError:
        manifest = None
    if manifest is not None and _plain(manifest, stem):
        return ManifestFile(shown, stem, manifest, quick, text_digest(text), plain=True), []
    return _slow_manifest(text, data, stem, shown)


def _integer(text: str) -> int:
    """A JSON integer, refused past MAX_NUMBER_DIGITS (no manifest field is a number; converting a long one
    costs time quadratic in its length)."""
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of {len(text):,} digits (the limit is {MAX_NUMBER_DIGITS})")
    return int(text)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(data: Any) -> bool:
    """True when a string (or key) holds a lone surrogate (JSON's "\\ud800": Python keeps it, UTF-8 cannot)."""
    waiting = [data]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return True
        elif isinstance(item, dict):
            waiting.extend(item.keys())
            waiting.extend(item.values())
        elif isinstance(item, list):
            waiting.extend(item)
    return False


def _deeper(data: Any, limit: int) -> bool:
    """True when lists and objects nest deeper than limit (json.loads itself stops only near Python's
    recursion limit, and what reads a manifest that failed its schema next walks it)."""
    level = [data]
    for _ in range(limit + 1):
        level = [child for item in level if isinstance(item, (dict, list))
                 for child in (item.values() if isinstance(item, dict) else item)]
        if not level:
            return False
    return True


def _plain(manifest: Manifest, name: str) -> bool:
    """True when no manifest rule can fire, so no source positions are needed."""
    ids = [claim.id for claim in manifest.claims]
    return manifest.id == name and len(ids) == len(set(ids))


def _slow_manifest(text: str, data: Any, name: str, shown: str) -> tuple[ManifestFile | None, list[Finding]]:
    """Re-read the JSON as YAML (a superset) to learn where each field is, then validate."""
    if _deeper(data, MAX_NESTING):
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: nested deeper than {MAX_NESTING} levels")]
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
