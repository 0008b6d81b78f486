"""Story files: content/stories/<YYYY-MM-DD>/<slug>.md, read into a Story (or a StoryFile when its front matter is wrong)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .findings import Finding
from .limits import MAX_STORY_BYTES
from .models import FrontMatter, Story, StoryFile
from .source import front_matter, read_text, readable, split_front_matter, top_folder
from .validate import validate

_STORY_ID_LOCS = (("ledger", int, "manifest"), ("ledger", int, "claims", int), ("key_facts", int, "cites", int),
                  ("corrections", int, "manifest"))


def story_files(root: Path, refused: list[Finding] | None = None) -> list[tuple[str, str]]:
    """(path, path as shown) of every story file (content/stories/<folder>/<name>.md) that may be read, by
    folder, then name; a finding in `refused` for each that may not (see source.readable). Strings, not
    Paths: a large site has tens of thousands, and each build lists them all."""
    top, inside = top_folder(root, "stories", refused)
    if top is None:
        return []
    return [(f"{top}{os.sep}{folder}{os.sep}{name}", f"content/stories/{folder}/{name}")  # os.path.join costs more
            for folder in readable(top, "content/stories", "", inside, "LP001", dirs=True, refused=refused)
            for name in readable(f"{top}{os.sep}{folder}", f"content/stories/{folder}", ".md", inside, "LP001",
                                 refused=refused)]


def story_body(root: Path, shown: str, texts: Mapping[str, bytes] | None = None) -> str:
    """A story's body alone, read again (what load_story kept as `body`): site-wide checks that compare
    texts read the few they need instead of holding every body. `texts`: files' bytes given instead of read."""
    text, _ = read_text(os.path.join(root, shown), shown, (texts or {}).get(shown))
    parts = split_front_matter(text) if text is not None else None
    return parts[2] if parts is not None else ""


def load_story(path: str | Path, shown: str, data: bytes | None = None,
               edition: str = "hour") -> tuple[Story | StoryFile | None, list[Finding]]:
    """A story file (or its bytes, already read) as a Story, or a StoryFile when its front matter is wrong;
    `edition`: what the site's editions are (site.toml), which sets the form of the `edition` field."""
    path = Path(path)
    parsed, findings = front_matter(path, shown, data, MAX_STORY_BYTES)
    if parsed is None:
        return None, findings
    data, source, body, body_line = parsed
    if data is None or findings:
        return StoryFile(shown, body, body_line), findings
    meta, problems = validate(FrontMatter, data, source, _STORY_ID_LOCS, context={"edition": edition})
    if meta is None or any(problem.code != "LP004" for problem in problems):
        return StoryFile(shown, body, body_line), problems
    # (ids written without quotes, read as written: every other rule runs this time too)
    return Story(shown, path.parent.name, path.stem, meta, body, body_line, source), problems
