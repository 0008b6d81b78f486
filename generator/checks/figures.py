"""Figures in prose (SPEC LP031, 6.1): the numbers and dates a reader would check against a source, each with
its unit and scale, so that `$3.6 billion` is compared with `$3,600 million` and not with `$3.6 million`."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal

_NUMBER = re.compile(r"""
    (?=[$€£\d])                               # a cheap first test at each position
    (?P<sign>[$€£])?
    (?<!\w)(?<!\w[.,/])(?<![^\W\d_]-)         # not inside a word: B300, NVFP4, GPT-4, v1.2 (but 3-4 is a range)
    (?P<core>\d{1,3}(?:,\d{3})+(?:\.\d+)?     # 33,540 or 1,250.5
            |\d+(?:\.\d+)?)                   # 2026 or 1.39
    (?![.,]?\d)                               # the whole number, not a run of parts: 1.2.3
    (?P<suffix>%|×|(?:x|bn|mn|tn|pp|[kmbtKMBT])(?![^\W_]))?
    (?![^\W\d_]+\d)                           # not followed by letters then a digit: 4A4, 3x3
""", re.VERBOSE)
# What may follow a number, spaced: a percent, points, a multiplier, a scale word, a currency named in words.
_AFTER = re.compile(r"""
    (?P<percent>[ \u00a0\u202f]%|\ (?:percent|per[ -]cent|pct)\b)
   |(?P<points>\ percentage[ -]points?\b|[ -]points?\b|\ ?ppts?\b)
   |(?P<times>\ times\b|\ ×|-fold\b)
   |(?P<scale>[\ -](?:thousand|million|billion|trillion|bn|mn|tn)\b)(?P<named>\ (?:US\ )?(?:dollars?|euros?)\b)?
   |(?P<currency>\ (?:US\ )?(?:dollars?|euros?)\b)
""", re.VERBOSE | re.IGNORECASE)
_AFTER_STARTS = frozenset(" -\u00a0\u202f")  # what must follow a number for _AFTER to match
_CODE = re.compile(r"(?<![^\W\d_])(USD|EUR|GBP) ?$")
_RANGE = re.compile(r"[ ]?[-–—][ ]?|\ to\ ")
_MONTH = ("January|February|March|April|May|June|July|August|September|October|November|December"
          "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec")
_MONTHS = {name: number for number, names in enumerate((
    ("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May",), ("June", "Jun"),
    ("July", "Jul"), ("August", "Aug"), ("September", "Sept", "Sep"), ("October", "Oct"),
    ("November", "Nov"), ("December", "Dec")), start=1) for name in names}
_MONTH_BEFORE = re.compile(rf"(?<![^\W\d_])({_MONTH})\.? $")               # "October 19", "Oct. 19"
_DAY_AFTER = re.compile(r"(?:st|nd|rd|th)?(?![^\W_])(?:,? (?P<year>\d{4})(?!\w))?")
_MONTH_AFTER = re.compile(rf"(?:st|nd|rd|th)? (?P<month>{_MONTH})\b(?:,? (?P<year>\d{{4}})(?!\w))?")  # "19 October 2026"
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])")
_SCALES = {"k": 3, "thousand": 3, "m": 6, "mn": 6, "million": 6, "b": 9, "bn": 9, "billion": 9,
           "t": 12, "tn": 12, "trillion": 12}
_CURRENCIES = {"$": "$", "€": "€", "£": "£", "usd": "$", "eur": "€", "gbp": "£", "dollar": "$", "dollars": "$",
               "euro": "€", "euros": "€"}
_START = re.compile(r"[$€£\d]")  # where a number may start: _NUMBER is tried only there, not at every position
# The same in ASCII text (most of it): its bytes mapped to b"1" where a number may start, b"0" elsewhere, so
# that bytes.find (memchr) finds the next start rather than the regex engine's scan of a character class.
_START_ASCII = bytes(ord("1") if chr(byte) in "$0123456789" else ord("0") for byte in range(256))

Date = tuple[int | None, int, int]  # (year or None, month, day)


@dataclass(frozen=True)
class Figure:
    """A number or date as written, where it starts in its text, and what it states: its value with its
    scale applied (3.6 billion: 3600000000) and its unit ("" | "$" | "€" | "£" | "%" | "pp" | "x"), or a date."""

    text: str
    offset: int
    core: Decimal                 # the number as written, without separators: 3.6
    qualifies: bool = True        # a figure, not just a number (SPEC LP031)
    value: Decimal | None = None  # scaled, signed: -3600000000
    unit: str = ""
    date: Date | None = None
    scaled: bool = False          # a scale word or suffix was written (or given by the range it ends)

    @property
    def magnitude(self) -> Decimal:
        return abs(self.core if self.value is None else self.value)


def figures(text: str) -> list[Figure]:
    """The figures in text: dates, and numbers with three or more digits, a decimal point or thousands
    separator, a currency, percent or multiplier, or a scale (thousand, million, k, bn…)."""
    return [number for number in parsed(text) if number.qualifies]


@functools.lru_cache(maxsize=1 << 14)
def parsed(text: str) -> tuple[Figure, ...]:
    """Every number and date not part of a word, in order, figure or not (a claim's '9 to 2' still states 9;
    claims are cited by many stories: each is read once); a number that starts a range takes the scale and
    unit of the number that ends it."""
    found: list[Figure] = []
    for figure in _scan(text):
        if found and figure.date is None and found[-1].date is None:
            previous = found[-1]
            if _RANGE.fullmatch(text, previous.offset + len(previous.text), figure.offset):
                found[-1], figure = _ranged(previous, figure)
        found.append(figure)
    return tuple(found)


def _scan(text: str) -> Iterator[Figure]:
    position, next_start = 0, _starts(text)
    while (start := next_start(position)) >= 0:
        match = _NUMBER.match(text, start)
        if match is None:
            position = start + 1
            continue
        figure = _date(text, match) or _number(text, match)
        position = max(figure.offset + len(figure.text), start + 1)
        yield figure


def _number(text: str, match: re.Match[str]) -> Figure:
    core_text, suffix = match["core"], match["suffix"]
    start, end = match.start(), match.end()
    currency = match["sign"] or ""
    unit, scale = "", 0
    if suffix:
        lower = suffix.lower()
        if suffix == "%":
            unit = "%"
        elif lower in ("x", "×"):
            unit = "x"
        elif lower == "pp":
            unit = "pp"
        else:
            scale = _SCALES[lower]
    after = _AFTER.match(text, end) if (not suffix or scale) and text[end:end + 1] in _AFTER_STARTS else None
    if after is not None and not (scale and after["scale"]):
        end = after.end()
        if after["percent"]:
            unit = "%"
        elif after["points"]:
            unit = "pp"
        elif after["times"]:
            unit = "x"
        elif after["scale"]:
            scale = _SCALES[after["scale"].strip(" -").lower()]
            currency = currency or _currency(after["named"])
        else:
            currency = currency or _currency(after["currency"])
    if not currency and start >= 3 and text[start - 1] in "DRP " and (code := _CODE.search(text, start - 4 if start > 3 else 0, start)):
        currency, start = _CURRENCIES[code[1].lower()], code.start()
    negative = start > 0 and text[start - 1] in "-−" and (start == 1 or not text[start - 2].isalnum())
    if negative:
        start -= 1
    core = Decimal(core_text.replace(",", ""))
    value = core.scaleb(scale) * (-1 if negative else 1)
    qualifies = bool(currency or unit or scale) or "." in core_text or "," in core_text or len(core_text) >= 3
    return Figure(text[start:end], start, core, qualifies, value, unit or currency, None, bool(scale))


def _currency(words: str | None) -> str:
    return _CURRENCIES[words.split()[-1].lower()] if words else ""


def _ranged(first: Figure, last: Figure) -> tuple[Figure, Figure]:
    """`$3-4 billion`, `10 to 20 percent`: the first number takes the scale and unit of the last, the last the
    currency of the first."""
    if not first.scaled and first.unit in ("", "$", "€", "£") and (last.scaled or last.unit in ("%", "pp", "x")):
        value = first.core * (last.value / last.core if last.core else 1)
        unit = first.unit if first.unit and last.unit == "" else last.unit
        first = Figure(first.text, first.offset, first.core, True, value, unit or first.unit, None, last.scaled)
    if first.unit in ("$", "€", "£") and last.unit == "":
        last = Figure(last.text, last.offset, last.core, True, last.value, first.unit, None, last.scaled)
    return first, last


def _date(text: str, match: re.Match[str]) -> Figure | None:
    """A date around this number: `October 19`, `19 October 2026`, `Oct. 19, 2026`, `2026-10-19`."""
    digits, start, end = match["core"], match.start(), match.end()
    if match["sign"] or match["suffix"] or not digits.isdigit():
        return None
    if len(digits) == 4 and (iso := _ISO.match(text, start)):
        return _dated(text, start, iso.end(), (int(iso[1]), int(iso[2]), int(iso[3])))
    if len(digits) > 2:
        return None
    if start >= 4 and text[start - 1] == " " and (text[start - 2].isalpha() or text[start - 2] == ".") and (
            before := _MONTH_BEFORE.search(text, max(start - 11, 0), start)) and (after := _DAY_AFTER.match(text, end)):
        year = int(after["year"]) if after["year"] else None
        return _dated(text, before.start(), after.end(), (year, _MONTHS[before[1]], int(digits)))
    if text[end:end + 1] in " snrt" and (after := _MONTH_AFTER.match(text, end)):
        year = int(after["year"]) if after["year"] else None
        return _dated(text, start, after.end(), (year, _MONTHS[after["month"]], int(digits)))
    return None


def _dated(text: str, start: int, end: int, date: Date) -> Figure | None:
    year, month, day = date
    if not (1 <= month <= 12 and 1 <= day <= _DAYS[month - 1]):
        return None
    return Figure(text[start:end], start, Decimal(day), True, None, "", date)


_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _starts(text: str) -> Callable[[int], int]:
    """A function of a position: where the next sign or digit from there stands in text (-1: none)."""
    if text.isascii():
        return functools.partial(text.encode("ascii").translate(_START_ASCII).find, b"1")
    search = _START.search
    return lambda position: -1 if (found := search(text, position)) is None else found.start()
