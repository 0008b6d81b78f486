"""Manifest files: content/manifests/<id>.json, one source record each."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .findings import Finding, SourceMap
from .layout import file_digest
from .limits import MAX_MANIFEST_BYTES, MAX_NESTING, MAX_NUMBER_DIGITS
from .models import Manifest, ManifestFile
from .source import cleaned, parse_yaml, read_bounded, read_text
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

    def __eq__(self, other: object) -> bool:
        """The same file with the same bytes (each build knows it anew, as a new object)."""
        return isinstance(other, KnownManifest) and (self.path, self.digest) == (other.path, other.digest)

    def __hash__(self) -> int:
        return hash((self.path, self.digest))

    @functools.cached_property
    def loaded(self) -> ManifestFile:
        found, _ = load_manifest(self.file, self.path)
        if found is None or found.digest != self.digest:
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
        data, refused = read_bounded(path, shown, MAX_MANIFEST_BYTES, "LP100")
        if data is None:
            return None, refused
    text, findings = read_text(path, shown, data, limit=MAX_MANIFEST_BYTES, code="LP100")
    if text is None:
        return None, findings
    stem, code = os.path.splitext(os.path.basename(path))[0], file_digest(data)
    try:
        parsed = json.loads(text, parse_int=_integer, object_pairs_hook=_unique_keys)
    except _RepeatedKey as err:
        return None, _repeated_keys(text, shown, err.args[0])
    except json.JSONDecodeError as err:
        return None, [Finding(shown, err.lineno, err.colno, "LP100", f"not valid JSON ({err.msg.lower()}): expected "
                              f"an object such as {_SHAPE}; look for a missing comma, quote or bracket here or just before")]
    except RecursionError:
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: nested deeper than {MAX_NESTING} levels")]
    except ValueError as err:  # an integer past MAX_NUMBER_DIGITS
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: {err}")]
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(parsed):
        return None, [Finding(shown, 1, 1, "LP100", "not valid JSON: a \\u escape names half of a character "
                                                    "(a lone surrogate), which no output can hold")]
    if "\\" in text:  # (only an escape, \\u001b or \\b, can make one of source.RAW's characters)
        parsed = cleaned(parsed)
    try:
        manifest = Manifest.model_validate(parsed)
    except ValidationError:
        manifest = None
    if manifest is not None and _plain(manifest, stem):
        return ManifestFile(shown, stem, manifest, SourceMap(shown), code, plain=True), []
    return _slow_manifest(text, parsed, stem, shown, code)


class _RepeatedKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different (JSON readers differ on which of two values they keep: a record
    read one way by the build and another by the reader's tools is no record)."""
    found = dict(pairs)
    if len(found) < len(pairs):
        keys = [key for key, _ in pairs]
        raise _RepeatedKey(next(key for key in keys if keys.count(key) > 1))
    return found


def _repeated_keys(text: str, shown: str, key: str) -> list[Finding]:
    """Where each key is given twice (the YAML reader, which JSON is a part of, knows the places)."""
    _, _, findings = parse_yaml(text, shown, 0)
    found = [_as(f, "LP100") for f in findings if f.message.endswith("is given twice")]
    found = found or [Finding(shown, 1, 1, "LP100", f"key '{key}' is given twice")]
    return [dataclasses.replace(f, message=f"{f.message}: expected each field once (which of the two a reader "
                                           "keeps is not defined)") for f in found]


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


def _slow_manifest(text: str, data: Any, name: str, shown: str, code: str) -> tuple[ManifestFile | None, list[Finding]]:
    """Re-read the JSON as YAML (a superset) to learn where each field is, then validate."""
    if _deeper(data, MAX_NESTING):
        return None, [Finding(shown, 1, 1, "LP100", f"not valid JSON: nested deeper than {MAX_NESTING} levels")]
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
