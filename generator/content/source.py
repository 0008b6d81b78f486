"""Reading a content file: only regular files inside content/ and within their size limit, bytes to text
(LP001 at the first byte that is not UTF-8), the front-matter block, and YAML with the line and column of
every node (aliases and deep nesting refused before anything is built from it)."""

from __future__ import annotations

import itertools
import os
import re
import stat
from pathlib import Path
from typing import Any

import frontmatter

from .findings import Finding, shown_name
from .layout import is_utf8, read_upto
from .limits import MAX_FRONT_MATTER_BYTES, MAX_STORY_BYTES
from .safe_yaml import parse_yaml

_HANDLER = frontmatter.YAMLHandler()


def read_bounded(path: str | Path, shown: str, limit: int, code: str = "LP001",
                 follow: bool = True) -> tuple[bytes | None, list[Finding]]:
    """The bytes of a regular file of at most `limit` bytes, or a finding saying why it was not read. Only a
    regular file is opened (a device may act on being opened), without blocking (a FIFO swapped in meanwhile
    would wait for a writer forever), and checked again once open; read no further than the limit (a device
    such as /dev/zero never ends). With follow=False, a symbolic link at `path` is not a regular file either,
    not even one swapped in after the path was checked."""
    try:
        mode = os.stat(path, follow_symlinks=follow).st_mode
        if not stat.S_ISREG(mode):
            return None, [Finding(shown, 1, 1, code, f"is not a regular file ({_kind(mode)}): it is not read")]
        nofollow = 0 if follow else os.O_NOFOLLOW
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | nofollow | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        return None, [Finding(shown, 1, 1, code, f"cannot be read ({err.strerror or err})")]
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None, [Finding(shown, 1, 1, code, f"is not a regular file ({_kind(info.st_mode)}): it is not read")]
        if info.st_size > limit:
            return None, [too_large(shown, info.st_size, limit, code)]
        data = read_upto(descriptor, info.st_size, limit)
    except OSError as err:
        return None, [Finding(shown, 1, 1, code, f"cannot be read ({err.strerror or err})")]
    finally:
        os.close(descriptor)
    if len(data) > limit:  # it grew since the stat
        return None, [too_large(shown, len(data), limit, code)]
    return data, []


def too_large(shown: str, size: int, limit: int, code: str = "LP001") -> Finding:
    return Finding(shown, 1, 1, code, f"file is {size:,} bytes, more than the limit of {limit:,} (see docs/security.md)")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a plain file"


# What no text read from content/ carries into the site, whichever field or output it reaches: C0 controls but
# tab and line breaks (NUL; ESC, which a terminal showing index.md obeys), DEL and the C1 controls, lone
# surrogates, U+FFFE and U+FFFF. HTML parsers report each as an error; XML 1.0 forbids most. Each is read as
# U+FFFD, one character for one (every finding keeps its column). Listed, not given as the complement of what
# is allowed: a negated class over most of Unicode is slow to compile, and every start would compile it.
RAW = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def without_controls(text: str) -> str:
    return RAW.sub("\ufffd", text) if RAW.search(text) else text


def cleaned(value: Any) -> Any:
    """Parsed YAML or JSON with every string (keys too) without those characters: an escape (`"\\e"`,
    `"\\u001b"`) makes them from text that holds none. Nesting is bounded before anything is parsed."""
    if isinstance(value, str):
        return without_controls(value)
    if isinstance(value, dict):
        return {cleaned(key): cleaned(item) for key, item in value.items()}
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    return value


def read_text(path: str | Path, shown: str, data: bytes | None = None, limit: int = MAX_STORY_BYTES,
              code: str = "LP001") -> tuple[str | None, list[Finding]]:
    """The file (or its bytes, already read) as text, without the characters of RAW, or a finding with `code`:
    too large, not a regular file, or not UTF-8 (at the first byte that is not)."""
    if data is None:
        data, refused = read_bounded(path, shown, limit, code)
        if data is None:
            return None, refused
    elif len(data) > limit:
        return None, [too_large(shown, len(data), limit, code)]
    try:
        return without_controls(data.decode("utf-8").removeprefix("\ufeff")), []
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        col = err.start - (before.rfind(b"\n") + 1) + 1
        return None, [Finding(shown, line, col, code, f"file is not UTF-8 ({err.reason} at byte {err.start})")]


def split_front_matter(text: str) -> tuple[str, int, str, int] | None:
    """(front matter, its line offset, body, its line offset), or None without a front-matter block."""
    if not _HANDLER.detect(text):
        return None
    bounds = list(itertools.islice(_HANDLER.FM_BOUNDARY.finditer(text), 2))  # not every rule in the body
    if len(bounds) < 2 or bounds[0].start() != 0:
        return None
    first, second = bounds[0], bounds[1]
    front = text[first.end(): second.start()]
    body = text[second.end():]
    return front, text[: first.end()].count("\n"), body, text[: second.end()].count("\n")


def readable(folder: str, shown: str, suffix: str, inside: str, code: str, dirs: bool = False,
             refused: list[Finding] | None = None) -> list[str]:  # (one listing, every term of it named by its caller)
    """The sorted names of the entries of folder ending in suffix (hidden ones left out) that may be read:
    regular files (or folders, `dirs`), or symbolic links to one inside the folder `inside` (a real path).
    Each other entry ending in suffix (a FIFO, a device, a link leading elsewhere, a name that is not UTF-8
    or has a control character) is left out, with a finding in `refused`. The file type comes with the
    listing (no stat), except for links."""
    names = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                name = entry.name
                if name.startswith(".") or not name.endswith(suffix):
                    continue
                why = bad_name(name) or _unreadable(entry, inside, dirs)
                if why is None:
                    names.append(name)
                elif why and refused is not None:
                    refused.append(Finding(f"{shown}/{shown_name(name)}", 1, 1, code, why))
    except OSError:
        return []
    return sorted(names)


def _unreadable(entry: os.DirEntry, inside: str, dirs: bool) -> str | None:
    """Why an entry may not be read: None if it may, "" if it is merely of the other kind (a folder among
    files, a file among folders: passed over as before), else the reason."""
    try:
        if not entry.is_symlink():
            if entry.is_dir(follow_symlinks=False):
                return None if dirs else ""
            if dirs:
                return ""
            if entry.is_file(follow_symlinks=False):
                return None
            return f"is not a regular file ({_kind(entry.stat(follow_symlinks=False).st_mode)}): it is not read"
        real = os.path.realpath(entry.path)
        why = refused_symlink(real, inside)
        if why:
            return why
        mode = os.stat(real).st_mode
    except OSError as err:
        return f"cannot be read ({err.strerror or err})"
    if stat.S_ISDIR(mode):
        return None if dirs else ""
    if dirs:
        return ""
    return None if stat.S_ISREG(mode) else f"is a symbolic link to {_kind(mode)}: it is not read"


def refused_symlink(real: str, inside: str) -> str | None:
    """Why a symbolic link leading to `real` is not followed, `inside` being the real path of content/: it
    leads out of content/, or back to content/ itself (a loop); None when it stays inside."""
    if real == inside:
        return "is a symbolic link to content/ itself: it is not read"
    if not real.startswith(inside + os.sep):
        return "is a symbolic link to a place outside content/: it is not read"
    return None


def top_folder(root: str | Path, name: str, refused: list[Finding] | None) -> tuple[str | None, str]:
    """content/<name> of a site and the real path of its content/ folder; None for the folder when it is a
    symbolic link to a place outside content/ or not a folder (with a finding)."""
    content = os.path.join(root, "content")
    inside, top = os.path.realpath(content), os.path.join(content, name)
    why = refused_symlink(os.path.realpath(top), inside) if os.path.islink(top) else None
    if why:
        if refused is not None:
            refused.append(Finding(f"content/{name}", 1, 1, "LP001", why))
        return None, inside
    if os.path.lexists(top) and not os.path.isdir(top):  # a stray file of that name: say so, not "no stories"
        if refused is not None:
            refused.append(Finding(f"content/{name}", 1, 1, "LP001", f"is a file, not a folder: no {name} are read"))
        return None, inside
    return top, inside


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def bad_name(name: str) -> str | None:
    """Why a file name may not be used (it is printed in findings and becomes part of a URL), or None."""
    if not is_utf8(name):
        return "file name is not UTF-8: it is not read"
    return "file name has a control character: it is not read" if _CONTROL.search(name) else None


_FENCE_WITH_MORE = re.compile(r"^---[ \t]*\S.*$", re.M)


def _unclosed(text: str, shown: str) -> Finding:
    """Why a file has no front matter block: no '---' line to open one, or none alone on its line to close it
    (a closing '---' with the first heading run onto it reads as front matter that never ends)."""
    first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip()
    if first != "---":
        return Finding(shown, 1, 1, "LP001", "no front matter: the file must start with a '---' line")
    stuck = _FENCE_WITH_MORE.search(text, text.index("\n") + 1) if "\n" in text else None
    if stuck is not None:
        line = text.count("\n", 0, stuck.start()) + 1
        return Finding(shown, line, 4, "LP001", f"the front matter opened on line 1 is never closed: line {line} "
                                                f"starts with '---' and goes on ({stuck[0][:40]!r}): expected '---' "
                                                "alone on its line, and what follows it on the next")
    return Finding(shown, 1, 1, "LP001", "the front matter opened on line 1 is never closed: expected a line of "
                                         "'---' alone after its last field, then the story")


def front_matter(path: Path, shown: str, data: bytes | None = None,
                 limit: int = MAX_STORY_BYTES) -> tuple[tuple | None, list[Finding]]:
    """(data, source map, body, body line) of a Markdown file with front matter; empty front matter is an
    empty mapping (so each required field is reported missing, rather than the file passing unseen)."""
    text, findings = read_text(path, shown, data, limit)
    if text is None:
        return None, findings
    parts = split_front_matter(text)
    if parts is None:
        return None, [_unclosed(text, shown)]
    front, front_line, body, body_line = parts
    if len(front) > MAX_FRONT_MATTER_BYTES // 4 and len(front.encode("utf-8")) > MAX_FRONT_MATTER_BYTES:
        return None, [Finding(shown, front_line + 1, 1, "LP001", f"front matter is more than {MAX_FRONT_MATTER_BYTES:,} "
                                                                  "bytes (see docs/security.md)")]
    data, source, findings = parse_yaml(front, shown, front_line)
    if data is None and not findings:
        data = {}
    elif "\\" in front:  # (only an escape in a double-quoted scalar can make one of RAW's characters)
        data = cleaned(data)
    if data is not None and not isinstance(data, dict):
        findings.append(Finding(shown, front_line + 1, 1, "LP002", "front matter must be a mapping of fields"))
    return (data if isinstance(data, dict) else None, source, body, body_line), findings
