"""LP040 beyond its fixture: another story on the same topic passes; window and threshold come from site.toml."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from generator.cli import cli
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import SITE_TOML, STORY, STORY_PATH, base_files, write_tree

COPY_PATH = "content/stories/2026-11-22/quay-street-busway-wins-council-funding.md"
TITLE = 'title: "Council funds the Quay Street busway"'
COPY = (STORY.replace(TITLE, 'title: "Quay Street busway wins council funding"')
             .replace("published: 2026-11-21T10:30:00Z", "published: 2026-11-22T08:00:00Z")
             .replace("- Two members voted against.", "- Two members of the council voted against the plan."))
OTHER_PATH = "content/stories/2026-11-22/quay-street-riders-wait-for-their-busway.md"
OTHER = (STORY.replace(TITLE, 'title: "Quay Street riders wait for their busway"')
              .replace("published: 2026-11-21T10:30:00Z", "published: 2026-11-22T08:00:00Z")
              .split("## The vote")[0] + """\
## On the street

Riders at the Quay Street stops said the buses were full most mornings, which the transit agency's figures
bear out: ridership rose 14% in a year. [cites: 1000000000000000002]

## At the council

The money is there now: councillors set aside 12,500,000 dollars, and the motion carried 9 to 2.
[cites: 1000000000000000001]

- Riders asked when the lanes would open. [cites: 1000000000000000002]
- The council gave no date. [cites: 1000000000000000001, 1000000000000000002]
""")


def _lp040(root: Path) -> list[str]:
    return [str(f) for f in check_site(Run(root, Options(drafts=True))).findings if f.code == "LP040"]


def test_a_different_story_on_the_same_topic_is_not_a_repeat(tmp_path: Path):
    root = write_tree(tmp_path, {**base_files(), OTHER_PATH: OTHER})
    assert [str(f) for f in check_site(Run(root, Options(drafts=True))).findings] == []


def test_a_light_edit_repeats_within_the_window_only(tmp_path: Path):
    root = write_tree(tmp_path, {**base_files(), COPY_PATH: COPY})
    assert _lp040(root) == [f"{COPY_PATH}:2:1: LP040 repeats {STORY_PATH} (similarity 0.82, threshold 0.6"
                            "): expected a story that tells what is new, or, for a follow-up that must restate it, waive: {LP040: \"<why>\"}"]
    write_tree(root, {"content/site.toml": SITE_TOML.replace("duplicate_window_days = 7", "duplicate_window_days = 0")})
    assert _lp040(root) == []
    write_tree(root, {"content/site.toml": SITE_TOML.replace("duplicate_threshold = 0.6", "duplicate_threshold = 0.9")})
    assert _lp040(root) == []


def test_lp040_as_a_warning_prints_but_does_not_fail(tmp_path: Path):
    root = write_tree(tmp_path, {**base_files(), COPY_PATH: COPY,
                                 "content/site.toml": SITE_TOML + '\n[checks]\nLP040 = "warning"\n'})
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{COPY_PATH}:2:1: LP040 repeats {STORY_PATH} (similarity 0.82, "
                                          "threshold 0.6): expected a story that tells what is new, or, for a follow-up that must restate it, waive: {LP040: \"<why>\"} (warning)"]


def test_a_rebuild_from_the_memo_finds_the_repeats_a_cold_check_finds(tmp_path: Path):
    """The candidate index kept in the memo (items by key and time only) is updated after an edit: the
    rebuild reports what a check of the same files from scratch reports."""
    root = write_tree(tmp_path, {**base_files(), COPY_PATH: COPY, OTHER_PATH: OTHER,
                                 "content/site.toml": SITE_TOML + '\n[checks]\nLP040 = "warning"\n'})
    runner = CliRunner()
    assert runner.invoke(cli, ["build", "--root", str(root), "--no-search"]).exit_code == 0
    for old, new in (("Two members of the council voted against the plan.", "Two councillors voted against it."),
                     ("The council gave no date.", "The council has not given a date.")):
        for path in (COPY_PATH, OTHER_PATH):
            story = root / path
            story.write_text(story.read_text().replace(old, new))
        result = runner.invoke(cli, ["build", "--root", str(root), "--no-search"])
        assert result.exit_code == 0, result.output
        reported = [line.removesuffix(" (warning)") for line in result.stderr.splitlines() if "LP040" in line]
        assert reported == _lp040(root) and reported
