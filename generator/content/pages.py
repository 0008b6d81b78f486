"""Plain pages: content/pages/<path>.md, served at /<path>/."""

from __future__ import annotations

import re
from pathlib import Path

from .findings import Finding
from .models import Page, PageMatter
from .source import front_matter
from .validate import validate


def page_files(root: Path) -> list[tuple[Path, str]]:
    """(path, path as shown) of every plain page, in order."""
    return [(path, path.relative_to(root).as_posix()) for path in sorted((root / "content" / "pages").glob("**/*.md"))]


def load_page(path: Path, shown: str, pages_dir: Path) -> tuple[Page | None, list[Finding]]:
    parsed, findings = front_matter(path, shown)
    if parsed is None or parsed[0] is None or findings:
        return None, findings
    data, source, body, body_line = parsed
    meta, problems = validate(PageMatter, data, source, ())
    if meta is None:
        return None, problems
    relative = path.relative_to(pages_dir).with_suffix("").as_posix()
    url_path = "/" + re.sub(r"(^|/)index$", "", relative).strip("/") + "/"
    return Page(shown, url_path.replace("//", "/"), meta, body, body_line), problems
