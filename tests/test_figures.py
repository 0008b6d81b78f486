"""The figure parser: SPEC LP031's definition and 6.1's units, scales and dates, form by form."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from generator.checks.figures import _NUMBER, figures, parsed

# (text, the figure as written, its value with scale and sign, its unit)
FORMS = [
    # plain figures (SPEC LP031)
    ("33,540", "33,540", "33540", ""),
    ("2026", "2026", "2026", ""),
    ("(1.50)", "1.50", "1.5", ""),
    ("the 1990s", "1990", "1990", ""),
    ("a 2,000-seat hall", "2,000", "2000", ""),
    ("rose to 1,250.5 tonnes", "1,250.5", "1250.5", ""),
    # currencies: signs, codes, words
    ("$9", "$9", "9", "$"),
    ("£3", "£3", "3", "£"),
    ("€1.2bn", "€1.2bn", "1200000000", "€"),
    ("US$9 a month", "$9", "9", "$"),
    ("USD 3.6bn", "USD 3.6bn", "3600000000", "$"),
    ("EUR 40", "EUR 40", "40", "€"),
    ("12,500,000 dollars.", "12,500,000 dollars", "12500000", "$"),
    ("3.6 million euros", "3.6 million euros", "3600000", "€"),
    ("40 US dollars", "40 US dollars", "40", "$"),
    # scale words and suffixes
    ("$3.6 billion", "$3.6 billion", "3600000000", "$"),
    ("$3,600 million", "$3,600 million", "3600000000", "$"),
    ("$3.6bn", "$3.6bn", "3600000000", "$"),
    ("$3.6 bn", "$3.6 bn", "3600000000", "$"),
    ("3.6m riders", "3.6m", "3600000", ""),
    ("3.6 mn riders", "3.6 mn", "3600000", ""),
    ("12k", "12k", "12000", ""),
    ("19 thousand", "19 thousand", "19000", ""),
    ("2 trillion", "2 trillion", "2000000000000", ""),
    ("$1.5tn", "$1.5tn", "1500000000000", "$"),
    ("$22.8 Million", "$22.8 Million", "22800000", "$"),
    # percent in all spellings, points, multipliers
    ("47%", "47%", "47", "%"),
    ("rose 14%, the agency says", "14%", "14", "%"),
    ("47 percent", "47 percent", "47", "%"),
    ("47 per cent", "47 per cent", "47", "%"),
    ("47 per-cent", "47 per-cent", "47", "%"),
    ("47 pct", "47 pct", "47", "%"),
    ("47\u00a0%", "47\u00a0%", "47", "%"),
    ("6.6 percentage points", "6.6 percentage points", "6.6", "pp"),
    ("a 9.4-point increase", "9.4-point", "9.4", "pp"),
    ("up 3pp", "3pp", "3", "pp"),
    ("1.39x", "1.39x", "1.39", "x"),
    ("4×", "4×", "4", "x"),
    ("2.5 times faster", "2.5 times", "2.5", "x"),
    # negatives
    ("fell -3.6% in", "-3.6%", "-3.6", "%"),
    ("a change of −1.2 points", "−1.2 points", "-1.2", "pp"),
    ("(-$40)", "-$40", "-40", "$"),
]

# (text, [(figure as written, value, unit)]): a range's first number takes the unit and scale of its last
RANGES = [
    ("$3-4 billion", [("$3", "3000000000", "$"), ("4 billion", "4000000000", "$")]),
    ("$3–4 billion", [("$3", "3000000000", "$"), ("4 billion", "4000000000", "$")]),
    ("10 to 20 percent", [("10", "10", "%"), ("20 percent", "20", "%")]),
    ("3-4%", [("3", "3", "%"), ("4%", "4", "%")]),
    ("from $612 to $654 a year", [("$612", "612", "$"), ("$654", "654", "$")]),
    ("2020-2024", [("2020", "2020", ""), ("2024", "2024", "")]),
]

# (text, date as (year or None, month, day), written)
DATES = [
    ("on October 19 the", (None, 10, 19), "October 19"),
    ("on 19 October the", (None, 10, 19), "19 October"),
    ("Oct. 19", (None, 10, 19), "Oct. 19"),
    ("Sept 3", (None, 9, 3), "Sept 3"),
    ("October 19th, 2026 and", (2026, 10, 19), "October 19th, 2026"),
    ("on December 15, 2026.", (2026, 12, 15), "December 15, 2026"),
    ("19 October 2026", (2026, 10, 19), "19 October 2026"),
    ("the 13 November outage", (None, 11, 13), "13 November"),
    ("on 2026-11-21", (2026, 11, 21), "2026-11-21"),
    ("at 2026-11-21T10:30:00Z", (2026, 11, 21), "2026-11-21T10:30:00Z"),
    ("May 5", (None, 5, 5), "May 5"),
]

NOT_FIGURES = ["B300", "NVFP4", "W4A4", "GPT-4", "4-bit", "Llama 2", "19", "9 to 2", "v1.2", "1.2.3", "3x3", "0x1F",
               "COVID-19", "H100s", "x86", "Tidewell-3B", "route 7", "3x3 grid", "A4 paper", "MP3"]

# Numbers, and dates that are not dates: a month without a day is a year or nothing, an invalid day is a number.
NOT_DATES = [("in March 2027", ["2027"]), ("may 5", ["5"]), ("February 30", ["30"]),
             ("the 32 October", ["32"])]


@pytest.mark.parametrize("text, written, value, unit", FORMS)
def test_figure_forms(text: str, written: str, value: str, unit: str):
    [figure] = figures(text)
    assert (figure.text, figure.value, figure.unit) == (written, Decimal(value), unit)
    assert text[figure.offset:].startswith(written)


@pytest.mark.parametrize("text, expected", RANGES)
def test_ranges(text: str, expected: list[tuple[str, str, str]]):
    assert [(f.text, f.value, f.unit) for f in figures(text)] == [(t, Decimal(v), u) for t, v, u in expected]


@pytest.mark.parametrize("text, date, written", DATES)
def test_dates(text: str, date: tuple, written: str):
    [figure] = figures(text)
    assert (figure.date, figure.text) == (date, written)
    assert text[figure.offset:].startswith(written)


@pytest.mark.parametrize("text", NOT_FIGURES)
def test_not_a_figure(text: str):
    assert figures(text) == []


@pytest.mark.parametrize("text, found", NOT_DATES)
def test_not_a_date(text: str, found: list[str]):
    assert [(n.text, n.date) for n in parsed(text)] == [(written, None) for written in found]


def test_value_equal_forms_are_equal():
    forms = ["$3.6 billion", "$3.6bn", "$3,600 million", "USD 3.6bn", "$3600000000", "3.6 billion dollars"]
    assert {(f.unit, f.magnitude) for form in forms for f in figures(form)} == {("$", Decimal("3.6E9"))}
    assert figures("$3.6 million")[0].magnitude != figures("$3.6 billion")[0].magnitude
    assert figures("3.6%")[0].unit != figures("3.6")[0].unit


def test_punctuation_after_a_number_is_not_part_of_it():
    found = figures("It cost $612, up 6.8%. Then 2031; then 3,412.")
    assert [f.text for f in found] == ["$612", "6.8%", "2031", "3,412"]


def test_numbers_compare_by_value():
    assert figures("1.5")[0].core == figures("1.50")[0].core
    assert figures("33,540")[0].core == figures("33540")[0].core


def test_numbers_include_the_small_ones_a_claim_states():
    assert [n.text for n in parsed("The vote was 9 to 2 in 2026.")] == ["9", "2", "2026"]
    assert [n.qualifies for n in parsed("9 to 2 in 2026")] == [False, False, True]


def test_a_date_takes_its_year_which_is_then_no_figure_of_its_own():
    assert [f.text for f in figures("On October 19, 2026, 1,200 people came.")] == ["October 19, 2026", "1,200"]


def test_offsets_point_into_the_text():
    text = "From $612 to $654 a year, 6.8% more."
    assert [(f.offset, text[f.offset]) for f in figures(text)] == [(5, "$"), (13, "$"), (26, "6")]


def test_numbers_are_found_where_the_whole_pattern_would_find_them():
    """Numbers are looked for only where a sign or digit stands (in ASCII text, by a quicker pattern): each
    starts where the whole pattern, tried at every position, finds a number (dates, codes and signs before it
    may widen what is kept)."""
    rng = random.Random(3)
    alphabet = "0123456789,.$€£%x×kmbtKMBT -/A_é٣\n"  # ٣: a digit outside ASCII
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        starts = [m.start("core") - (1 if m["sign"] else 0) for m in _NUMBER.finditer(text)]
        found = parsed(text)
        assert len(found) == len(starts)
        assert all(f.offset <= start for f, start in zip(found, starts))


def test_parsing_is_bounded_on_long_and_hostile_text():
    text = ("1," * 20000) + "9 " + "$" * 20000 + "October " * 5000
    assert len(parsed(text)) < 20000
