"""`ledgerpress init`, and the whole way from an empty folder to a built story, run as a user runs it."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import stat
from pathlib import Path

from tests.commands import ledgerpress

SUMMARY = re.compile(r"^(\d+) errors?, (\d+) warnings?; (.*) checked$", re.M)


def _files(root: Path) -> list[str]:
    return sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file())


def test_init_makes_a_site_that_checks_clean_and_builds(tmp_path: Path):
    made = ledgerpress("init", "quay-street", "--title", "Quay Street \"News\"", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    site = tmp_path / "quay-street"
    files = _files(site)
    manifest = next(name for name in files if name.startswith("content/manifests/"))
    story = next(name for name in files if name.startswith("content/stories/"))
    assert re.fullmatch(r"content/manifests/\d{19}\.json", manifest)
    assert re.fullmatch(r"content/stories/\d{4}-\d{2}-\d{2}/welcome\.md", story)
    assert files == sorted([".gitignore", "content/site.toml", manifest, story, "content/pages/about.md",
                            "content/pages/terms/reuse.md"])
    toml = (site / "content/site.toml").read_text()
    assert 'title = "Quay Street \\"News\\""' in toml and "# manifest_max_age_days = 30" in toml
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 0 and checked.stdout == ""
    assert "0 errors, 0 warnings; 1 story, 1 manifest, 2 pages checked" in checked.stderr
    built = ledgerpress("build", cwd=site)
    assert built.returncode == 0, built.stderr
    page = (site / "public" / story.removeprefix("content/").removesuffix(".md") / "index.html").read_text()
    assert "Quay Street &#34;News&#34;" in page
    assert (site / "public/about/index.html").is_file() and (site / "public/terms/reuse/index.html").is_file()


def test_the_files_init_writes_are_readable_as_any_file_the_user_makes(tmp_path: Path):
    """Their mode is what the umask gives (a web server or a teammate reads site.toml), not a temporary file's."""
    mask = os.umask(0o022)
    try:
        assert ledgerpress("init", "site", cwd=tmp_path).returncode == 0
    finally:
        os.umask(mask)
    site = tmp_path / "site"
    assert {name: oct(stat.S_IMODE((site / name).stat().st_mode)) for name in _files(site)} == {
        name: oct(0o644) for name in _files(site)}


def test_init_refuses_a_folder_with_files_unless_forced_and_never_replaces_one(tmp_path: Path):
    (tmp_path / ".git").mkdir()  # hidden entries (a repository, a venv) do not count
    (tmp_path / ".gitignore").write_text("*.pyc\n")
    (tmp_path / "notes.txt").write_text("mine")
    refused = ledgerpress("init", cwd=tmp_path)
    assert refused.returncode == 1 and "not empty (notes.txt)" in refused.stderr and "--force" in refused.stderr
    assert not (tmp_path / "content").exists()
    forced = ledgerpress("init", "--force", cwd=tmp_path)
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert (tmp_path / ".gitignore").read_text() == "*.pyc\n/public/\n/.public.*\n/.ledgerpress-cache/\n"
    again = ledgerpress("init", "--force", cwd=tmp_path)
    assert again.returncode == 1 and "never replaces a file" in again.stderr


def test_init_checks_its_options(tmp_path: Path):
    bad_url = ledgerpress("init", "site", "--base-url", "example.org", cwd=tmp_path)
    assert bad_url.returncode == 2 and "not an absolute http or https URL" in bad_url.stderr
    blank = ledgerpress("init", "site", "--title", "  ", cwd=tmp_path)
    assert blank.returncode == 2 and "the title is empty" in blank.stderr
    assert not (tmp_path / "site").exists()
    (tmp_path / "file").write_text("")
    assert "is a file" in ledgerpress("init", "file", cwd=tmp_path).stderr


def test_init_refuses_what_check_would_refuse_and_a_place_it_cannot_write_in_one_line(tmp_path: Path):
    """The site it starts checks clean: a title or base URL that site.toml may not hold stops it first."""
    for option, value, why in [("--base-url", 'https://ex"ample.org', "not an absolute http or https URL"),
                               ("--title", "x" * 500, "longer than 200 characters"),
                               ("--title", "A\x7fB", "control character")]:
        refused = ledgerpress("init", "site", option, value, cwd=tmp_path)
        assert refused.returncode == 2 and why in refused.stderr, refused.stderr
    assert not (tmp_path / "site").exists()
    (tmp_path / "file").write_text("")
    inside = ledgerpress("init", "file/site", cwd=tmp_path)
    assert inside.returncode == 1 and "Traceback" not in inside.stderr
    assert "cannot write file/site/content: Not a directory" in inside.stderr


def test_quiet_and_verbose(tmp_path: Path):
    quiet = ledgerpress("init", "a", "-q", cwd=tmp_path)
    assert quiet.returncode == 0 and quiet.stdout == quiet.stderr == ""
    verbose = ledgerpress("init", "b", "-v", cwd=tmp_path)
    assert "wrote b/content/site.toml" in verbose.stderr and "next:" in verbose.stderr
    checked = ledgerpress("check", "-q", cwd=tmp_path / "a")
    assert checked.returncode == 0 and checked.stderr == ""
    assert re.search(r"checked in \d+\.\d\d s", ledgerpress("check", "-v", cwd=tmp_path / "a").stderr)


def _story_published(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(re.search(r"^published: (\S+)", text, re.M)[1].replace("Z", "+00:00"))


def test_from_an_empty_folder_to_a_published_story(tmp_path: Path):
    """init -> new -> manifest new -> edit -> check -> build, with the files and exit codes a user sees."""
    assert ledgerpress("init", "site", cwd=tmp_path).returncode == 0
    site = tmp_path / "site"
    started = ledgerpress("new", "Café opens on Quay Street", "--newsroom", "news", "--beat", "general", cwd=site)
    assert started.returncode == 0, started.stderr
    story = site / started.stdout.strip()
    assert story.name == "cafe-opens-on-quay-street.md"
    text = story.read_text()
    assert "slug: cafe-opens-on-quay-street" in text and "draft: true" in text
    fresh = ledgerpress("check", cwd=site)
    assert fresh.returncode == 0, fresh.stdout  # a draft's placeholders are warnings, each named
    assert "LP004 ledger.0.manifest: id 'REPLACE with a manifest id: run `ledgerpress manifest new`" in fresh.stdout
    assert "(warning)" in fresh.stdout and "1 story" not in fresh.stderr and "2 stories (1 draft)" in fresh.stderr

    published = _story_published(text) - dt.timedelta(hours=1)
    made = ledgerpress("manifest", "new", "--title", "Licensing register", "--source-url",
                       "https://council.example.org/licences", "--published", published.isoformat(),
                       "--claim", "The council granted Quay Street Café a licence to open.",
                       "--claim", "The café may seat 40 guests.", cwd=site)
    assert made.returncode == 0, made.stderr
    manifest = json.loads((site / made.stdout.strip()).read_text())
    assert manifest["source"] == {"name": "council.example.org", "url": "https://council.example.org/licences"}
    claims = [claim["id"] for claim in manifest["claims"]]

    ledger = f'ledger:\n  - manifest: "{manifest["id"]}"\n    claims: {json.dumps(claims)}\n---'
    body = (f"\n## The licence\n\nThe council granted Quay Street Café a licence to open, and the café may seat "
            f"40 guests. [cites: {manifest['id']}]\n")
    text = re.sub(r"^ledger:.*?^---$", ledger, text, flags=re.M | re.S)
    text = text[: text.index("---", 4) + 3] + "\n" + body
    story.write_text(text.replace('description: ""', 'description: "A café gets its licence."'))
    drafted = ledgerpress("check", cwd=site)
    assert drafted.returncode == 0 and drafted.stdout == "", drafted.stdout
    assert "0 errors, 0 warnings; 2 stories (1 draft), 2 manifests, 2 pages checked" in drafted.stderr
    assert ledgerpress("build", cwd=site).returncode == 0
    url = f"public/stories/{story.parent.name}/cafe-opens-on-quay-street"
    assert not (site / url).exists()  # a draft is built only with --drafts

    story.write_text(re.sub(r"^draft: true.*\n", "", story.read_text(), flags=re.M)
                     .replace("title: \"Café opens on Quay Street\"", "title: \"Quay Street café opens\""))
    checked = ledgerpress("check", cwd=site)  # a new headline: the pinned slug keeps the file name right
    assert checked.returncode == 0 and checked.stdout == "", checked.stdout
    built = ledgerpress("build", cwd=site)
    assert built.returncode == 0, built.stderr
    assert {p.name for p in (site / url).iterdir()} == {"index.html", "index.json", "index.md"}
    assert json.loads((site / url / "index.json").read_text())["title"] == "Quay Street café opens"
