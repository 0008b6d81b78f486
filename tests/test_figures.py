"""The figure extractor: SPEC LP031's definition, case by case."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from generator.checks.figures import _NUMBER, figures, numbers

FIGURES = [
    ("33,540", "33,540", "33540"),
    ("1.39x", "1.39x", "1.39"),
    ("$9", "$9", "9"),
    ("47%", "47%", "47"),
    ("€1.2bn", "€1.2bn", "1.2"),
    ("2026", "2026", "2026"),
    ("£3", "£3", "3"),
    ("4×", "4×", "4"),
    ("12,500,000 dollars.", "12,500,000", "12500000"),
    ("rose 14%, the agency says", "14%", "14"),
    ("(1.50)", "1.50", "1.5"),
    ("the 1990s", "1990", "1990"),
    ("a 2,000-seat hall", "2,000", "2000"),
    ("US$9 a month", "$9", "9"),
    ("on 2026-11-21", "2026", "2026"),
]

NOT_FIGURES = ["B300", "NVFP4", "W4A4", "GPT-4", "4-bit", "Llama 2", "19", "October 20,", "9 to 2", "v1.2",
               "1.2.3", "3x3", "0x1F", "COVID-19", "H100s", "x86", "12k"]


@pytest.mark.parametrize("text, written, core", FIGURES)
def test_figure(text: str, written: str, core: str):
    [figure] = figures(text)
    assert figure.text == written and figure.core == Decimal(core)
    assert text[figure.offset:].startswith(written)


@pytest.mark.parametrize("text", NOT_FIGURES)
def test_not_a_figure(text: str):
    assert figures(text) == []


def test_punctuation_after_a_number_is_not_part_of_it():
    found = figures("It cost $612, up 6.8%. Then 2031; then 3,412.")
    assert [f.text for f in found] == ["$612", "6.8%", "2031", "3,412"]


def test_numbers_compare_by_value():
    assert figures("1.5")[0].core == figures("1.50")[0].core
    assert figures("33,540")[0].core == figures("33540")[0].core


def test_numbers_include_the_small_ones_a_claim_states():
    assert [n.text for n in numbers("The vote was 9 to 2 in 2026.")] == ["9", "2", "2026"]
    assert [n.qualifies for n in numbers("9 to 2 in 2026")] == [False, False, True]


def test_offsets_point_into_the_text():
    text = "From $612 to $654 a year, 6.8% more."
    assert [(f.offset, text[f.offset]) for f in figures(text)] == [(5, "$"), (13, "$"), (26, "6")]


def test_numbers_are_found_where_the_whole_pattern_would_find_them():
    """Numbers are looked for only where a sign or digit stands (in ASCII text, by a quicker pattern): the same
    matches as trying every position."""
    rng = random.Random(3)
    alphabet = "0123456789,.$€£%x×kmbtKMBT -/A_é٣\n"  # ٣: a digit outside ASCII
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert [m.span() for m in _NUMBER.finditer(text)] == [(f.offset, f.offset + len(f.text)) for f in numbers(text)]
