"""Drafts an agent reads, starts and rewrites. A draft is started exactly as `ledgerpress new` starts one; a text
replaces a file only if the file is still what the agent read (its hash) and both say `draft: true`: the desk
never writes a published story, nor publishes one."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from pathlib import Path

from ..content.layout import file_digest
from ..content.new_story import StoryAsked, StoryRefused, plan_story, write_story
from ..content.source import front_matter, read_bounded
from .checking import MAX_TEXT, check_bytes, story_bytes
from .errors import DeskError
from .paths import story_path
from .schemas import StoryText, Written
from .site import Desk


def read_story(desk: Desk, shown: str) -> StoryText:
    """A story file's text and the hash update_story wants back."""
    path = story_path(desk.root, shown)
    data = _read(path, shown)
    day, name = shown.split("/")[2:]
    return StoryText(path=shown, content_hash=file_digest(data), draft=_draft(data, shown)[0],
                     url_path=f"/stories/{day}/{name.removesuffix('.md')}/", text=data.decode("utf-8", "replace"))


def draft_story(desk: Desk, asked: StoryAsked) -> Written:
    """A new draft, as `ledgerpress new` writes it, with its findings (each placeholder is one to replace)."""
    desk.may_write("draft_story")
    try:
        story = plan_story(desk.root, desk.config(), dataclasses.replace(asked, draft=True))
    except StoryRefused as err:
        instead = f": give `{err.instead}`" if err.instead else ""
        raise DeskError("refused", f"`{err.given}`: {err.message}{instead}", field=err.given) from None
    story_path(desk.root, story.shown)
    try:
        write_story(story)
    except FileExistsError:
        raise DeskError("exists", f"{story.shown} exists already, and the desk never replaces a file with a new "
                        "draft: give another `slug` or `date`, or read_story and update_story it",
                        path=story.shown) from None
    data = story.text.encode("utf-8")
    return Written(path=story.shown, content_hash=file_digest(data), text=story.text,
                   check=check_bytes(desk.checks, story.shown, data))


def update_story(desk: Desk, shown: str, text: str, expected_hash: str) -> Written:
    """Replace a draft's text, if the file is still the one whose hash the agent read."""
    desk.may_write("update_story")
    path = story_path(desk.root, shown)
    data = story_bytes(text)
    draft, problems = _draft(data, shown)
    if not draft:
        raise DeskError("would_publish", "the new text does not say `draft: true` in its front matter"
                        f"{': ' + '; '.join(problems) if problems else ''}. The desk only writes drafts: a person "
                        "publishes a story by removing that line", path=shown)
    current = _read(path, shown)
    if file_digest(current) != expected_hash:
        raise DeskError("stale", f"{shown} changed since it was read (its hash is now {file_digest(current)}, not "
                        f"'{expected_hash[:64]}'): read_story it again and apply your change to that text",
                        path=shown, current_hash=file_digest(current))
    if not _draft(current, shown)[0]:
        raise DeskError("published", f"{shown} is not a draft (its front matter does not say `draft: true`): the desk "
                        "never changes a published story", path=shown)
    _replace(path, data)
    return Written(path=shown, content_hash=file_digest(data), text=text,
                   check=check_bytes(desk.checks, shown, data))


def _draft(data: bytes, shown: str) -> tuple[bool, list[str]]:
    """Whether a story's front matter says `draft: true` (read as YAML, valid story or not), and why it can't tell."""
    parsed, findings = front_matter(Path(shown), shown, data)
    fields = parsed[0] if parsed is not None else None
    return isinstance(fields, dict) and fields.get("draft") is True, [str(finding) for finding in findings]


def _read(path: Path, shown: str) -> bytes:
    """The file's bytes, read as the checks read a story: only a regular file is opened, without waiting (a FIFO
    would hold the desk, and its lock, until something wrote to it), and no further than a story's size; never
    through a symbolic link put there since its path was checked."""
    data, refused = read_bounded(path, shown, MAX_TEXT, follow=False)
    if data is not None:
        return data
    if not os.path.lexists(path):
        raise DeskError("not_found", f"{shown} does not exist: draft_story starts a story", path=shown)
    if not os.path.islink(path) and os.path.isfile(path) and os.path.getsize(path) > MAX_TEXT:
        raise DeskError("too_large", f"{shown} is longer than a story may be ({MAX_TEXT:,} bytes)", path=shown)
    raise DeskError("bad_path", f"{shown} {refused[0].message}", path=shown)


def _replace(path: Path, data: bytes) -> None:
    """Write beside the file, then put the new file in its place in one step: a reader sees the old or the new."""
    mode = os.stat(path, follow_symlinks=False).st_mode & 0o777
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".desk", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
