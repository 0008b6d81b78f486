"""Quantities and dates as a sentence or a claim states them (LP031): every number with its unit (through pint,
so that 160 miles is about 257 km), the noun it counts, the hedge before it ("about", "more than") and the
precision it is written to; counts in words ("seven"), shares ("half", "three in four"); and dates, years,
months, weekdays, quarters, seasons and times of day. `agrees` says whether a claim's quantity supports a
sentence's."""

from __future__ import annotations

import calendar
import functools
import math
import re
from dataclasses import dataclass
from decimal import Decimal

from .figures import parsed
from .lexicon import lexicon

# The words that carry no content of their own, for reading a clause closely (the stop_words package's list,
# which alignment uses, also drops words such as "new", "highest", "year" and "number").
FUNCTION = frozenset("""a an the this that these those it its it's he him his she her hers they them their theirs
we us our ours you your yours i me my mine who whom whose which what where when why how there here of in on at by
for with from to into onto over under about above below between among through during before after since until
till upon within without against toward towards across along around behind beyond than as and or but nor so if
then else because while whereas although though whether be is am are was were been being have has had having do
does did done will would shall should can could may might must also just very too quite rather such some any
each both either neither other another own same more most much many few several lot lots one's said says say
told per cent percent not no figure figures""".split())  # ("the figure was 19.7%": says nothing of what)
_STOP = FUNCTION

# The units a figure may carry (a word or symbol after it), as pint names. "degrees" alone is either scale.
_UNITS: dict[str, tuple[str, ...]] = {
    "mile": ("miles", "mile", "mi"),
    "kilometer": ("kilometres", "kilometre", "kilometers", "kilometer", "km", "kms"),
    "meter": ("metres", "metre", "meters", "meter", "m"),
    "centimeter": ("centimetres", "centimetre", "centimeters", "centimeter", "cm"),
    "millimeter": ("millimetres", "millimetre", "millimeters", "millimeter", "mm"),
    "foot": ("feet", "foot", "ft"),
    "inch": ("inches", "inch", "in."),
    "yard": ("yards", "yard", "yd"),
    "mile / hour": ("mph", "miles per hour", "miles an hour", "mile-per-hour"),
    "kilometer / hour": ("km/h", "kmh", "kph", "kilometres per hour", "kilometers per hour", "kilometres an hour",
                         "kilometers an hour"),
    "knot": ("knots", "knot", "kt", "kts"),
    "degC": ("°c", "degrees celsius", "degrees centigrade", "degrees c", "celsius", "c"),
    "degF": ("°f", "degrees fahrenheit", "degrees f", "fahrenheit", "f"),
    "degree": ("degrees", "degree", "°"),
    "kilogram": ("kilograms", "kilogram", "kg", "kgs", "kilos"),
    "gram": ("grams", "gram"),
    "metric_ton": ("tonnes", "tonne", "metric tons", "metric tonnes"),
    "short_ton": ("tons", "ton"),
    "pound": ("pounds", "pound", "lb", "lbs"),
    "liter": ("litres", "litre", "liters", "liter"),
    "milliliter": ("millilitres", "milliliters", "ml"),
    "gallon": ("gallons", "gallon"),
    "acre": ("acres", "acre"),
    "hectare": ("hectares", "hectare", "ha"),
    "mile ** 2": ("square miles", "square mile", "sq mi"),
    "kilometer ** 2": ("square kilometres", "square kilometers", "square kilometre", "square kilometer", "sq km",
                       "km2", "km²"),
    "foot ** 2": ("square feet", "square foot", "sq ft"),
    "meter ** 2": ("square metres", "square meters", "square metre", "square meter", "sq m", "m2", "m²"),
    "megawatt": ("megawatts", "megawatt", "mw"),
    "gigawatt": ("gigawatts", "gigawatt", "gw"),
    "kilowatt": ("kilowatts", "kilowatt", "kw"),
    "megawatt_hour": ("megawatt-hours", "megawatt hours", "megawatt-hour", "mwh"),
    "kilowatt_hour": ("kilowatt-hours", "kilowatt hours", "kilowatt-hour", "kwh"),
    "gigawatt_hour": ("gigawatt-hours", "gigawatt hours", "gwh"),
    "terawatt_hour": ("terawatt-hours", "terawatt hours", "twh"),
    "hour": ("hours", "hour", "hrs", "hr"),
    "minute": ("minutes", "minute", "mins", "min"),
    "second": ("seconds", "second", "secs", "sec"),
    "day": ("days", "day"),
    "week": ("weeks", "week"),
    "month": ("months", "month"),
    "year": ("years", "year", "yrs"),
    "microgram / meter ** 3": ("micrograms per cubic metre", "micrograms per cubic meter", "µg/m³", "µg/m3",
                               "μg/m³", "μg/m3", "ug/m3"),
    "milligram / meter ** 3": ("milligrams per cubic metre", "milligrams per cubic meter", "mg/m³", "mg/m3"),
    "milligram / liter": ("milligrams per litre", "milligrams per liter", "mg/l"),
    "microgram / liter": ("micrograms per litre", "micrograms per liter", "µg/l", "μg/l", "ug/l"),
}
_SURFACE = {surface: unit for unit, surfaces in _UNITS.items() for surface in surfaces}
# Case matters for single letters: 35C is Celsius, 35c is not; "m" is metres only spaced and lower-case (35m is
# $35 million's scale, which checks.figures reads).
_UNIT_AFTER = re.compile(r"(?:[ \u00a0\u202f-]?)(" + "|".join(
    re.escape(s) for s in sorted(_SURFACE, key=len, reverse=True) if len(s) > 1 and s not in ("c", "f")) +
    r")(?![\w/²])|(°?[CF])(?![\w])|(?-i: (m))(?![\w/²])", re.IGNORECASE)
_SINGLE_CASE = {"°c", "°f", "c", "f"}
_NOUN = re.compile(r"[ \u00a0-]+([^\W\d_]{2,}(?:[ -][^\W\d_]{2,}){0,3})")
_WORDS_NUMBERS = {w: n for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
_TENS = {w: 10 * n for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if n > 1}
_NUMBER_WORD = re.compile(
    r"(?<![\w-])(?:(a|two|three|four|five|six)\s+dozen|(" + "|".join(_TENS) + r")(?:[- ](" +
    "|".join(list(_WORDS_NUMBERS)[1:10]) + r"))?|(" + "|".join(list(_WORDS_NUMBERS)[2:]) + r"))(?![\w-])",
    re.IGNORECASE)
_COUNTED = r"\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty"
_SHARE = re.compile(rf"(?<![\w-])({_COUNTED})(?:\s+[a-z]+)?\s+(?:in|out\s+of|of\s+every)\s+(\d{{1,4}}|[a-z]+)(?![\w-])",
                    re.IGNORECASE)  # "three in four", "six crimes in seven"
_AND_HALF = re.compile(r"(?<![\w-])(\d+|[a-z]+) and a half (times|years|months|weeks|days|hours|miles|kilometres|"
                       r"kilometers|metres|meters|feet|inches)(?![\w-])", re.IGNORECASE)
_OF = re.compile(r"(?<![\w.,])(\d{1,6})\s+of\s+(?:the\s+|its\s+|their\s+|all\s+)?(\d{1,6})(?![\w.,])")
_DURATION = re.compile(r"(?<![\d:.])(\d{1,2}):([0-5]\d):([0-5]\d)(?![\d:])")
_FISCAL = re.compile(r"(?<![\w-])((?:19|20)\d\d)[-–/](\d\d)(?![\w-])")
_QUARTER = re.compile(r"(?<![\w-])(?:(first|second|third|fourth|1st|2nd|3rd|4th)[- ]quarter|q([1-4]))(?![\w-])",
                      re.IGNORECASE)
_HALF = re.compile(r"(?<![\w-])(?:(first|second)[- ]half|h([12]))(?![\w-])", re.IGNORECASE)
_SEASON = re.compile(r"(?<![\w-])(?:(?<=this )|(?<=last )|(?<=next )|(?<=the )|(?<=in )|(?<=of )|(?<=during )|"
                     r"(?<=early )|(?<=late )|(?<=since ))(spring|summer|autumn|fall|winter)(?![\w-])", re.IGNORECASE)
_WEEKDAY = re.compile(r"(?<![\w-])(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?(?![\w-])")
_MONTH_NAMES = ("January|February|March|April|May|June|July|August|September|October|November|December|"
                "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec")
_MONTH = re.compile(r"(?<![\w-])(?:(?<=in )|(?<=from )|(?<=since )|(?<=until )|(?<=till )|(?<=by )|(?<=of )|"
                    r"(?<=last )|(?<=next )|(?<=this )|(?<=early )|(?<=late )|(?<=mid-)|(?<=through )|"
                    r"(?<=between )|(?<=and )|(?<=to )|(?<=during )|(?<=before )|(?<=after ))?(" + _MONTH_NAMES +
                    r")\.?(?:,? ((?:19|20)\d\d))?(?![\w-])")
_TIME = re.compile(r"(?<![\w.:])(\d{1,2})(?::(\d\d))?\s*(a\.?m\.?|p\.?m\.?)(?![\w])|(?<![\w.:])([01]?\d|2[0-3]):([0-5]\d)"
                   r"(?![\w:])|(?<![\w-])(noon|midday|midnight)(?![\w-])", re.IGNORECASE)
_SEASONS = {"spring": 1, "summer": 2, "autumn": 3, "fall": 3, "winter": 4}
_QUARTERS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}
_MONTH_NUMBERS = {name.lower(): number for number, names in enumerate((
    ("January", "Jan"), ("February", "Feb"), ("March", "Mar"), ("April", "Apr"), ("May",), ("June", "Jun"),
    ("July", "Jul"), ("August", "Aug"), ("September", "Sept", "Sep"), ("October", "Oct"),
    ("November", "Nov"), ("December", "Dec")), start=1) for name in names}


_DIGIT = re.compile(r"\d")
_TRIGGERS = {
    "time": frozenset({"am", "pm", "a.m", "p.m", "noon", "midday", "midnight"}),
    "worded": frozenset([*_WORDS_NUMBERS, *_TENS, "dozen", "half", "third", "thirds", "quarter", "quarters", "fifth",
                         "fifths", "tenth", "one-third", "two-thirds", "one-quarter", "three-quarters", "one-fifth",
                         "two-fifths", "three-fifths", "four-fifths", "one-tenth", "in", "of"]),
    "periods": frozenset({"q1", "q2", "q3", "q4", "h1", "h2", "quarter", "half", "spring", "summer", "autumn", "fall",
                          "winter", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                          "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays"}),
    "months": frozenset(_MONTH_NUMBERS),
}


@dataclass(frozen=True)
class Quantity:
    """A number as written, what it states, and how exactly."""

    start: int
    end: int
    text: str
    value: float
    unit: str             # "" | "$" "€" "£" | "%" | "pp" | "x" | "share" (a fraction of 1) | a pint unit
    noun: str = ""        # the words it counts ("extra overflow beds"), lower-cased
    hedge: str = ""       # "" or a lexicon.yaml hedge: about, below, under, above, over, least
    precision: float = 1  # the unit of its last written digit (3.46: 0.01), scale applied
    coarse: float = 1     # the same, counting two or more trailing zeros as unwritten digits (3,000: 1000)
    words: bool = False   # written in words
    derived: bool = False  # read off other figures ("14 of its 22": a share): it supports, it is never judged

    @property
    def physical(self) -> bool:
        return self.unit not in ("", "$", "€", "£", "%", "pp", "x", "share") and not self.unit.startswith("label:")


@dataclass(frozen=True)
class When:
    """A date or period as written: kind, and its value (a tuple: date (year|None, month, day), month
    (year|None, month), year (year,), fiscal (first year, second), weekday (0-6,), quarter (n,), half (n,),
    season (n,), time (minutes,))."""

    start: int
    end: int
    text: str
    kind: str
    value: tuple


def quantities(text: str, words: frozenset[str] | None = None) -> tuple[list[Quantity], list[When]]:
    """Every quantity and date of a text, in order (a number that is part of a date or time is not a quantity).
    `words`: the text's words lower-cased, when known: the patterns none of whose words it holds are not tried."""
    words = words if words is not None else frozenset(re.findall(r"[^\W_]+(?:[-.'][^\W_]+)*", text.lower()))
    digits = _DIGIT.search(text) is not None
    whens: list[When] = []
    taken: list[tuple[int, int]] = []
    durations = []
    for match in _DURATION.finditer(text) if digits else ():  # a race time, 2:07:15: seconds
        seconds = int(match[1]) * 3600 + int(match[2]) * 60 + int(match[3])
        durations.append(Quantity(match.start(), match.end(), match[0], float(seconds), "second"))
        taken.append(match.span())
    for match in _TIME.finditer(text) if digits or not words.isdisjoint(_TRIGGERS["time"]) else ():
        whens.append(When(match.start(), match.end(), match[0], "time", (_minutes(match),)))
        taken.append(match.span())
    for match in _FISCAL.finditer(text) if digits else ():
        first, second = int(match[1]), int(match[1][:2] + match[2])
        if second == first + 1:
            whens.append(When(match.start(), match.end(), match[0], "fiscal", (first, second)))
            taken.append(match.span())
    for when in _months(text, taken) if not words.isdisjoint(_TRIGGERS["months"]) else ():
        whens.append(when)
        taken.append((when.start, when.end))
    found: list[Quantity] = durations
    for figure in parsed(text) if digits else ():
        span = (figure.offset, figure.offset + len(figure.text))
        if _inside(span, taken):
            continue
        if figure.date is not None:
            whens.append(When(*span, figure.text, "date", figure.date))
            taken.append(span)
            continue
        core = figure.core
        if (figure.unit == "" and not figure.scaled and "," not in figure.text and "." not in figure.text
                and 1800 <= core <= 2100 and core == int(core)):
            whens.append(When(*span, figure.text, "year", (int(core),)))
            taken.append(span)
            continue
        found.append(_quantity(text, figure, span))
    if not words.isdisjoint(_TRIGGERS["periods"]):
        whens.extend(_periods(text, taken))
    if not words.isdisjoint(_TRIGGERS["worded"]):
        found.extend(_worded(text, words, [*taken, *((q.start, q.end) for q in found)]))
    found.sort(key=lambda q: q.start)
    whens.sort(key=lambda w: w.start)
    return found, whens


def _inside(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(start <= span[0] < end or start < span[1] <= end for start, end in taken)


_LABEL = re.compile(r"(?<![\w.])([A-Z][a-z]+)\.? $")  # "Route 14", "Chapter 11", "No. 5": a name, not a count
_TALLY_AFTER = re.compile(r"[-–]\d")  # ("the Rams 104-98": a score, not a name)


def _quantity(text: str, figure, span: tuple[int, int]) -> Quantity:
    start, end = span
    unit, value = figure.unit, float(figure.value if figure.value is not None else figure.core)
    if unit == "" and not figure.scaled and not _UNIT_AFTER.match(text, end) and not _TALLY_AFTER.match(text, end) and (
            label := _LABEL.search(text, max(0, start - 16), start)) and (
            label[1].lower() not in _MONTH_NUMBERS and label[1].lower() not in _STOP and start > label.start() > 0):
        return Quantity(start, end, text[start:end], value, "label:" + label[1].lower())
    if unit == "" and not figure.scaled and (match := _UNIT_AFTER.match(text, end)):
        surface = match[1] or match[2] or match[3]
        key = surface if surface.lower() in _SINGLE_CASE and surface[-1].isupper() else surface.lower()
        key = key.lower() if key.lower() not in ("c", "f") else key
        if key in _SURFACE or key.lower() in _SURFACE:
            unit = _SURFACE.get(key, _SURFACE.get(key.lower()))
            end = match.end()
    noun = _noun(text, end)
    exponent = figure.core.as_tuple().exponent
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    scale = figure.value / figure.core if figure.value is not None and figure.core else Decimal(1)
    precision = float(Decimal(1).scaleb(-decimals) * abs(scale)) if decimals else float(abs(scale))
    coarse = precision
    if not decimals:
        digits = str(int(figure.core))
        zeros = len(digits) - len(digits.rstrip("0")) if int(figure.core) else 0
        coarse = precision * 10 ** min(zeros, len(digits) - 1) if zeros >= 2 else precision
    hedge = _hedge(text, start)
    return Quantity(start, end, text[start:end], value, unit, noun, hedge, precision, coarse)


_OF_COUNT = re.compile(r" of (?:the |its |their |all |[\w']+'s )?(?:[\d,]+ )?")


def _noun(text: str, end: int) -> str:
    """The words a figure counts: those after it up to a stop word ("12 extra overflow beds during"); after "of
    the 12" in "9 of the city's 12 wards", the words after that."""
    if (of := _OF_COUNT.match(text, end)) is not None and text[of.end():of.end() + 1].isalpha():
        end = of.end() - 1
    match = _NOUN.match(text, end)
    if match is None:
        return ""
    found = []
    for word in re.split(r"[ -]", match[1].lower()):
        if word in _STOP or len(word) >= 5 and word.endswith("ed"):
            break  # ("24.8% received an A": a verb, no noun counted)
        found.append(word)
    return " ".join(found)


def _hedge(text: str, start: int) -> str:
    """The hedge written just before a figure (through a currency sign, "a", "of")."""
    before = text[max(0, start - 40):start].lower().replace("\u00a0", " ").rstrip(" $€£")
    words = re.findall(r"[\w.]+", before)[-5:]
    for name, listed in lexicon().hedges.items():
        for size in range(min(4, len(words)), 0, -1):
            tail = words[-size:]
            if listed.find(tail, 0) == size:
                return name
    return ""


_PERCENT_AFTER = re.compile(r"[ \u00a0-](?:percent|per cent|%)(?!\w)", re.I)


def _worded(text: str, words: frozenset[str], taken: list[tuple[int, int]]) -> list[Quantity]:
    """Counts and shares written in words: "seven", "a dozen", "half", "a third", "three in four"."""
    found: list[Quantity] = []
    lowered = text.lower()
    for match in _AND_HALF.finditer(text):  # "three and a half times", "two and a half years"
        whole = _count(match[1])
        unit = "x" if match[2].lower() == "times" else _SURFACE.get(match[2].lower(), "")
        if whole is not None and not _inside(match.span(), taken):
            found.append(Quantity(match.start(), match.end(), match[0], whole + 0.5, unit, _noun(text, match.end()),
                                  _hedge(text, match.start()), precision=0.5, coarse=0.5, words=True))
            taken.append(match.span())
    for match in _SHARE.finditer(text):
        part, whole = _count(match[1]), _count(match[2])
        if part is not None and whole and 0 < part < whole and not _inside(match.span(), taken):
            found.append(Quantity(match.start(), match.end(), match[0], part / whole, "share",
                                  hedge=_hedge(text, match.start()), precision=0.01, coarse=0.01, words=True))
            taken.append(match.span())
    for match in _OF.finditer(text):
        part, whole = int(match[1]), int(match[2])
        if 0 < part < whole:  # "14 of its 22 girders": a share too, beside the two counts
            found.append(Quantity(match.start(), match.end(), match[0], part / whole, "share", precision=0.001,
                                  coarse=0.001, derived=True))
    for phrase, share in lexicon().fractions.items():
        if phrase.split()[-1] not in words and phrase.split("-")[-1] not in words:
            continue
        for match in re.finditer(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", lowered):
            if _inside(match.span(), taken) or _ordinal_half(lowered, match.start(), phrase):
                continue
            found.append(Quantity(match.start(), match.end(), text[match.start():match.end()], share, "share",
                                  hedge=_hedge(text, match.start()), precision=0.01, coarse=0.01, words=True))
            taken.append(match.span())
    for match in _NUMBER_WORD.finditer(text):
        if _inside(match.span(), taken):
            continue
        value = _count(match[0])
        if value is None:
            continue
        end = match.end()
        after = text[end:end + 12].lower()
        if after.startswith((" in ", " out of", " of every", "-third", " third", " quarter", "-quarter", " fifth",
                             "-fifth", " tenth")):
            continue
        unit = ""
        if (after_unit := _UNIT_AFTER.match(text, end)) and (surface := (after_unit[1] or "").lower()) in _SURFACE:
            unit, end = _SURFACE[surface], after_unit.end()
        elif percent := _PERCENT_AFTER.match(text, end):  # "Sixty percent"
            unit, end = "%", percent.end()
        found.append(Quantity(match.start(), end, text[match.start():end], float(value), unit, _noun(text, end),
                              _hedge(text, match.start()), words=True))
    return found


def _ordinal_half(lowered: str, start: int, phrase: str) -> bool:
    """"second half", "half an hour", "half-time", "a third candidate", "three and a half times": no share."""
    after_phrase = lowered[start + len(phrase):start + len(phrase) + 12]
    if phrase.startswith(("a ", "one ")) and re.match(r" (?!of\b|more\b|less\b|fewer\b|as\b)[a-z]", after_phrase):
        return True  # "a third candidate" is the third one
    if lowered[max(0, start - 6):start].endswith("and ") and re.match(r"\w+ and $", lowered[max(0, start - 20):start]):
        return True  # "three and a half times": a multiplier
    if phrase != "half":
        return False
    if lowered[max(0, start - 6):start].endswith("other "):
        return True  # "the other half of the picture"
    before = lowered[max(0, start - 8):start]
    after = lowered[start + 4:start + 12]
    return before.endswith(("first ", "second ", "the ")) and not after.startswith(" of") or after.startswith(
        (" an hour", " a ", "-"))


def _count(word: str) -> int | None:
    word = word.lower().strip()
    if word.isdigit():
        return int(word)
    if word in _WORDS_NUMBERS:
        return _WORDS_NUMBERS[word]
    if word.endswith("dozen"):
        first = word.split()[0]
        return 12 * (1 if first == "a" else _WORDS_NUMBERS.get(first, 1))
    parts = re.split(r"[- ]", word)
    if parts[0] in _TENS:
        return _TENS[parts[0]] + (_WORDS_NUMBERS.get(parts[1], 0) if len(parts) > 1 else 0)
    return None


def _minutes(match: re.Match[str]) -> int:
    if match[6]:
        return 0 if match[6].lower() == "midnight" else 12 * 60
    if match[4]:
        return int(match[4]) * 60 + int(match[5])
    hour = int(match[1]) % 12 + (12 if match[3].lower().startswith("p") else 0)
    return hour * 60 + int(match[2] or 0)


def _periods(text: str, taken: list[tuple[int, int]]) -> list[When]:
    found = []
    for match in _QUARTER.finditer(text):
        number = _QUARTERS[match[1].lower()] if match[1] else int(match[2])
        found.append(When(match.start(), match.end(), match[0], "quarter", (number,)))
    for match in _HALF.finditer(text):
        number = 1 if (match[1] or "").lower() == "first" or match[2] == "1" else 2
        found.append(When(match.start(), match.end(), match[0], "half", (number,)))
    for match in _SEASON.finditer(text):
        found.append(When(match.start(), match.end(), match[0], "season", (_SEASONS[match[1].lower()],)))
    for match in _WEEKDAY.finditer(text):
        found.append(When(match.start(), match.end(), match[0], "weekday",
                          (list(calendar.day_name).index(match[1]),)))
    return [when for when in found if not _inside((when.start, when.end), taken)]


def _months(text: str, taken: list[tuple[int, int]]) -> list[When]:
    """A month named without its day ("in January", "April 2027"); a month with a day is a date (checks.figures)."""
    found = []
    for match in _MONTH.finditer(text):
        if _inside(match.span(), taken) or (match[1] == "May" and not match[2] and not _month_context(text, match.start())):
            continue
        if re.match(r"\.? ?\d{1,2}(?!\d)", text[match.end(1):match.end(1) + 4]) or re.search(
                r"\d{1,2}(?:st|nd|rd|th)? $", text[max(0, match.start() - 6):match.start()]):
            continue  # "October 19", "19 October": a date
        year = int(match[2]) if match[2] else None
        found.append(When(match.start(), match.end(), match[0], "month", (year, _MONTH_NUMBERS[match[1].lower()])))
    return found


def _month_context(text: str, start: int) -> bool:
    """"May" is a month after "in", "from", "since", "until", "by", "of", "last", "next", "early", "late"."""
    return bool(re.search(r"(?:\bin|\bfrom|\bsince|\buntil|\bby|\bof|\blast|\bnext|\bearly|\blate|\bmid-|\bthis)\s?$",
                          text[max(0, start - 7):start]))


@functools.cache
def _registry():
    import pint  # (loaded the first time two units differ: most checks never convert)

    return pint.UnitRegistry()


@functools.lru_cache(maxsize=1 << 12)
def converted(value: float, unit: str, into: str) -> float | None:
    """value in unit, in `into` (None: not the same kind of quantity)."""
    registry = _registry()
    try:
        return float(registry.Quantity(value, registry.parse_units(unit)).to(registry.parse_units(into)).magnitude)
    except Exception:  # pint's DimensionalityError and friends: not convertible, so not the same quantity
        return None


# A figure in prose is stated by a claim's number of the same magnitude in one of these units: a currency may
# go unsaid, points are often written bare, but a percent or a multiplier is never a plain number.
_ACCEPTS = {"": ("", "$", "€", "£", "pp"), "pp": ("pp", ""), "$": ("$",), "€": ("€",), "£": ("£",),
            "%": ("%",), "x": ("x",)}


def comparable(said: Quantity, stated: Quantity) -> bool:
    """Whether a claim's quantity is of the kind a sentence's is (then `agrees` judges its value)."""
    if said.unit.startswith("label:") or stated.unit.startswith("label:"):
        return said.unit == stated.unit or stated.unit == ""
    if said.unit == "share" or stated.unit == "share":
        return {said.unit, stated.unit} <= {"share", "%"}
    if said.physical or stated.physical:
        if not (said.physical and stated.physical):
            return said.unit == "" or stated.unit == ""
        if "degree" in (said.unit, stated.unit):
            return said.unit.startswith("deg") and stated.unit.startswith("deg")
        return said.unit == stated.unit or converted(1.0, stated.unit, said.unit) is not None
    return stated.unit in _ACCEPTS.get(said.unit, (said.unit,))


def agrees(said: Quantity, stated: Quantity) -> bool:
    """Whether a claim's quantity supports a sentence's: the same value within the precision the sentence
    writes (the claim's value rounded to it), in the direction its hedge points; a conversion of the claim's
    unit within the precision of the converted figure; a share for a percentage within a point or two."""
    target, conversion = stated.value, False
    if said.unit == "share" and stated.unit == "%":
        target = stated.value / 100
    elif said.unit == "%" and stated.unit == "share":
        target = stated.value * 100
    elif said.physical and stated.physical and said.unit != stated.unit and "degree" not in (said.unit, stated.unit):
        found = converted(stated.value, stated.unit, said.unit)
        if found is None:
            return False
        target, conversion = found, True
    value = said.value
    if said.unit == "share" or (said.unit == "%" and stated.unit == "share"):
        scale = 1 if said.unit == "share" else 100
        return _share_agrees(value / scale if scale == 100 else value, target / scale if scale == 100 else target,
                             said.hedge)
    step = said.coarse if (said.hedge or conversion) else said.precision
    slack = 1e-9 + (0.01 * abs(target) if conversion else 0)
    if stated.hedge and stated.hedge == said.hedge:
        return math.isclose(value, target, rel_tol=1e-9) or abs(value - target) <= step / 2 + slack
    hedge = said.hedge
    if hedge == "about":
        return abs(value - target) <= step / 2 + slack + 0.02 * abs(target)
    if hedge == "below":
        return target < value and value - target <= max(step, 0.1 * abs(value)) + slack
    if hedge == "above":
        return target > value and target - value <= max(step, 0.1 * abs(value)) + slack
    if not hedge and not conversion and _one_digit(said) and not math.isclose(value, target, rel_tol=1e-9):
        return False  # "$4 million" for $3.6 million: rounding that far wants a hedge ("nearly $4 million")
    # "more than 12,000" for 12,340, not for 50,000: a bound a reader takes to be near the value
    if hedge == "under":
        return value / 1.5 - step <= target <= value
    if hedge == "over":
        return value < target <= value * 1.5 + step
    if hedge == "least":
        return value <= target <= value * 1.5 + step
    return abs(value - target) <= step / 2 + slack


def _one_digit(quantity: Quantity) -> bool:
    """Whether a figure is written with one significant digit ("$4 million", "300")."""
    digits = re.sub(r"\D", "", quantity.text.split(" ")[0]).strip("0")
    return len(digits) == 1 and not quantity.words


def _share_agrees(value: float, target: float, hedge: str) -> bool:
    """A share (of 1) written for a claim's share: within 2 points, 4 when hedged with "about"."""
    if hedge == "about":
        return abs(value - target) <= 0.04 + 1e-9
    if hedge == "below":
        return target < value and value - target <= 0.06
    if hedge == "above":
        return target > value and target - value <= 0.06
    if hedge == "under":
        return target < value
    if hedge == "over":
        return target > value
    if hedge == "least":
        return target >= value
    return abs(value - target) <= 0.02 + 1e-9


def weekday(date: tuple, year: int | None) -> int | None:
    """The weekday (0: Monday) of a (year|None, month, day) date, in `year` when it gives none."""
    chosen = date[0] or year
    if chosen is None:
        return None
    try:
        return calendar.weekday(chosen, date[1], date[2])
    except ValueError:
        return None
