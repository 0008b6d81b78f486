"""`ledgerpress new` as a user runs it: what it writes, what it refuses, and what `check` then says."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from generator.content.new_story import StoryAsked, skeleton, title_slug
from generator.content.models import FrontMatter
from tests.commands import ledgerpress
from tests.conftest import base_files, write_tree

NEW = ("--newsroom", "city", "--beat", "policy")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "site", base_files())


@pytest.mark.parametrize(("title", "slug"), [
    ("Café opens", "cafe-opens"), ("Straße & Ärger", "strasse-arger"), ("Council's vote: 9–2", "councils-vote-9-2"),
    ("日本語のニュース", "ri-ben-yu-noniyusu"), ("  spaced   out  ", "spaced-out"),
    ("word " * 30, ("word-" * 14).rstrip("-"))])
def test_slugs_keep_the_letters_of_any_language(title: str, slug: str):
    assert title_slug(title) == slug


def test_new_writes_a_draft_with_its_slug_pinned_and_named_placeholders(site: Path):
    made = ledgerpress("new", "Café opens on Quay Street", *NEW, "--date", "2026-11-20T23:30:00-05:00", cwd=site)
    assert made.returncode == 0, made.stderr
    path = site / made.stdout.strip()
    assert path.relative_to(site).as_posix() == "content/stories/2026-11-21/cafe-opens-on-quay-street.md"  # UTC day
    text = path.read_text()
    assert "published: 2026-11-20T23:30:00-05:00\n" in text and "\ntrust: reported\n" in text
    assert "slug: cafe-opens-on-quay-street" in text and "\ndraft: true" in text
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 0
    shown = "content/stories/2026-11-21/cafe-opens-on-quay-street.md"
    lines = [line for line in checked.stdout.splitlines() if line.startswith(shown)]
    assert [line.split()[1] for line in lines] == ["LP002", "LP004", "LP004", "LP004"]
    assert all(line.endswith("(warning)") for line in lines)
    assert "description" in lines[0] and all("REPLACE" in line for line in lines[1:])


def test_a_published_story_with_placeholders_fails_check(site: Path):
    made = ledgerpress("new", "Harbour bridge reopens", *NEW, "--no-draft", "--trust", "confirmed", cwd=site)
    assert made.returncode == 0, made.stderr
    text = (site / made.stdout.strip()).read_text()
    assert "draft" not in text and "\ntrust: confirmed\n" in text
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 1 and "LP004" in checked.stdout and "(warning)" not in checked.stdout


def test_two_stories_started_together_do_not_flag_each_other(site: Path):
    for title in ("First story of the day", "Second story of the day"):
        assert ledgerpress("new", title, *NEW, cwd=site).returncode == 0
    checked = ledgerpress("check", cwd=site)
    assert checked.returncode == 0 and "LP040" not in checked.stdout and "LP011" not in checked.stdout


def test_dates_and_slugs_given(site: Path):
    made = ledgerpress("new", "Anything", *NEW, "--date", "2026-11-19", "--slug", "my-own-slug", cwd=site)
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "content/stories/2026-11-19/my-own-slug.md"
    text = (site / made.stdout.strip()).read_text()
    assert "published: 2026-11-19T" in text and "slug: my-own-slug" in text
    again = ledgerpress("new", "Anything", *NEW, "--date", "2026-11-19", "--slug", "my-own-slug", cwd=site)
    assert again.returncode == 1 and "already exists" in again.stderr


@pytest.mark.parametrize(("args", "message"), [
    (("",), "the title is empty"),
    (("   ",), "the title is empty"),
    (("x" * 201,), "at most 200"),
    (("🙂🙂",), "give --slug"),
    (("Title", "--trust", "bogus"), "'bogus' is not one of confirmed, reported"),
    (("Title", "--slug", "Bad Slug"), "is not a slug"),
    (("Title", "--slug", "double--dash"), "is not a slug"),
    (("Title", "--date", "yesterday"), "is not an ISO 8601 date"),
    (("Title", "--date", "2026-13-01"), "is not an ISO 8601 date"),
])
def test_new_refuses_bad_input_and_writes_nothing(site: Path, args: tuple[str, ...], message: str):
    refused = ledgerpress("new", *args, *NEW, cwd=site)
    assert refused.returncode == 2 and message in refused.stderr, refused.stderr
    assert [p.name for p in (site / "content/stories").rglob("*.md")] == ["council-funds-the-quay-street-busway.md"]


def test_newsroom_and_beat_must_be_declared(site: Path):
    refused = ledgerpress("new", "Title", "--newsroom", "nope", "--beat", "policy", cwd=site)
    assert refused.returncode == 2 and "'nope' is not one of city, science" in refused.stderr
    assert "add nope under [newsrooms] in content/site.toml" in refused.stderr
    typo = ledgerpress("new", "Title", "--newsroom", "citty", "--beat", "policy", cwd=site)
    assert typo.returncode == 2 and "(did you mean 'city'?)" in typo.stderr, typo.stderr


def test_new_outside_a_site_says_so(tmp_path: Path):
    refused = ledgerpress("new", "Title", *NEW, cwd=tmp_path)
    assert refused.returncode == 1 and "no ledgerpress site" in refused.stderr and "ledgerpress init" in refused.stderr
    assert list(tmp_path.iterdir()) == []


def test_authors_are_checked_against_content_authors(site: Path):
    missing = ledgerpress("new", "Title", *NEW, "--author", "ana-lima", cwd=site)
    assert missing.returncode == 2
    if "authors" in FrontMatter.model_fields:  # SPEC 6.3: content/authors/<slug>.md declares an author
        assert "add content/authors/ana-lima.md first" in missing.stderr
        write_tree(site, {"content/authors/ana-lima.md": "---\nname: Ana Lima\n---\n"})
        made = ledgerpress("new", "Title", *NEW, "--author", "ana-lima", cwd=site)
        assert made.returncode == 0 and 'authors: ["ana-lima"]' in (site / made.stdout.strip()).read_text()
    else:
        assert "no `authors` field yet" in missing.stderr


def test_the_skeleton_is_yaml_that_keeps_any_title():
    import yaml

    title = 'He said: "no" # not a comment \\ \u2028 end'
    text = skeleton(StoryAsked(title, "city", "policy", "reported", slug="x"),
                    dt.datetime(2026, 11, 20, 9, tzinfo=dt.timezone.utc))
    front = yaml.safe_load(text.split("---")[1])
    assert front["title"] == title and front["draft"] is True and front["slug"] == "x"
    assert front["published"] == dt.datetime(2026, 11, 20, 9, tzinfo=dt.timezone.utc)
