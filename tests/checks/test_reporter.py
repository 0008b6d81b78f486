"""A story tree made by hand as a reporter would make it, with one of each mistake issue 21 lists (and two
genuine exceptions, waived): `ledgerpress check` gives exactly one precise finding per mistake.

    tests/checks/reporter/content/   the site          tests/checks/reporter/expected.txt   what check prints"""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from generator.cli import cli

HERE = Path(__file__).parent / "reporter"

# Each mistake and where its one finding points (path suffix, line, code).
MISTAKES = [
    ("a manifest whose source URL is ftp (a raw pattern error before)", "ferry-timetable.json", 4, "LP100"),
    ("a manifest file with broken JSON (no LP022 or figure errors on the story citing it)", "pier-inspection.json", 8, "LP100"),
    ("a paragraph adding a sentence no cited claim says", "channel-silting.md", 20, "LP032"),
    ("one mistyped id in [cites: …] (no LP021, no LP031 for its figure)", "channel-silting.md", 22, "LP020"),
    ("a paragraph citing the wrong manifest of its ledger", "channel-silting.md", 24, "LP032"),
    ("a claim id listed under the wrong manifest", "north-pier-closed.md", 13, "LP024"),
    ("a figure in the title", "port-budget.md", 2, "LP031"),
    ("a figure in the description", "port-budget.md", 4, "LP031"),
    ("$3.6 billion where the claim says $3.6 million", "port-budget.md", 18, "LP031"),
    ("a wrong date: November 15 where the claim says 14", "port-budget.md", 20, "LP031"),
    ("3.6% where the claim says 3.6 points", "port-budget.md", 22, "LP031"),
    ("a figure in a ## heading", "port-budget.md", 24, "LP031"),
    ("a figure in a table row", "port-budget.md", 30, "LP031"),
    ("published without a time zone (a raw pydantic error before)", "ferry-winter-timetable.md", 5, "LP002"),
    ("a story still stating what a retracted source said, without a correction", "pilots-strike.md", 14, "LP026"),
]


def _check(tmp_path: Path):
    root = tmp_path / "site"
    shutil.copytree(HERE / "content", root / "content")
    return CliRunner().invoke(cli, ["check", "--root", str(root)])


def test_each_mistake_gives_exactly_one_precise_finding(tmp_path: Path):
    result = _check(tmp_path)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == (HERE / "expected.txt").read_text(encoding="utf-8").splitlines()
    found = [(line.split(":")[0].rsplit("/", 1)[-1], int(line.split(":")[1]), line.split(": ")[1].split()[0]) for line in lines]
    assert sorted(found) == sorted((name, line, code) for _, name, line, code in MISTAKES)


def test_every_finding_says_what_is_expected(tmp_path: Path):
    for line in _check(tmp_path).stdout.splitlines():
        assert ": expected " in line, line


def test_the_waived_exceptions_and_the_retraction_listing(tmp_path: Path):
    result = _check(tmp_path)
    assert "LP023" not in result.stdout and "LP040" not in result.stdout  # waived, with reasons, in those stories
    assert "retraction: manifest 'pilot-strike'" in result.stderr


MEANING = Path(__file__).parent / "meaning" / "reporter"

# Thirteen stories a reporter wrote against the demo's sources, each with one mistake of meaning, and the one
# finding each gives (story, line, code).
MEANING_MISTAKES = [
    ("'rejected' where the minutes say 'approved'", "harbor-committee-shore-power.md", 22, "LP033"),
    ("'from $654 to $612' where the filing says from $612 to $654", "water-bill-proposal.md", 22, "LP031"),
    ("6,420 adults where the trial enrolled 6,240", "text-reminders-flu.md", 22, "LP031"),
    ("61 kilograms where the minutes say 61 tonnes", "shore-power-emissions.md", 22, "LP031"),
    ("'last summer' where the complaint says last winter", "northgate-heating-complaint.md", 22, "LP031"),
    ("'the largest planting program in the city's history', which no source says", "street-trees-2027.md", 22, "LP035"),
    ("taps 'not shut off' where the report says they were", "school-taps-lead.md", 22, "LP033"),
    ("visits 'fell' where the report says they rose", "rsv-week-46.md", 24, "LP033"),
    ("'more than 150,000 TEU' for 148,200", "port-october-containers.md", 22, "LP031"),
    ("a credit of $25 no source mentions", "outage-transformer.md", 24, "LP031"),
    ("11.8 km/h given as about 12 miles per hour", "route-14-speeds.md", 22, "LP031"),
    ("a sentence of its own: arborists hired, in words no source uses", "arborists-for-new-trees.md", 24, "LP032"),
    ("the rates board proposing what the authority proposes", "rates-board-proposal.md", 22, "LP036"),
]


def test_each_mistake_of_meaning_gives_exactly_one_finding_that_says_what_to_fix(tmp_path: Path):
    root = tmp_path / "site"
    shutil.copytree(MEANING / "content", root / "content")
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == (MEANING / "expected.txt").read_text(encoding="utf-8").splitlines()
    found = [(line.split(":")[0].rsplit("/", 1)[-1], int(line.split(":")[1]), line.split(": ")[1].split()[0]) for line in lines]
    assert sorted(found) == sorted((name, line, code) for _, name, line, code in MEANING_MISTAKES)
    assert all(": expected " in line for line in lines)
