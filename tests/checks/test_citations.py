"""LP031 beyond its fixture: supported figures pass, and only the claims a paragraph may use count."""

from __future__ import annotations

from pathlib import Path

from generator.prepare import check_site
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree


def _codes(root: Path, code: str) -> list[str]:
    return [str(f) for f in check_site(root).findings if f.code == code]


def test_base_site_figures_are_in_the_claims_it_cites(site: Path):
    assert _codes(site, "LP031") == []


def test_a_figure_written_differently_is_still_supported(tmp_path: Path):
    story = STORY.replace("a busway budget of 12,500,000 dollars", "a busway budget of $12500000.00") \
                 .replace("rose 14% in a year", "rose 14.0% in a year")
    assert _codes(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), "LP031") == []


def test_claims_the_ledger_does_not_use_do_not_count(tmp_path: Path):
    story = STORY.replace('claims: ["2000000000000000011", "2000000000000000012"]', 'claims: ["2000000000000000012"]')
    found = _codes(write_tree(tmp_path, {**base_files(), STORY_PATH: story}), "LP031")
    assert found == [f"{STORY_PATH}:27:41: LP031 figure '12,500,000 dollars' is not in the claims the ledger uses "
                     "from 1000000000000000001: expected the value, unit and scale a cited claim states"]


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
    assert found.startswith(f"{STORY_PATH}:27:{line.index('2031.') + 1}: LP031 figure '2031' ")
