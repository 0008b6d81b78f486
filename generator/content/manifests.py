"""Manifest files: content/manifests/<id>.json, one source record each."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .findings import Finding, SourceMap
from .layout import file_digest
from .models import Manifest, ManifestFile
from .source import parse_yaml, read_text
from .validate import MANIFEST_EXAMPLES, validate

_MANIFEST_ID_LOCS = (("id",), ("claims", int, "id"))
_SHAPE = ('{"id": "…", "title": "…", "source": {"name": "…", "url": "https://…"}, "published": "2026-11-20T09:00:00Z", '
          '"claims": [{"id": "…", "text": "…"}]}')


class KnownManifest:
    """A manifest file whose id was read from these same bytes before (its digest tells): read again only when a
    stage needs its claims, which after an edit few stages do. Only a file that gave no finding is known so."""

    plain = True

    def __init__(self, path: str, file: str, id: str, digest: str) -> None:
        self.path, self.file, self.id, self.digest = path, file, id, digest
        self.name = os.path.splitext(os.path.basename(file))[0]

    @property
    def fingerprint(self) -> str:
        return self.digest

    @functools.cached_property
    def loaded(self) -> ManifestFile:
        found, _ = load_manifest(self.file, self.path)
        if found is None or found.manifest.id != self.id:
            raise ManifestChanged(self.path)
        return found

    @property
    def manifest(self) -> Manifest:
        return self.loaded.manifest

    @property
    def source(self) -> SourceMap:
        return self.loaded.source


class ManifestChanged(Exception):
    """A manifest file changed while the site was being built, so that it no longer is what it was read as."""


def load_manifest(path: str | Path, shown: str, data: bytes | None = None) -> tuple[ManifestFile | None, list[Finding]]:
    """A manifest file (or its bytes, already read) as a ManifestFile, or the findings that say why not."""
    if data is None:
        with open(path, "rb") as source:
            data = source.read()
    text, findings = read_text(path, shown, data)
    if text is None:
        return None, findings
    stem, code = os.path.splitext(os.path.basename(path))[0], file_digest(data)
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as err:
        return None, [Finding(shown, err.lineno, err.colno, "LP100", f"not valid JSON ({err.msg.lower()}): expected "
                              f"an object such as {_SHAPE}; look for a missing comma, quote or bracket here or just before")]
    try:
        manifest = Manifest.model_validate(parsed)
    except ValidationError:
        manifest = None
    if manifest is not None and _plain(manifest, stem):
        return ManifestFile(shown, stem, manifest, SourceMap(shown), code, plain=True), []
    return _slow_manifest(text, parsed, stem, shown, code)


def _plain(manifest: Manifest, name: str) -> bool:
    """True when no manifest rule can fire, so no source positions are needed."""
    ids = [claim.id for claim in manifest.claims]
    return manifest.id == name and len(ids) == len(set(ids))


def _slow_manifest(text: str, data: Any, name: str, shown: str, code: str) -> tuple[ManifestFile | None, list[Finding]]:
    """Re-read the JSON as YAML (a superset) to learn where each field is, then validate."""
    _, source, _ = parse_yaml(text, shown, 0)
    if not isinstance(data, dict):
        return None, [Finding(shown, 1, 1, "LP100", f"a manifest must be a JSON object: expected e.g. {_SHAPE}")]
    manifest, findings = validate(Manifest, data, source, _MANIFEST_ID_LOCS, MANIFEST_EXAMPLES)
    findings = [f if f.code != "LP002" else _as(f, "LP100") for f in findings]
    findings = [f if f.code != "LP003" else _as(f, "LP100") for f in findings]
    if manifest is None:
        return None, findings
    return ManifestFile(shown, name, manifest, source, code), findings


def _as(finding: Finding, code: str) -> Finding:
    return Finding(finding.path, finding.line, finding.col, code, finding.message, finding.severity)
