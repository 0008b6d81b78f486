"""Plain pages: content/pages/<path>.md, served at /<path>/."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .findings import Finding
from .limits import MAX_PAGE_BYTES
from .models import Page, PageMatter
from .source import front_matter, readable, top_folder
from .validate import validate


def page_files(root: Path, refused: list[Finding] | None = None) -> list[tuple[Path, str]]:
    """(path, path as shown) of every page file that may be read (content/pages/**/*.md, see
    source.readable), in order; a finding in `refused` for each that may not. A linked folder is entered once, and not at all if it is
    inside content/pages/ already (its pages are read where they are)."""
    top, inside = top_folder(root, "pages", refused)
    if top is None:
        return []
    pages_real = os.path.realpath(top)
    found: list[tuple[Path, str]] = []
    waiting, entered = [(top, "content/pages")], set()
    while waiting:
        folder, shown = waiting.pop()
        real = os.path.realpath(folder)
        if real in entered:
            continue
        entered.add(real)
        found.extend((Path(folder, name), f"{shown}/{name}")
                     for name in readable(folder, shown, ".md", inside, "LP001", refused=refused))
        for name in readable(folder, shown, "", inside, "LP001", dirs=True, refused=refused):
            path = os.path.join(folder, name)
            if os.path.islink(path) and (os.path.realpath(path) + os.sep).startswith(pages_real + os.sep):
                continue
            waiting.append((path, f"{shown}/{name}"))
    return sorted(found, key=lambda page: page[1])


_ADDRESS_PART = re.compile(r"[\w.~-]+")  # what a URL path holds as written: no space, '?', '#', '%', '<', quote


def load_page(path: Path, shown: str, pages_dir: Path) -> tuple[Page | None, list[Finding]]:
    relative = path.relative_to(pages_dir).with_suffix("").as_posix()
    if not all(_ADDRESS_PART.fullmatch(part) for part in relative.split("/")):
        return None, [Finding(shown, 1, 1, "LP001", f"the file's path is the page's address (/{relative}/), which it "
                              "cannot be as written: expected letters, digits, '-', '_', '.' or '~' in each name")]
    parsed, findings = front_matter(path, shown, limit=MAX_PAGE_BYTES)
    if parsed is None or parsed[0] is None or findings:
        return None, findings
    data, source, body, body_line = parsed
    meta, problems = validate(PageMatter, data, source, ())
    if meta is None:
        return None, problems
    url_path = "/" + re.sub(r"(^|/)index$", "", relative).strip("/") + "/"
    return Page(shown, url_path.replace("//", "/"), meta, body, body_line), problems
