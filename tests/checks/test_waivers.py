"""Per-story `waive:` (checks.waivers), retractions as `check` lists them, and both as the story shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import (
    MANIFEST_A,
    MANIFEST_B,
    STORY,
    STORY_PATH,
    base_files,
    build_in_memory,
    write_tree,
)

OLD_B = MANIFEST_B.replace("2026-11-19T12:00:00Z", "2026-09-01T12:00:00Z")
WAIVE = 'waive:\n  LP023: "The spring ridership report is the latest the agency has published."\nkey_facts:'


def _lines(root: Path) -> list[str]:
    return [str(f) for f in check_site(Run(root, Options(drafts=True))).findings]


def test_a_waived_rule_does_not_fail_the_story_and_is_published_with_its_reason(tmp_path: Path):
    files = {**base_files(), "content/manifests/1000000000000000002.json": OLD_B}
    assert [line.split(": ")[1].split()[0] for line in _lines(write_tree(tmp_path / "a", files))] == ["LP023"]
    root = write_tree(tmp_path / "b", {**files, STORY_PATH: STORY.replace("key_facts:", WAIVE)})
    result = build_in_memory(root)
    assert result.ok and result.findings == []
    page = json.loads(result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.json"])
    assert page["waivers"] == [{"code": "LP023", "rule": "a ledger manifest is not recent",
                                "reason": "The spring ridership report is the latest the agency has published."}]
    assert "LP023" not in page["checks"]
    assert page["checks_line"].endswith("Check LP023 (a ledger manifest is not recent) waived: The spring ridership "
                                        "report is the latest the agency has published.")
    markdown = result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.md"].decode()
    assert "Check LP023 (a ledger manifest is not recent) waived: The spring ridership report" in markdown
    assert "waived: The spring ridership report" in result.files[
        "stories/2026-11-21/council-funds-the-quay-street-busway/index.html"].decode()


def test_a_waiver_covers_only_its_story_and_its_rule(tmp_path: Path):
    story = STORY.replace("key_facts:", WAIVE).replace("on a 9 to 2 vote.", "on a 9 to 2 vote, $14 million.")
    files = {**base_files(), "content/manifests/1000000000000000002.json": OLD_B, STORY_PATH: story}
    assert [line.split(": ")[1].split()[0] for line in _lines(write_tree(tmp_path, files))] == ["LP031"]


@pytest.mark.parametrize("code, message", [
    ("LP001", "waive.LP001: LP001 cannot be waived (LP001-LP005 make a story loadable): fix what it reports instead"),
    ("LP23", "waive.LP23: 'LP23' is not a rule code (LP and three digits): expected e.g. waive: "
             "{LP023: \"archival source, cited for background\"}"),
    ("LP039", "waive: no rule has the code 'LP039' (did you mean 'LP036'?): expected a rule code from `ledgerpress "
              "rules`, e.g. waive: {LP023: \"archival source, cited for background\"}"),
])
def test_a_waiver_of_what_cannot_be_waived_is_lp002(code: str, message: str, tmp_path: Path):
    story = STORY.replace("key_facts:", f'waive:\n  {code}: "because"\nkey_facts:')
    assert _lines(write_tree(tmp_path, {**base_files(), STORY_PATH: story})) == [f"{STORY_PATH}:14:3: LP002 {message}"]


def test_a_correction_dated_before_the_story_is_lp002(tmp_path: Path):
    story = STORY.replace("key_facts:", 'corrections:\n  - date: 2026-11-20\n    text: "Fixed."\nkey_facts:')
    assert _lines(write_tree(tmp_path, {**base_files(), STORY_PATH: story})) == [
        f"{STORY_PATH}:14:5: LP002 corrections.0.date: 2026-11-20 is before the story's published date "
        "2026-11-21T10:30:00+00:00: expected that date or a later one"]


def test_check_lists_every_story_a_retraction_reaches(tmp_path: Path):
    retracted = MANIFEST_A.replace('"brief": "The council\'s November session.",', '"brief": "The council\'s November '
                                   'session.",\n  "retracted": {"date": "2026-11-24T09:00:00Z", "note": "Withdrawn"},')
    root = write_tree(tmp_path, {**base_files(), "content/manifests/1000000000000000001.json": retracted})
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exit_code == 1 and " LP026 " in result.stdout
    assert ("retraction: manifest '1000000000000000001' (retracted 2026-11-24: Withdrawn) is cited by 1 story:\n"
            f"  {STORY_PATH}: no correction yet (LP026)\n") in result.stderr
    corrected = STORY.replace("key_facts:", 'corrections:\n  - date: 2026-11-24\n    text: "The minutes were '
                              'withdrawn."\n    manifest: "1000000000000000001"\nkey_facts:')
    write_tree(root, {STORY_PATH: corrected})
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])  # corrected, but still saying what was withdrawn
    assert result.exit_code == 1 and f"  {STORY_PATH}: corrected\n" in result.stderr
    assert all(" LP026 " in line and "a correction does not withdraw it" in line for line in result.stdout.splitlines())
    write_tree(root, {STORY_PATH: _without_the_minutes(corrected)})
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exit_code == 0 and f"  {STORY_PATH}: corrected\n" in result.stderr, result.stdout


def _without_the_minutes(story: str) -> str:
    """The story as its correction leaves it: what the withdrawn minutes said is gone or said to be withdrawn."""
    return (story.replace('title: "Council funds the Quay Street busway"', 'title: "Quay Street busway: minutes withdrawn"\n'
                          'slug: council-funds-the-quay-street-busway')
            .replace("The council approved the busway budget after a year of rising ridership.",
                     "Ridership rose while the council's minutes on the busway were withdrawn.")
            .replace('  - text: "The council approved the busway budget, 9 to 2."', '  - text: "The minutes of the busway vote were withdrawn."')
            .replace("The council approved a busway budget of 12,500,000 dollars on a 9 to 2 vote.",
                     "The minutes recording the busway vote have been withdrawn."))


def test_the_manifest_page_shows_the_retraction(tmp_path: Path):
    retracted = MANIFEST_B.replace('"text": "Ridership on Quay Street buses rose 14% in a year."}',
                                   '"text": "Ridership on Quay Street buses rose 14% in a year.", "retracted": true}')
    retracted = retracted.replace('"published": "2026-11-19T12:00:00Z",', '"published": "2026-11-19T12:00:00Z",\n  '
                                  '"retracted": {"date": "2026-11-25T08:00:00Z", "note": "The agency withdrew the report"},')
    story = STORY.replace("key_facts:", 'corrections:\n  - date: 2026-11-25\n    text: "The ridership report was '
                          'withdrawn."\n    manifest: "1000000000000000002"\nkey_facts:').replace(
        "Ridership on the street's buses rose 14% in a year, the transit agency says.",
        "The transit agency has withdrawn its ridership report on the street's buses.")
    root = write_tree(tmp_path, {**base_files(), "content/manifests/1000000000000000002.json": retracted, STORY_PATH: story})
    result = build_in_memory(root)
    assert result.ok, [str(f) for f in result.findings]
    page = result.files["manifests/1000000000000000002/index.html"].decode()
    assert "Retracted</strong> on" in page and "The agency withdrew the report" in page and "<del>" in page
    data = json.loads(result.files["manifests/1000000000000000002/index.json"])
    assert data["retracted"]["note"] == "The agency withdrew the report" and data["claims"][0]["retracted"] is True
