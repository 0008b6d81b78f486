"""Where things are in a site and in this package: the standard library only (a build with nothing to do reads
this before it imports anything else)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent  # the generator package
CACHE_DIR = ".ledgerpress-cache"


def utc_date(value: dt.date) -> dt.date:
    """A date, or the UTC date of a moment, in the years 1000 to 9999: every output writes a year in four digits,
    and a moment at the ends of the calendar has no date in UTC at all (0001-01-01T00:00:00+05:00). ValueError,
    saying so, outside them."""
    try:
        day = value.astimezone(dt.timezone.utc).date() if isinstance(value, dt.datetime) else value
    except OverflowError:
        day = None
    if day is None or not 1000 <= day.year <= 9999:
        raise ValueError("must fall between the years 1000 and 9999 (in UTC)")
    return day


def story_file(published: dt.datetime, slug: str) -> str:
    """content/stories/<the UTC date of published>/<slug>.md: where a story belongs (LP005 holds it there).
    ValueError (utc_date's) for a moment outside the years a story can have."""
    return f"content/stories/{utc_date(published).isoformat()}/{slug}.md"


def builtin_templates() -> Path:
    """Our template set: packaged beside the code in a wheel, or the repository's templates/."""
    packaged = PACKAGE / "_templates"
    return packaged if packaged.is_dir() else PACKAGE.parent / "templates"


def template_dirs(root: Path) -> list[Path]:
    """The site's own templates/ first (if any), each missing template falling back to ours."""
    own = root / "templates"
    ours = builtin_templates()
    return [own, ours] if own.is_dir() and own.resolve() != ours.resolve() else [ours]


def file_digest(data: bytes) -> str:
    """The digest of a file's bytes (SHA-256 cut to 128 bits): what every stage compares files by."""
    return hashlib.sha256(data).hexdigest()[:32]


def read_upto(descriptor: int, size: int, limit: int) -> bytes:
    """An open file's bytes, no more than `limit` + 1 of them (a caller tells a file that is too large by that one
    byte more). Read at the size its stat gave, and then on in case it grew since: asking for `limit` + 1 bytes
    at once would allocate them all for every file, however small."""
    with os.fdopen(descriptor, "rb", closefd=False) as source:
        data = source.read(min(size, limit) + 1)
        if len(data) == min(size, limit) + 1 <= limit:
            data += source.read(limit + 1 - len(data))
    return data


def key_of(*parts: str) -> str:
    """One digest of several strings (what a result was made from)."""
    return hashlib.blake2b("\0".join(parts).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def is_utf8(name: str) -> bool:
    """A name read from the file system that is UTF-8 (one that is not holds lone surrogates in Python)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
