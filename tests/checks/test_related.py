"""LP050 related stories exist; LP002 [checks] names only rule codes that exist."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from generator.cli import cli
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import SITE_TOML, STORY, STORY_PATH, base_files, write_tree


def test_a_related_story_that_exists_passes(tmp_path: Path):
    related = 'related: ["2026-11-21/council-funds-the-quay-street-busway"]\n'
    story = STORY.replace("\n---\n\n## The vote", f"\n{related}---\n\n## The vote")
    root = write_tree(tmp_path, {**base_files(), STORY_PATH: story})
    assert [str(f) for f in check_site(Run(root, Options(drafts=True))).findings] == []


def test_an_unknown_code_in_checks_is_a_finding_at_its_line(tmp_path: Path):
    toml = SITE_TOML + '\n[checks]\nLP031 = "warning"\nLP999 = "off"\n'
    root = write_tree(tmp_path, {**base_files(), "content/site.toml": toml})
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exit_code == 1
    line = toml.splitlines().index('LP999 = "off"') + 1
    assert result.stdout.splitlines() == [f"content/site.toml:{line}:1: LP002 unknown rule code 'LP999' "
                                          "in [checks] (did you mean 'LP901'?): expected a code from `ledgerpress "
                                          "rules`, e.g. LP031 = \"warning\""]


def test_known_codes_in_checks_are_not_findings(site: Path):
    write_tree(site, {"content/site.toml": SITE_TOML + '\n[checks]\nLP001 = "error"\nLP040 = "warning"\n'})
    assert check_site(Run(site, Options(drafts=True))).findings == []
