"""`ledgerpress check` as a user and a code-review tool meet it: SARIF that Microsoft's validator accepts, a
summary that counts what was checked, drafts that only warn, and a hint where one helps."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from generator.engine.build_options import Options
from generator.engine.inputs import Run
from generator.engine.site_check import check_site
from tests.commands import ledgerpress
from tests.conftest import STORY, STORY_PATH, add_uncited_line, base_files, demo_copy, write_tree

REPO = Path(__file__).resolve().parent.parent
MULTITOOL = REPO / "node_modules" / ".bin" / "sarif-multitool"
DRAFT_PATH = "content/stories/2026-11-21/a-draft.md"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "site", base_files())


def _with_problems(site: Path) -> None:
    """An error, a warning set by [checks], and a draft with an error of its own."""
    toml = site / "content/site.toml"
    toml.write_text(toml.read_text() + '\n[checks]\nLP010 = "warning"\n')
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("newsroom: city", "newsroom: nowhere")
                     .replace("## Why now\n", "## Why now\n\nThis paragraph cites nothing, café.\n"))
    draft = STORY.replace("title: \"Council funds the Quay Street busway\"", "title: \"A draft\"\ndraft: true")
    write_tree(site, {DRAFT_PATH: draft.replace("## The vote\n", "## The vote\n\nNo citation in the draft.\n")})


def validate(log: Path, out: Path) -> list[dict]:
    """Microsoft's SARIF validator (its warnings and errors; notes are style advice)."""
    if not MULTITOOL.exists():
        pytest.fail(f"sarif-multitool is missing at {MULTITOOL}: run `npm ci --ignore-scripts` (see .ci/run)")
    env = {**os.environ, "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"}  # (a .NET program: no ICU needed)
    done = subprocess.run([str(MULTITOOL), "validate", str(log), "--output", str(out), "--log", "ForceOverwrite"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text(encoding="utf-8-sig"))["runs"][0]["results"]


def test_sarif_is_valid_and_holds_every_finding(site: Path, tmp_path: Path):
    _with_problems(site)
    text = ledgerpress("check", cwd=site)
    sarif = ledgerpress("check", "--format", "sarif", cwd=site)
    assert sarif.returncode == text.returncode == 1 and sarif.stderr == ""
    log = tmp_path / "check.sarif"
    log.write_text(sarif.stdout)
    assert validate(log, tmp_path / "validation.sarif") == []
    run = json.loads(sarif.stdout)["runs"][0]
    assert run["tool"]["driver"]["name"] == "ledgerpress"
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    found = []
    for result in run["results"]:
        place = result["locations"][0]["physicalLocation"]
        assert rules[result["ruleIndex"]] == result["ruleId"]
        found.append(f"{place['artifactLocation']['uri']}:{place['region']['startLine']}:"
                     f"{place['region']['startColumn']}: {result['ruleId']} {result['message']['text'].rstrip('.')}"
                     f"{'' if result['level'] == 'error' else ' (warning)'}")
    assert found == text.stdout.splitlines()
    levels = {(r["ruleId"], r["level"]) for r in run["results"]}
    assert levels == {("LP010", "warning"), ("LP030", "error"), ("LP030", "warning")}  # the draft's LP030 warns
    snippet = next(r for r in run["results"] if r["ruleId"] == "LP010")["locations"][0]["physicalLocation"]
    assert snippet["region"]["snippet"]["text"] == "newsroom: nowhere"


def test_a_clean_site_is_valid_sarif_with_no_results(site: Path, tmp_path: Path):
    sarif = ledgerpress("check", "--format", "sarif", cwd=site)
    assert sarif.returncode == 0
    log = tmp_path / "clean.sarif"
    log.write_text(sarif.stdout)
    assert validate(log, tmp_path / "validation.sarif") == []
    assert json.loads(sarif.stdout)["runs"][0]["results"] == []


def test_the_summary_counts_what_was_checked(site: Path):
    clean = ledgerpress("check", cwd=site)
    assert clean.returncode == 0 and clean.stdout == ""
    assert clean.stderr.splitlines()[-1] == "0 errors, 0 warnings; 1 story, 2 manifests, 1 page checked"
    _with_problems(site)
    failed = ledgerpress("check", cwd=site)
    assert failed.stderr.splitlines()[-1] == "1 error, 2 warnings; 2 stories (1 draft), 2 manifests, 1 page checked"


def test_a_draft_is_checked_and_only_warns(site: Path):
    draft = STORY.replace("title: \"Council funds the Quay Street busway\"", "title: \"A draft\"\ndraft: true")
    write_tree(site, {DRAFT_PATH: draft.replace("newsroom: city", "newsroom: nowhere")})
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 0
    assert checked.stdout.splitlines() == [f"{DRAFT_PATH}:6:1: LP010 newsroom 'nowhere' is not declared in site.toml: "
                                           "expected one of city, science, or nowhere declared under [newsrooms] "
                                           "there (warning)"]
    # a draft is left out of the site-wide comparisons, as it is left out of the build: the same body twice
    assert "LP040" not in checked.stdout
    as_json = json.loads(ledgerpress("check", "--format", "json", cwd=site).stdout)
    assert [(f["code"], f["severity"]) for f in as_json] == [("LP010", "warning")]


def test_check_agrees_with_build_about_a_draft(site: Path):
    """A draft that is valid YAML but fails its rules: check warns, build leaves it out and succeeds."""
    write_tree(site, {DRAFT_PATH: STORY.replace("title: \"Council funds the Quay Street busway\"",
                                                "title: \"A draft\"\ndraft: true").replace("[cites: 1000000000000000001]\n\n## Why", "\n\n## Why")})
    checked = ledgerpress("check", cwd=site)
    built = ledgerpress("build", cwd=site)
    assert checked.returncode == built.returncode == 0, built.stderr
    assert "LP030" in checked.stdout and not (site / "public/stories/2026-11-21/a-draft").exists()


def test_build_leaves_out_a_new_draft_with_placeholders(site: Path):
    assert ledgerpress("new", "Not yet", "--newsroom", "city", "--beat", "policy", cwd=site).returncode == 0
    assert ledgerpress("check", cwd=site).returncode == 0
    assert ledgerpress("build", cwd=site).returncode == 0


def test_check_in_an_empty_folder_says_how_to_start(tmp_path: Path):
    checked = ledgerpress("check", cwd=tmp_path)
    assert checked.returncode == 1 and "LP002 site.toml is missing" in checked.stdout
    assert "`ledgerpress init` starts one" in checked.stderr
    assert list(tmp_path.iterdir()) == []


def test_check_suggests_pulling_missing_manifests_from_a_store(site: Path):
    write_tree(site, {"content/manifests/1000000000000000002.json": None})
    without = ledgerpress("check", cwd=site)
    assert "LP022" in without.stdout and "manifests pull" not in without.stderr
    toml = site / "content/site.toml"
    toml.write_text(toml.read_text() + '\n[manifests]\nstore = "https://records.example.org/m/{id}"\n')
    hinted = ledgerpress("check", cwd=site)
    assert hinted.returncode == 1 and "`ledgerpress manifests pull` fetches them" in hinted.stderr


def test_every_command_and_option_has_whole_help():
    from click import Group

    from generator.cli import cli

    listing = ledgerpress("--help", cwd=REPO).stdout
    commands = listing[listing.index("Commands:"):]
    assert "..." not in commands and "…" not in commands
    stack = list(cli.commands.items())
    while stack:
        name, command = stack.pop()
        assert command.help and command.help.strip().endswith((".", ")")), name
        if isinstance(command, Group):
            stack.extend((f"{name} {sub}", child) for sub, child in command.commands.items())
        for param in command.params:
            if param.param_type_name == "option":
                assert param.help and param.help.endswith((".", ")")), f"{name} {param.opts}"


def test_words_after_a_paragraph_s_last_citation_are_lp030(site: Path):
    story = site / STORY_PATH
    text = story.read_text()
    story.write_text(text.replace("9 to 2 vote. [cites: 1000000000000000001]",
                                  "9 to 2 vote. [cites: 1000000000000000001] The mayor then resigned.", 1)
                     .replace("voted against. [cites: 1000000000000000001, 1000000000000000002]",
                              "voted against. [cites: 1000000000000000001, 1000000000000000002].", 1))
    done = ledgerpress("check", cwd=site)
    found = [line for line in done.stdout.splitlines() if " LP030 " in line]
    assert done.returncode == 1 and len(found) == 1  # a full stop after the last one is not words
    assert "paragraph goes on after its last [cites: …] ('The mayor then resigned.')" in found[0]


def test_a_check_reads_again_only_what_changed_and_finds_what_a_fresh_check_finds(tmp_path: Path,
                                                                                   stories_read: list[str]):
    """The second check reads only the story edited since the first (the rest from the check's memo), and
    prints exactly what a check that reads everything prints, the edit's new error included."""
    from click.testing import CliRunner

    from generator.cli import cli

    root = demo_copy(tmp_path / "site")
    assert CliRunner().invoke(cli, ["check", "--root", str(root)]).exit_code == 0
    edited = add_uncited_line(root, 3)
    stories_read.clear()
    cached = CliRunner().invoke(cli, ["check", "--root", str(root), "--format", "json"])
    assert stories_read == [edited.relative_to(root).as_posix()]
    fresh = CliRunner().invoke(cli, ["check", "--root", str(root), "--format", "json", "--force"])
    assert cached.exit_code == fresh.exit_code == 1
    assert cached.stdout == fresh.stdout and edited.name in cached.stdout


def test_publish_checks_the_site_from_the_check_s_memo(tmp_path: Path, stories_read: list[str]):
    """publish checks the site as check does, reading no story a check before it read unchanged, and still
    refuses a site whose edit brought an error."""
    from click.testing import CliRunner

    from generator.cli import cli

    root = demo_copy(tmp_path / "site")
    assert CliRunner().invoke(cli, ["build", "--root", str(root), "--no-search"]).exit_code == 0
    assert CliRunner().invoke(cli, ["check", "--root", str(root)]).exit_code == 0
    stories_read.clear()
    done = CliRunner().invoke(cli, ["publish", str(tmp_path / "out"), "--root", str(root), "--dry-run"])
    assert done.exit_code == 0, done.output
    assert stories_read == []
    edited = add_uncited_line(root, 3)
    refused = CliRunner().invoke(cli, ["publish", str(tmp_path / "out"), "--root", str(root), "--dry-run"])
    assert refused.exit_code == 1 and "publish refused" in refused.output
    assert stories_read == [edited.relative_to(root).as_posix()]


def test_an_id_written_without_quotes_hides_no_other_finding_of_its_story(site: Path):
    """An unquoted id (LP004) made the story's front matter unreadable to every other rule: its LP020 and LP024
    showed only on the run after the quotes were added."""
    story = (STORY.replace('  - manifest: "1000000000000000002"', "  - manifest: 1000000000000000002")
             .replace('claims: ["2000000000000000021"]', 'claims: ["2000000000000000021", "2999999999999999999"]')
             .replace("[cites: 1000000000000000001]\n\n## Why", "[cites: 1000000000000000009]\n\n## Why"))
    write_tree(site, {STORY_PATH: story})
    found = sorted({f.code for f in check_site(Run(site, Options(jobs=1))).findings if f.path == STORY_PATH})
    assert found == ["LP004", "LP020", "LP024"], found


def test_an_undeclared_term_close_to_a_declared_one_asks_did_you_mean(site: Path):
    write_tree(site, {STORY_PATH: STORY.replace("newsroom: city", "newsroom: citty")})
    found = [f.message for f in check_site(Run(site, Options(jobs=1))).findings if f.code == "LP010"]
    assert found == ["newsroom 'citty' is not declared in site.toml (did you mean 'city'?): expected one of city, "
                     "science, or citty declared under [newsrooms] there"], found


@pytest.mark.parametrize("paragraph, suggested", [
    ("Ridership on the buses rose in a year.", "1000000000000000002"),
    ("The council approved the busway budget.", "1000000000000000001"),
    ("Nothing here is in either source.", "1000000000000000001"),  # (no word shared: the ledger's first)
])
def test_a_paragraph_with_no_citation_is_told_the_manifest_whose_claims_it_reads_like(site: Path, paragraph: str,
                                                                                       suggested: str):
    write_tree(site, {STORY_PATH: STORY.replace("## Why now\n", f"## Why now\n\n{paragraph}\n")})
    found = [f.message for f in check_site(Run(site, Options(jobs=1))).findings if f.code == "LP030"]
    assert len(found) == 1 and f"e.g. [cites: {suggested}]" in found[0], found
