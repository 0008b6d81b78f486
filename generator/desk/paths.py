"""Which story files an agent may name: content/stories/<YYYY-MM-DD>/<slug>.md, real files inside that folder."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path

from .errors import DeskError

STORY = re.compile(r"content/stories/(\d{4}-\d{2}-\d{2})/([a-z0-9]+(?:-[a-z0-9]+)*)\.md")
SHAPE = "content/stories/<YYYY-MM-DD>/<slug>.md, relative to the site root (slug: a-z, 0-9, single '-')"
MAX_PATH = 120  # the longest a slug (70) and the rest can make


def story_path(root: Path, shown: str) -> Path:
    """The file a story path names, once it is sure to stay a real file inside content/stories/."""
    problem = _shape_problem(shown)
    if problem:
        raise DeskError("bad_path", f"'{_cut(shown)}' {problem}: expected {SHAPE}", path=_cut(shown), expected=SHAPE)
    day, name = shown.split("/")[2:]
    top = root / "content" / "stories"
    for place in (root / "content", top, top / day, top / day / name):  # realpath() below would follow any of them
        if os.path.islink(place):
            raise DeskError("bad_path", f"'{shown}': {place.relative_to(root)} is a symbolic link; the desk reads and "
                            "writes only real files inside content/stories/", path=shown, expected=SHAPE)
    inside, target = os.path.realpath(top), os.path.realpath(top / day / name)
    if os.path.commonpath([inside, target]) != inside:
        raise DeskError("bad_path", f"'{shown}' leads outside content/stories/", path=shown, expected=SHAPE)
    if (top / day).exists() and not (top / day).is_dir():
        raise DeskError("bad_path", f"'{shown}': content/stories/{day} is not a folder", path=shown, expected=SHAPE)
    return top / day / name


def _shape_problem(shown: str) -> str:
    """Why a path is not a story path, in words an agent can act on; '' when it is one."""
    if len(shown) > MAX_PATH:
        return f"is {len(shown)} characters long"
    if shown.startswith("/") or re.match(r"^[A-Za-z]:", shown):
        return "is absolute"
    parts = shown.replace("\\", "/").split("/")
    if ".." in parts or "." in parts:
        return "holds '.' or '..'"
    if "\\" in shown or "\x00" in shown:
        return "holds a backslash or a NUL"
    if parts[:2] != ["content", "stories"] or len(parts) != 4:
        return "is not a story file directly inside a date folder of content/stories/"
    if not STORY.fullmatch(shown):
        return "is not named <YYYY-MM-DD>/<slug>.md"
    try:
        dt.date.fromisoformat(parts[2])
    except ValueError:
        return f"names no date ('{parts[2]}')"
    return ""


def _cut(text: str) -> str:
    return text if len(text) <= MAX_PATH else text[:MAX_PATH] + "…"
