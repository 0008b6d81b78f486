"""Drafts an agent reads, starts and rewrites. A draft is started exactly as `ledgerpress new` starts one; a text
replaces a file only if the file is still what the agent read (its hash) and both say `draft: true`: the desk
never writes a published story, nor publishes one."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from ..content.layout import CACHE_DIR, file_digest
from ..content.new_story import StoryAsked, StoryRefused, plan_story, write_story
from ..content.source import front_matter, read_bounded
from ..output.lock import Locked, OutputLock
from ..output.switch import exchange
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
    with _site_lock(desk.root):  # the other desks' updates wait: none of them checks a hash this one is replacing
        current = _read(path, shown)
        if file_digest(current) != expected_hash:
            raise _stale(shown, expected_hash, file_digest(current))
        if not _draft(current, shown)[0]:
            raise DeskError("published", f"{shown} is not a draft (its front matter does not say `draft: true`): the "
                            "desk never changes a published story", path=shown)
        _swap(path, data, expected_hash, shown)
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


def _stale(shown: str, expected: str, now: str) -> DeskError:
    return DeskError("stale", f"{shown} changed since it was read (its hash is now {now}, not '{expected[:64]}'): "
                     "read_story it again and apply your change to that text", path=shown, current_hash=now)


LOCK = "desk.lock"   # in .ledgerpress-cache/: every desk of the site takes it to write
LOCK_WAIT_S = 10.0   # how long an update waits for another desk's (a write takes milliseconds)


@contextlib.contextmanager
def _site_lock(root: Path) -> Iterator[None]:
    """The site's desk lock, across processes (an advisory lock the system lets go of when a process ends)."""
    folder = root / CACHE_DIR
    folder.mkdir(exist_ok=True)
    lock, deadline = OutputLock(folder / LOCK), time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            lock.take(exclusive=True, wait=False, what="another desk is writing")
            break
        except Locked:
            if time.monotonic() > deadline:
                raise DeskError("busy", f"another desk of this site held its lock for {LOCK_WAIT_S:g} s: try again")
            time.sleep(0.005)
    try:
        yield
    finally:
        lock.release()


def _swap(path: Path, data: bytes, expected: str, shown: str) -> None:
    """Put the new text in the file's place in one step, if what it takes the place of is still the text the
    agent read: the lock keeps other desks out, not an editor, whose save (a file renamed over this one) may
    land between the check and the swap. So the two files are exchanged, and the one taken out is checked
    again: if it is not the text read, it is put back and the update refused. A reader sees one file or the
    other. Where the file system cannot exchange two files, the new one replaces the old (other desks still
    wait for the lock)."""
    temporary = _written_beside(path, data)
    ours = os.lstat(temporary).st_ino
    try:
        if not exchange(temporary, path):
            os.replace(temporary, path)
            return
        taken, _ = read_bounded(temporary, shown, MAX_TEXT, follow=False)
        if taken is not None and file_digest(taken) == expected:
            return
        _give_back(temporary, path, ours)
        raise _stale(shown, expected, file_digest(taken) if taken is not None else "unreadable")
    finally:
        temporary.unlink(missing_ok=True)


def _give_back(taken: Path, path: Path, placed: int) -> None:
    """Put the file `taken` holds back at `path`, and the new text (inode `placed`, put at `path` by the swap)
    back in `taken`; a save that landed at `path` meanwhile is newer still, and is the one put back in the end."""
    while True:
        held = os.lstat(taken).st_ino
        if not exchange(taken, path):
            raise OSError(errno.EXDEV, "the file system stopped exchanging files", str(path))
        if os.lstat(taken).st_ino == placed:
            return
        placed = held


def _written_beside(path: Path, data: bytes) -> Path:
    """The new text in a hidden file beside the story (same folder: same file system), with its mode."""
    mode = os.stat(path, follow_symlinks=False).st_mode & 0o777
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".desk", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)
