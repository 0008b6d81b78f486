"""A finding (one problem at one place) and the source map that places front-matter fields in their file."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Finding:
    """One problem at one place: printed as `path:line:col: CODE message`."""

    path: str
    line: int
    col: int
    code: str
    message: str
    severity: Severity = "error"
    subject: str = field(default="", compare=False)  # the id a finding is about, for the site-wide checks that refine it

    def __str__(self) -> str:
        """One line, whatever the path or message quote: a newline in either would print a line that reads
        as another finding."""
        return f"{printable(self.path)}:{self.line}:{self.col}: {self.code} {printable(self.message)}"

    def as_dict(self) -> dict[str, object]:
        return {"path": printable(self.path), "line": self.line, "col": self.col, "code": self.code,
                "severity": self.severity, "message": printable(self.message)}


def close_match(wrong: str, known: Iterable[str]) -> str | None:
    """The known name a mistyped one most likely meant, if any is close enough."""
    close = difflib.get_close_matches(wrong, list(known), n=1)
    return close[0] if close else None


def did_you_mean(guess: str | None) -> str:
    """What a message adds for a likely typo: " (did you mean 'guess'?)", or nothing without a guess."""
    return f" (did you mean '{guess}'?)" if guess else ""


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def printable(text: str) -> str:
    """Control characters as escapes, and the bytes of a name that is not UTF-8 (which Python holds as lone
    surrogates) as \\xNN."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_escaped, text)


def shown_name(name: str) -> str:
    """A file name as findings print it: bytes that are not UTF-8 and control characters as \\xNN (a line feed
    too, which printable() would show as \\n)."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda found: f"\\x{ord(found[0]):02x}" if ord(found[0]) < 256 else f"\\u{ord(found[0]):04x}", text)


def _escaped(found: re.Match) -> str:
    code = ord(found[0])
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else ascii(found[0])[1:-1]


Loc = tuple[str | int, ...]


@dataclass(frozen=True)
class SourceMap:
    """Where each front-matter node starts in the file, keyed by its path of keys and indexes."""

    path: str
    marks: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    quoted: dict[Loc, bool] = field(default_factory=dict)
    plain: dict[Loc, str] = field(default_factory=dict)  # an unquoted scalar YAML did not read as text, as written

    def at(self, loc: Loc) -> tuple[int, int]:
        """The nearest recorded place of loc: itself, else its closest ancestor."""
        while loc not in self.marks and loc:
            loc = loc[:-1]
        return self.marks.get(loc, (1, 1))

    def finding(self, loc: Loc, code: str, message: str, subject: str = "") -> Finding:
        line, col = self.at(loc)
        return Finding(self.path, line, col, code, message, subject=subject)


def counted(number: int, noun: str) -> str:
    """'1 story', '2 stories', '0 manifests': how every message counts things."""
    plural = noun[:-1] + "ies" if noun.endswith("y") else noun + "s"
    return f"{number:,} {noun if number == 1 else plural}"
