"""Read a whole content/ folder into models at once (what the tests and small tools want; a build reads its
stories on every core instead, engine/read.py); every problem with a file becomes a finding."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .config import CONFIG_NAME, SiteConfig, load_config
from .findings import Finding
from .manifest_files import load_manifest
from .models import ManifestFile, Page, Story, StoryFile
from .plain_pages import load_page, page_files
from .source import readable, top_folder
from .story_files import load_story, story_files


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


def load_content(root: Path, drafts: bool = True, base_url: str | None = None) -> Content:
    """Read site.toml, manifests, stories and pages under root/content."""
    content_dir = root / "content"
    config, findings = load_config(content_dir / CONFIG_NAME, base_url, f"content/{CONFIG_NAME}")
    found = Content(root, config, findings=findings)
    refused: list[Finding] = []
    manifests, inside = top_folder(root, "manifests", refused)
    for name in readable(manifests, "content/manifests", ".json", inside, "LP100", refused=refused) if manifests else []:
        _add(found, load_manifest(os.path.join(manifests, name), f"content/manifests/{name}"))
    for path, shown in story_files(root, refused):
        _add(found, load_story(path, shown, edition=config.edition if config else "hour"))
    for path, shown in page_files(root, refused):
        _add(found, load_page(path, shown, content_dir / "pages"))
    found.findings.extend(refused)
    if not drafts:
        found.stories = [story for story in found.stories if not story.meta.draft]
    return found


def _add(found: Content, loaded: tuple[Any, list[Finding]]) -> None:
    item, findings = loaded
    found.findings.extend(findings)
    if isinstance(item, ManifestFile):
        found.manifests.setdefault(item.manifest.id, item)
    elif isinstance(item, Story):
        found.stories.append(item)
    elif isinstance(item, StoryFile):
        found.broken.append(item)
    elif isinstance(item, Page):
        found.pages.append(item)
