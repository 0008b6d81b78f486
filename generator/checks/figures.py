"""Figures in prose (SPEC LP031): the numbers a reader would check against a source."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal

_NUMBER = re.compile(r"""
    (?=[$€£\d])                               # a cheap first test at each position
    (?P<sign>[$€£])?
    (?<!\w)(?<!\w[-.,/])                      # not inside a word: B300, NVFP4, GPT-4, v1.2
    (?P<core>\d{1,3}(?:,\d{3})+(?:\.\d+)?     # 33,540 or 1,250.5
            |\d+(?:\.\d+)?)                   # 2026 or 1.39
    (?![.,]?\d)                               # the whole number, not a run of parts: 1.2.3
    (?P<suffix>%|×|(?:x|bn|mn|tn|[kmbtKMBT])(?![^\W_]))?
    (?![^\W\d_]+\d)                           # not followed by letters then a digit: 4A4, 3x3
""", re.VERBOSE)
_SIGNS = frozenset("%$€£x×")
_START = re.compile(r"[$€£\d]")  # where a number may start: found far faster than _NUMBER tries each position
# The same in ASCII text (most of it): its bytes mapped to b"1" where a number may start, b"0" elsewhere, and
# the 1s found by bytes.find (memchr), three times quicker than a character class searched by the regex engine.
_START_ASCII = bytes(ord("1") if chr(byte) in "$0123456789" else ord("0") for byte in range(256))


@dataclass(frozen=True)
class Figure:
    """A number as written, where it starts in its text, and its value for comparing."""

    text: str
    offset: int
    core: Decimal
    qualifies: bool = True


def numbers(text: str) -> list[Figure]:
    """Every number not part of a word, figure or not (a claim's '9 to 2' still states 9)."""
    found = []
    for match in _matches(text):
        core = match["core"]
        marks = {match["sign"], match["suffix"]} & _SIGNS
        qualifies = bool(marks) or "." in core or "," in core or sum(c.isdigit() for c in core) >= 3
        found.append(Figure(match[0], match.start(), Decimal(core.replace(",", "")), qualifies))
    return found


def _matches(text: str) -> Iterator[re.Match[str]]:
    """_NUMBER.finditer(text), trying _NUMBER only where a sign or a digit stands."""
    match, position, next_start = _NUMBER.match, 0, _starts(text)
    while (start := next_start(position)) >= 0:
        found = match(text, start)
        if found is None:
            position = start + 1
        else:
            yield found
            position = found.end()


def _starts(text: str) -> Callable[[int], int]:
    """A function of a position: where the next sign or digit from there stands in text (-1: none)."""
    if text.isascii():
        return functools.partial(text.encode("ascii").translate(_START_ASCII).find, b"1")
    search = _START.search
    return lambda position: -1 if (found := search(text, position)) is None else found.start()


def figures(text: str) -> list[Figure]:
    """The figures in text: three or more digits, a decimal point or thousands separator, or a %, $, €, £, x, ×."""
    return [number for number in numbers(text) if number.qualifies]
