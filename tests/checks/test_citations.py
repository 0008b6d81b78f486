"""LP031 beyond its fixture: supported figures pass, a figure is compared with the claim it rests on, and only
the claims a paragraph may use count (one the ledger leaves out is LP027)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree


def _codes(root: Path, code: str) -> list[str]:
    return [str(f) for f in check_site(Run(root, Options(drafts=True))).findings if f.code == code]


def test_base_site_figures_are_in_the_claims_it_cites(site: Path):
    assert _codes(site, "LP031") == []


def test_a_figure_written_differently_is_still_supported(tmp_path: Path):
    story = STORY.replace("a busway budget of 12,500,000 dollars", "a busway budget of $12500000.00") \
                 .replace("rose 14% in a year", "rose 14.0% in a year")
    assert _codes(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), "LP031") == []


def test_claims_the_ledger_does_not_use_do_not_count(tmp_path: Path):
    story = STORY.replace('claims: ["2000000000000000011", "2000000000000000012"]', 'claims: ["2000000000000000012"]')
    found = [str(f) for f in check_site(Run(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), Options(drafts=True))).findings]
    assert found == [f"{STORY_PATH}:27:41: LP027 paragraph: '12,500,000 dollars' rests on claim '2000000000000000011' of "
                     "'Council minutes, November session' (1000000000000000001) (\"The council approved a busway budget of "
                     "12,500,000 dollars.\"), which the ledger does not list: expected it in the ledger, e.g. claims: "
                     "[..., \"2000000000000000011\"]"]


def test_a_small_number_in_a_claim_supports_a_figure(tmp_path: Path):
    manifest = MANIFEST_A.replace("The vote was 9 to 2.", "The vote was 9 to 2, costing 9 dollars a head.")
    story = STORY.replace("on a 9 to 2 vote.", "on a 9 to 2 vote, or $9 a head.")
    files = {**base_files(), "content/manifests/1000000000000000001.json": manifest, STORY_PATH: story}
    assert _codes(write_tree(tmp_path, files), "LP031") == []


def test_figures_in_link_targets_and_cite_markers_are_not_read(tmp_path: Path):
    story = STORY.replace("on a 9 to 2 vote.", "on a 9 to 2 vote ([minutes](https://council.example.org/2031/11)).")
    assert _codes(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), "LP031") == []


def test_the_column_is_the_figure_even_after_a_link_with_the_same_number(tmp_path: Path):
    story = STORY.replace("on a 9 to 2 vote.", "on a 9 to 2 vote ([see](/2031/)), to finish in 2031.")
    [found] = _codes(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), "LP031")
    line = story.split("\n")[26]
    assert found.startswith(f"{STORY_PATH}:27:{line.index('2031.') + 1}: LP031 paragraph: date '2031' ")


# Every place a reader sees a figure: (the base story's text, what fails, the exact finding, what passes).
_SLUG = 'title: "Council funds the Quay Street busway"\n'
_ROW = "## Why now\n\n| Measure | Change |\n|---|---|\n| Riders | up {} [cites: 1000000000000000002] |\n"
_RIDERS = "('Transit ridership report' (1000000000000000002): \"Ridership on Quay Street buses rose 14% in a year.\")"
_BUDGET = ("('Council minutes, November session' (1000000000000000001): \"The council approved a busway budget of "
           "12,500,000 dollars.\")")
_ROUNDED = "or the claim's value rounded to what the sentence writes, with a hedge"
PLACES = {
    "title": (_SLUG, 'title: "Council funds a $14 million Quay Street busway"\nslug: council-funds-the-quay-street-busway\n',
              f"2:25: LP031 title: the sentence says '$14 million' where the claim it rests on says '12,500,000 dollars' "
              f"{_BUDGET}: expected 12,500,000 dollars, {_ROUNDED}",
              'title: "Council funds a $12.5 million Quay Street busway"\nslug: council-funds-the-quay-street-busway\n'),
    "description": ("after a year of rising ridership.", "after ridership rose 15% in a year.",
                    f"3:75: LP031 description: the sentence says '15%' where the claim it rests on says '14%' {_RIDERS}: "
                    f"expected 14%, {_ROUNDED}", "after ridership rose 14 percent in a year."),
    "heading": ("## Why now\n", "## Why now: ridership up 15%\n",
                f"29:26: LP031 heading: the sentence says '15%' where the claim it rests on says '14%' {_RIDERS}: "
                f"expected 14%, {_ROUNDED}", "## Why now: ridership up 14%\n"),
    "table row": ("## Why now\n", _ROW.format("15%"),
                  f"33:15: LP031 table row: the sentence says '15%' where the claim it rests on says '14%' {_RIDERS}: "
                  f"expected 14%, {_ROUNDED}", _ROW.format("14%")),
    "key fact": ("The council approved the busway budget, 9 to 2.", "The council approved the busway budget of $12.5 billion, 9 to 2.",
                 f"14:54: LP031 key fact: the sentence says '$12.5 billion' where the claim it rests on says '12,500,000 "
                 f"dollars' {_BUDGET}: expected 12,500,000 dollars, {_ROUNDED}",
                 "The council approved the busway budget of $12.5 million, 9 to 2."),
    "list item": ("Supporters pointed to the ridership figures.", "Supporters pointed to ridership up 1.4%.",
                  f"33:38: LP031 list item: the sentence says '1.4%' where the claim it rests on says '14%' {_RIDERS}: "
                  f"expected 14%, {_ROUNDED}", "Supporters pointed to ridership up 14 per cent."),
    "date": ("on a 9 to 2 vote.", "on a 9 to 2 vote on November 19.",
             "27:80: LP031 paragraph: date 'November 19' is in none of the claims the ledger uses from 1000000000000000001, "
             "nor the published date of a cited manifest or of the story: expected a date as a cited claim states it",
             "on a 9 to 2 vote on November 20."),  # the minutes' own published date
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_figure_is_checked_wherever_a_reader_sees_it(place: str, tmp_path: Path):
    old, bad, finding, good = PLACES[place]
    failing = write_tree(tmp_path / "fails", {**base_files(), STORY_PATH: STORY.replace(old, bad, 1)})
    assert [str(f) for f in check_site(Run(failing, Options(drafts=True))).findings] == [f"{STORY_PATH}:{finding}"]
    passing = write_tree(tmp_path / "passes", {**base_files(), STORY_PATH: STORY.replace(old, good, 1)})
    assert [str(f) for f in check_site(Run(passing, Options(drafts=True))).findings] == []


@pytest.mark.parametrize("written, claim", [("$3.6 billion", "$3.6 million"), ("3.6%", "3.6 points"), ("$3.6 million", "3.6 million euros"),
                                            ("36%", "3.6%"), ("1.5x", "1.5"), ("December 15", "December 14")])
def test_a_figure_differing_in_unit_scale_or_day_is_one_finding(written: str, claim: str, tmp_path: Path):
    manifest = MANIFEST_A.replace("The vote was 9 to 2.", f"The vote was 9 to 2 on {claim}.")
    story = STORY.replace("on a 9 to 2 vote.", f"on a 9 to 2 vote on {written}.")
    files = {**base_files(), "content/manifests/1000000000000000001.json": manifest, STORY_PATH: story}
    [finding] = _codes(write_tree(tmp_path, files), "LP031")
    assert f"'{written}'" in finding


@pytest.mark.parametrize("written, claim", [("$3.6 billion", "$3,600 million"), ("$3.6bn", "3.6 billion dollars"),
                                            ("47 percent", "47%"), ("3.6 per cent", "3.6%"), ("$3-4 billion", "$3 billion to $4 billion"),
                                            ("2026-12-14", "December 14"), ("14 December 2026", "December 14")])
def test_a_figure_written_another_way_is_supported(written: str, claim: str, tmp_path: Path):
    manifest = MANIFEST_A.replace("The vote was 9 to 2.", f"The vote was 9 to 2 on {claim}.")
    story = STORY.replace("on a 9 to 2 vote.", f"on a 9 to 2 vote on {written}.")
    files = {**base_files(), "content/manifests/1000000000000000001.json": manifest, STORY_PATH: story}
    assert _codes(write_tree(tmp_path, files), "LP031") == []
