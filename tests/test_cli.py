"""The command line as a user meets it: findings, exit codes, a refused build that keeps public/."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli import cli
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_build_writes_public_and_reports(site: Path):
    result = run("build", "--root", str(site))
    assert result.exit_code == 0, result.output
    assert (site / "public/stories/2026-11-21/council-funds-the-quay-street-busway/index.md").is_file()
    assert "built 1 story" in result.stderr


def test_refused_build_leaves_previous_public_exactly(site: Path):
    assert run("build", "--root", str(site)).exit_code == 0
    before = {p: p.read_bytes() for p in (site / "public").rglob("*") if p.is_file()}
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("[cites: 1000000000000000002]\n\n-", "\n\n-"))
    result = run("build", "--root", str(site))
    assert result.exit_code == 1
    assert "LP030" in result.stderr and "public/ left as it was" in result.stderr
    assert {p: p.read_bytes() for p in (site / "public").rglob("*") if p.is_file()} == before


def test_check_json_format(site: Path):
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("newsroom: city", "newsroom: nowhere"))
    result = run("check", "--root", str(site), "--format", "json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [{
        "path": STORY_PATH, "line": 5, "col": 1, "code": "LP010", "severity": "error",
        "message": "newsroom 'nowhere' is not declared in site.toml: expected one of city, science, or nowhere "
                   "declared under [newsrooms] there"}]


def test_checks_table_sets_severity(site: Path):
    toml = site / "content/site.toml"
    toml.write_text(toml.read_text() + '\n[checks]\nLP010 = "warning"\nLP030 = "off"\n')
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("newsroom: city", "newsroom: nowhere")
                     .replace("## Why now\n", "## Why now\n\nNo cite here.\n"))
    result = run("check", "--root", str(site))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [f"{STORY_PATH}:5:1: LP010 newsroom 'nowhere' is not declared in site.toml: "
                                          "expected one of city, science, or nowhere declared under [newsrooms] there "
                                          "(warning)"]


def test_new_story_starts_a_file_that_check_explains(site: Path):
    result = run("new", "Harbour bridge reopens", "--newsroom", "city", "--beat", "policy", "--root", str(site))
    assert result.exit_code == 0, result.output
    created = Path(result.stdout.strip())
    assert created.name == "harbour-bridge-reopens.md" and created.is_file()
    checked = run("check", "--root", str(site))  # a draft: its placeholders are named, as warnings
    assert checked.exit_code == 0 and "LP004" in checked.stdout and "REPLACE with a manifest id" in checked.stdout
    assert run("new", "x", "--newsroom", "nope", "--beat", "policy", "--root", str(site)).exit_code == 2


def test_python_dash_m_is_the_same_program():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "generator", "--help"], capture_output=True, text=True)
    assert done.returncode == 0 and "check" in done.stdout and "build" in done.stdout


def test_the_program_skips_pydantic_plugins_unless_told_otherwise():
    """No scan of every installed distribution for pydantic plugins (30 ms a run), unless the user chose: set
    by the program (main()), not by importing the command line, which a library caller may do."""
    import os
    import subprocess
    import sys

    command = ("import os, pydantic; from pydantic.plugin import _loader; pydantic.TypeAdapter(int); "
               "print(repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS')), _loader._plugins is None)")
    script = (f"import os, generator.cli as cli; print(repr(os.environ.get('PYDANTIC_DISABLE_PLUGINS'))); "
              f"cli.cli = lambda **_: exec({command!r}); cli.main()")
    env = {key: value for key, value in os.environ.items() if key != "PYDANTIC_DISABLE_PLUGINS"}
    default = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
    assert default.stdout.split() == ["None", "'__all__'", "True"]  # set by main(), and no plugin was looked for
    chosen = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                            env={**env, "PYDANTIC_DISABLE_PLUGINS": "none"})
    assert chosen.stdout.split() == ["'none'", "'none'", "False"]  # the user's choice stands: plugins are looked for


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(story=st.one_of(st.text(max_size=400), st.binary(max_size=200).map(lambda b: b"---\n" + b)),
       manifest=st.one_of(st.text(max_size=200), st.just(MANIFEST_A.replace("{", "[", 1))))
def test_no_input_gives_a_traceback(tmp_path_factory, story, manifest):
    root = tmp_path_factory.mktemp("fuzz")
    files = base_files()
    files[STORY_PATH] = STORY[: len(story) % len(STORY)] + story if isinstance(story, str) else story
    files["content/manifests/1000000000000000001.json"] = manifest
    write_tree(root, files)
    checked = check_site(Run(root, Options(drafts=True)))
    assert all(f.line >= 1 and f.col >= 1 for f in checked.findings)


def test_ctrl_c_during_a_build_says_what_is_left_and_exits_130(tmp_path: Path, monkeypatch):
    """Ctrl-C is told apart from a failure (exit 130, as shells expect), and says that public/ is as it was."""
    import generator.engine.pipeline

    write_tree(tmp_path, base_files())
    monkeypatch.chdir(tmp_path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(generator.engine.pipeline, "build_site", interrupted)
    result = CliRunner().invoke(cli, ["build"])
    assert result.exit_code == 130
    assert "interrupted: the output folder holds the last completed build" in result.output


HOSTILE = "bad\ncontent/x.md:1:1: LP001 a finding that is not one\x1b]0;owned\x07 \x00 \x9b2J \x7f"
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # (a line feed ends a line; any other of these is raw)


def _hostile_site(site: Path) -> Path:
    """Control characters in a retraction note, a manifest's title, a claim, a correction, an author's name and
    bio: text that reaches the terminal (check's retraction lines) and every output."""
    manifest = json.loads(MANIFEST_A)
    manifest["title"] = f"Council minutes {HOSTILE}"
    manifest["claims"][1]["text"] = f"The vote was 9 to 2. {HOSTILE}"
    manifest["retracted"] = {"date": "2026-11-20T10:00:00Z", "note": HOSTILE}
    story = STORY.replace("trust: confirmed\n", "trust: confirmed\nauthors: [ana]\ncorrections:\n"
                          f"  - date: 2026-11-21\n    text: {json.dumps(HOSTILE)}\n"
                          '    manifest: "1000000000000000001"\n')
    # corrected as the retraction asks: the story no longer states what the withdrawn minutes said
    for stated, corrected in (
            ("The council approved the busway budget after a year of rising ridership.",
             "Ridership on Quay Street buses rose 14% in a year."),
            ("The council approved the busway budget, 9 to 2.", "Ridership on Quay Street buses rose 14% in a year."),
            ('cites: ["1000000000000000001"]', 'cites: ["1000000000000000002"]'),
            ("The council approved a busway budget of 12,500,000 dollars on a 9 to 2 vote.",
             "The council's minutes of its November session were withdrawn, and what they said should not be "
             "relied on."),
            ("- Two members voted against. [cites: 1000000000000000001, 1000000000000000002]\n", "")):
        assert stated in story
        story = story.replace(stated, corrected)
    return write_tree(site, {"content/manifests/1000000000000000001.json": json.dumps(manifest), STORY_PATH: story,
                             "content/authors/ana.md": f"---\nname: {json.dumps('Ana ' + HOSTILE)}\n---\n"
                                                       f"Bio {HOSTILE}\n"})


def test_no_text_reaches_the_terminal_or_an_output_raw(site: Path):
    """A retraction note with a line feed and terminal escapes printed a line that read as another finding and a
    raw OSC sequence; NUL and ESC in author names, manifest titles and corrections reached the HTML raw."""
    _hostile_site(site)
    for command in (["check", "--root", str(site)], ["build", "--root", str(site), "--no-search"],
                    ["rules", HOSTILE], ["new", HOSTILE, "--root", str(site), "--newsroom", "city", "--beat", HOSTILE]):
        result = run(*command)
        printed = result.stdout + result.stderr
        assert not RAW.search(printed), (command, printed)
        assert not any(line.startswith("content/x.md") for line in printed.splitlines()), printed
    public = site / "public"
    assert (public / "authors/ana/index.html").is_file()
    for path in public.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".md", ".json", ".xml", ".txt"):
            assert not RAW.search(path.read_text(encoding="utf-8").replace("\t", " ").replace("\r", " ")), path


def _commands(group=cli, prefix=()):
    """(the words that name it, the command) for every command and subcommand."""
    import click

    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _commands(command, (*prefix, name))
        else:
            yield (*prefix, name), command


def test_every_command_takes_quiet_and_verbose_after_it_and_before_it():
    for words, _ in _commands():
        helped = run(*words, "--help").output
        assert "-q, --quiet" in helped and "-v, --verbose" in helped, words
        for flag in ("-q", "-v"):
            before = run(flag, *words, "--help")
            assert before.exit_code == 0 and "Usage:" in before.output, (flag, words, before.output)


def test_quiet_and_verbose_say_less_and_more_wherever_they_are_given(site: Path):
    scheduled = STORY.replace("published: 2026-11-21T10:30:00Z", "published: 2026-11-22T10:30:00Z")
    write_tree(site, {"content/stories/2026-11-22/later.md": scheduled.replace(
        "Council funds the Quay Street busway", "Later").replace(
        "trust: confirmed\n", 'trust: confirmed\nwaive: {LP040: "the same story, told later"}\n')})
    said = {how: run(*filter(None, how[:-1]), "build", "--root", str(site), "--force",
                     "--now", "2026-11-21T12:00:00Z", *filter(None, how[-1:]))
            for how in [("-v",), ("",), ("-q",), ("-q", "")]}  # (-v first: the build that writes every file)
    said = {how: (result.exit_code, result.stderr) for how, result in said.items()}
    assert all(code == 0 for code, _ in said.values()), said
    assert "scheduled" in said[("",)][1] and "scheduled" not in said[("-q",)][1], said
    quiet = [re.sub(r"in [\d.]+ s", "", said[how][1]) for how in (("-q",), ("-q", ""))]
    assert quiet[0] == quiet[1] and "built 1 story" in quiet[0], quiet
    assert said[("-v",)][1].count("changed: ") > 10, said[("-v",)][1]
