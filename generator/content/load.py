"""Read content/ into models; every problem with a file becomes a finding at its line and column."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import CONFIG_NAME, SiteConfig, load_config
from .findings import Finding
from .manifests import StoredManifest, load_manifest
from .models import ManifestFile, Page, Story, StoryFile
from .pages import load_page, page_files
from .source import readable, top_folder
from .stories import load_story, story_files


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
    refused: list[Finding] = []
    manifests, inside = top_folder(root, "manifests", refused)
    for name in readable(manifests, "content/manifests", ".json", inside, "LP100", refused=refused) if manifests else []:
        path, shown = os.path.join(manifests, name), f"content/manifests/{name}"
        scanned = stamps.get(shown) if stamps else None
        stamp = (scanned[0], scanned[1]) if scanned is not None else _stamp(path)
        before = known.get(shown) if known else None
        loaded = before[1] if before is not None and stamp is not None and before[0] == stamp else load_manifest(path, shown)
        found.manifest_files[shown] = (stamp, loaded)
        _add(found, loaded)
    files = story_files(root, refused)  # listed here for their findings too, when the caller reads the stories
    for path, shown in files if stories else []:
        _add(found, load_story(path, shown))
    for path in page_files(root, refused):
        _add(found, load_page(path, _shown(root, path), content_dir / "pages"))
    found.findings.extend(refused)
    if not drafts:
        found.stories = [story for story in found.stories if not story.meta.draft]
    return found


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


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
