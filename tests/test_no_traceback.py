"""Inputs that gave a traceback (in `check`, or only in `build`) give findings instead: dates at the ends of
the calendar, rules turned off that other code relied on, pages where generated files go, templates that
fail while rendering, and files under content/ that are not files, or not named in UTF-8."""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from tests.conftest import MANIFEST_A, SITE_TOML, STORY, STORY_PATH, write_tree

REPO = Path(__file__).resolve().parent.parent


def run(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def child(root: Path, *args: str, timeout: float = 20) -> subprocess.CompletedProcess:
    """The command in a child process with 2 GB of address space and a time limit: a regression must fail
    the test, not take the test run's memory or hang it."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    return subprocess.run([sys.executable, "-m", "generator", *args, "--root", str(root)], cwd=REPO, timeout=timeout,
                          capture_output=True, text=True, errors="replace", preexec_fn=limit)


@pytest.mark.parametrize("field, value", [
    ("published", "0001-01-01T00:00:00+14:00"), ("published", '"0001-01-01T00:00:00+14:00"'),
    ("published", "9999-12-31T23:59:59-14:00"), ("published", "0999-12-31T23:00:00Z"),
    ("updated", "9999-12-31T23:59:59-14:00"), ("updated", "0001-01-01"),
])
def test_a_date_at_the_ends_of_the_calendar_is_an_lp002(site: Path, field: str, value: str):
    old = "published: 2026-11-21T10:30:00Z"
    write_tree(site, {STORY_PATH: STORY.replace(old, f"{field}: {value}" if field == "published" else
                                                f"{old}\n{field}: {value}")})
    for command in ("check", "build"):
        result = run(command, "--root", str(site))
        assert result.exit_code == 1 and f"LP002 {field}" in result.output and "years 1000 and 9999" in result.output


def test_a_manifest_published_at_the_end_of_the_calendar_is_an_lp100(site: Path):
    write_tree(site, {"content/manifests/1000000000000000001.json":
                      MANIFEST_A.replace("2026-11-20T09:00:00Z", "0001-01-01T00:00:00+14:00")})
    result = run("check", "--root", str(site))
    assert result.exit_code == 1 and "LP100 published: must fall between the years" in result.output


def _off(site: Path, *codes: str) -> None:
    write_tree(site, {"content/site.toml": SITE_TOML + "\n[checks]\n" + "".join(f'{c} = "off"\n' for c in codes)})


def _built_story(site: Path) -> dict:
    return json.loads((site / "public/stories/2026-11-21/council-funds-the-quay-street-busway/index.json").read_text())


def test_an_undeclared_newsroom_with_lp010_off_is_built_with_its_slug_as_name(site: Path):
    _off(site, "LP010")
    write_tree(site, {STORY_PATH: STORY.replace("newsroom: city", "newsroom: nowhere")})
    assert run("build", "--root", str(site), "--no-search").exit_code == 0
    assert _built_story(site)["newsroom"]["name"] == "nowhere"


def test_a_missing_manifest_with_lp022_off_leaves_its_ledger_row_out(site: Path):
    _off(site, "LP022", "LP031")
    write_tree(site, {STORY_PATH: STORY.replace("1000000000000000002", "1000000000000000003")})
    assert run("build", "--root", str(site), "--no-search").exit_code == 0
    assert [(row["manifest_id"], row["number"]) for row in _built_story(site)["ledger"]] == [("1000000000000000001", 1)]


def test_an_unknown_claim_with_lp024_off_is_left_out_of_its_row(site: Path):
    _off(site, "LP024", "LP031")
    write_tree(site, {STORY_PATH: STORY.replace('claims: ["2000000000000000021"]', 'claims: ["2000000000000000029"]')})
    assert run("build", "--root", str(site), "--no-search").exit_code == 0
    assert _built_story(site)["ledger"][1]["claims"] == []


def test_a_broken_manifest_with_lp100_and_lp022_off_builds(site: Path):
    _off(site, "LP100", "LP022", "LP031")
    write_tree(site, {"content/manifests/1000000000000000002.json": "{}"})
    assert run("build", "--root", str(site), "--no-search").exit_code == 0


@pytest.mark.parametrize("page, taken", [
    ("feed.xml.md", "the generated file feed.xml"), ("schema/story.schema.json.md", "the generated folder schema/"),
    ("stories/2026-11-21/council-funds-the-quay-street-busway.md", "the generated folder stories/"),
    ("index.md", "the front page (index.html)"), ("pagefind/x.md", "the generated folder pagefind/"),
])
def test_a_page_where_a_generated_file_goes_is_an_lp011(site: Path, page: str, taken: str):
    write_tree(site, {f"content/pages/{page}": "---\ntitle: A page\n---\nText.\n"})
    result = run("check", "--root", str(site))
    assert result.exit_code == 1 and f"content/pages/{page}:1:1: LP011 URL" in result.output and taken in result.output
    _off(site, "LP011")  # turned off, the generated file wins and the page is left out (of search too)
    result = run("build", "--root", str(site))
    assert result.exit_code == 0 and not result.exception, result.output


def test_two_pages_with_one_url_are_an_lp011_in_check(site: Path):
    write_tree(site, {"content/pages/about.md": "---\ntitle: A\n---\nA.\n",
                      "content/pages/about/index.md": "---\ntitle: B\n---\nB.\n"})
    result = run("check", "--root", str(site))
    assert result.exit_code == 1 and "content/pages/about/index.md:1:1: LP011 same URL /about/ as" in result.output


def test_the_generated_names_are_those_a_build_writes(site: Path):
    """LP011's list of what a build writes at the top of the output stays true to the build: a story of every
    kind (an author, a tag, a series), with an image, writes every one of them."""
    import io

    from PIL import Image

    from generator.content.kinds import GENERATED_FOLDERS, SITE_FILES
    from tests.conftest import SITE_TOML, STORY, STORY_PATH

    png = io.BytesIO()
    Image.new("RGB", (40, 20)).save(png, "PNG")
    write_tree(site, {"content/authors/ana.md": "---\nname: Ana\n---\n", "content/images/a.png": png.getvalue(),
                      "content/site.toml": SITE_TOML + '\n[series]\nbusway = "The busway"\n',
                      STORY_PATH: STORY.replace("trust: confirmed\n", 'trust: confirmed\nauthors: ["ana"]\n'
                                                'image: {src: "a.png", alt: "A dark field", credit: "Ana"}\n'
                                                'tags: ["Transit"]\nseries: busway\n')})
    assert run("build", "--root", str(site)).exit_code == 0
    written = {path.name for path in (site / "public").iterdir()} - {"terms"}  # terms/: the fixture's page
    assert written == SITE_FILES | GENERATED_FOLDERS


MORE_STORIES = {
    f"content/stories/2026-11-21/story-{n}.md": STORY.replace('"Council funds the Quay Street busway"', f'"Story {n}"')
    .replace("approved a busway budget of 12,500,000 dollars", f"approved budget {n} of 12,500,000 dollars")
    .replace("published: 2026-11-21T10:30:00Z", "published: 2026-11-21T10:30:00Z\nslug: story-" + str(n))
    for n in range(12)}


@pytest.mark.parametrize("template, source, line, why", [
    ("404.html", "{{ 1/0 }}", 1, "ZeroDivisionError: division by zero"),
    ("story.md", "x\n\n{{ 1/0 }}", 3, "ZeroDivisionError: division by zero"),
    ("404.html", "{% include '404.html' %}", 1, "it includes, extends or calls itself without end"),
    ("story.html", "a\n{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", 2, "calls itself without end"),
    ("404.html", "{% for i in range(10**12) %}{% endfor %}", 1, "range() of 1,000,000,000,000 items"),
    ("404.html", b"\xff\xfe not UTF-8", 1, "the template is not UTF-8"),
], ids=["division", "division-in-a-worker", "self-include", "recursive-macro", "endless-range", "not-utf8"])
def test_a_template_that_fails_is_an_lp900_at_its_line(site: Path, template: str, source, line: int, why: str):
    write_tree(site, {**MORE_STORIES, f"templates/{template}": source})
    _off(site, "LP040")  # (the stories are near copies)
    result = run("build", "--root", str(site), "--no-search", "--jobs", "2")
    assert result.exit_code == 1
    assert f"templates/{template}:{line}:1: LP900 " in result.output and why in result.output, result.output
    assert not (site / "public").exists()


@pytest.mark.parametrize("relative", ["content/pages/zero.md", "content/manifests/zero.json", "content/zero.txt"])
def test_a_link_to_dev_zero_under_content_fails_the_build_with_a_finding(site: Path, relative: str):
    """A page or a manifest is an error; a file no stage reads is left alone."""
    os.symlink("/dev/zero", site / relative)
    done = child(site, "build", "--no-search")
    assert "Traceback" not in done.stdout + done.stderr and "MemoryError" not in done.stderr
    if relative.endswith(".txt"):
        assert done.returncode == 0
    else:
        assert done.returncode == 1 and re.search(r": LP\d{3} ", done.stderr)


def test_a_fifo_under_content_does_not_hang_the_build(site: Path):
    os.mkfifo(site / "content/pages/fifo.md")
    try:
        done = child(site, "build", "--no-search", timeout=8)
    except subprocess.TimeoutExpired:
        pytest.fail("the build hung on a FIFO")
    assert done.returncode == 1 and "LP001" in done.stderr


@pytest.mark.parametrize("folder", ["stories", "pages"])
def test_a_file_where_a_folder_of_content_goes_is_an_lp001_not_a_site_without_it(site: Path, folder: str):
    """A file named content/stories (or pages) left the site without stories (or pages), and check passed."""
    shutil.rmtree(site / "content" / folder, ignore_errors=True)
    (site / "content" / folder).write_text("not a folder\n")
    result = run("check", "--root", str(site))
    assert result.exit_code == 1
    assert f"content/{folder}:1:1: LP001 is a file, not a folder: no {folder} are read" in result.output


def test_a_site_toml_that_is_not_a_file_is_an_lp001_in_build_and_no_site_a_plain_sentence(site: Path, tmp_path: Path):
    (site / "content/site.toml").unlink()
    os.mkfifo(site / "content/site.toml")
    done = child(site, "build", "--no-search", timeout=8)
    assert done.returncode == 1 and "content/site.toml:1:1: LP001 is not a regular file (a FIFO)" in done.stderr
    done = child(tmp_path, "build", "--no-search")
    assert done.returncode == 1 and "no ledgerpress site in" in done.stderr and "Traceback" not in done.stderr


def test_a_file_under_content_whose_name_is_not_utf8_fails_the_build_with_a_finding(site: Path):
    (site / "content/notes").mkdir()
    (site / "content/notes" / os.fsdecode(b"caf\xe9.txt")).write_text("not a story")
    done = child(site, "build", "--no-search")
    assert "Traceback" not in done.stderr and done.returncode in (0, 1)


def test_a_number_past_python_s_digit_limit_in_front_matter_is_an_lp001(site: Path):
    """YAML reads 0x… as an integer without Python's digit limit, which only printing it would hit."""
    write_tree(site, {STORY_PATH: STORY.replace("title: ", "title: 0x" + "f" * 4000 + "\n# was: ", 1)})
    checked = child(site, "check")
    assert checked.returncode == 1 and "Traceback" not in checked.stderr
    assert re.search(r":2:8: LP001 front matter is not valid YAML: '0xf+'… is a number of 4,002 characters",
                     checked.stdout)


def test_a_damaged_build_state_entry_is_ignored(site: Path):
    assert child(site, "build", "--no-search").returncode == 0
    state = site / ".ledgerpress-cache/build-state.json"
    data = json.loads(state.read_text())
    data["inputs"][next(iter(data["inputs"]))] = [1, 2]  # a [mtime, size, digest] entry cut short
    state.write_text(json.dumps(data))
    done = child(site, "build", "--no-search")
    assert done.returncode == 0 and "Traceback" not in done.stderr


def test_new_refuses_a_title_that_names_no_file(site: Path):
    """`new "???"` wrote content/stories/<day>/.md: a hidden file, which no build ever reads."""
    result = CliRunner().invoke(cli, ["new", "???", "--newsroom", "city", "--beat", "policy", "--root", str(site)])
    assert result.exit_code == 2 and "no letters or digits" in result.output
    assert not list((site / "content/stories").rglob(".md"))


FIXTURES = Path(__file__).parent / "checks"


@pytest.mark.parametrize("code", sorted(path.name for path in FIXTURES.glob("LP*")))
def test_every_rule_s_failing_fixture_builds_with_every_rule_off(tmp_path: Path, code: str):
    """Turning rules off never breaks the code that relied on them: each rule's failing site, built with all
    of them off, gives a site or findings (LP011's duplicate outputs stay errors), never a traceback."""
    import shutil

    from generator.checks import RULES
    from tests.conftest import base_files

    root = write_tree(tmp_path / "site", base_files())
    shutil.copytree(FIXTURES / code / "site", root, dirs_exist_ok=True)
    write_tree(root, {"content/site.toml": SITE_TOML + "\n[checks]\n" + "".join(f'{c} = "off"\n' for c in sorted(RULES))})
    result = run("build", "--root", str(root), "--no-search")
    assert result.exit_code == (1 if code == "LP011" else 0), result.output


def test_a_template_whose_name_is_not_utf8_is_an_lp900(site: Path):
    """Its name reached the templates' digest (UnicodeEncodeError) and then the build record."""
    (site / "templates").mkdir()
    (site / "templates" / os.fsdecode(b"caf\xe9.html")).write_text("x")
    result = run("build", "--root", str(site), "--no-search")
    assert result.exit_code == 1 and "templates/caf\\xe9.html:1:1: LP900 template error: the file name is not UTF-8" \
        in result.output
