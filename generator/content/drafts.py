"""Drafts, one rule everywhere: a story marked `draft: true` is checked, its findings are warnings, and it is
built only with --drafts. A draft whose front matter does not validate yet is still a draft."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .findings import Finding
from .models import Story, StoryFile
from .source import front_matter


def draft_paths(root: Path, stories: Iterable[Story], broken: Iterable[StoryFile]) -> set[str]:
    """The shown paths of the stories marked `draft: true`; for a story whose front matter failed to validate,
    its `draft` field is read from the YAML as written (it can still say so)."""
    found = {story.path for story in stories if story.meta.draft}
    for item in broken:
        parsed, _ = front_matter(Path(os.path.join(root, item.path)), item.path)
        if parsed is not None and isinstance(parsed[0], dict) and parsed[0].get("draft") is True:
            found.add(item.path)
    return found


def drafts_as_warnings(findings: Iterable[Finding], drafts: set[str]) -> list[Finding]:
    """Every finding in a draft becomes a warning: a draft never fails a check or a build."""
    return sorted(Finding(f.path, f.line, f.col, f.code, f.message, "warning") if f.path in drafts else f
                  for f in findings)
