"""Dates as readers see them (timezone, date_format, day_format) and editions of an hour or a day, while what
programs read stays ISO 8601 in UTC."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from lxml import html

from generator.cli import cli
from generator.render.dates import shown_time
from tests.conftest import STORY, STORY_PATH, build_in_memory, write_tree

STORY_URL = "stories/2026-11-21/council-funds-the-quay-street-busway/"


def _settings(site: Path, extra: str) -> None:
    toml = (site / "content/site.toml").read_text()
    write_tree(site, {"content/site.toml": toml.replace('language = "en"\n', f'language = "en"\n{extra}')})


def test_shown_time_uses_the_zone_and_pattern():
    assert shown_time("2026-11-21T10:30:00Z") == "2026-11-21 10:30 UTC"
    assert shown_time("2026-11-21T10:30:00Z", "Europe/Berlin", "%-d %B %Y, %H:%M %Z") == "21 November 2026, 11:30 CET"
    assert shown_time("2026-07-01T10:30:00Z", "Europe/Berlin", "%H:%M %Z") == "12:30 CEST"
    assert shown_time("2026-11-22", "Asia/Tokyo", "%-d %b") == "22 Nov"  # a bare date is that day, in any zone


def test_readers_see_local_dates_and_programs_see_utc(site: Path):
    _settings(site, 'timezone = "Europe/Berlin"\ndate_format = "%-d %B %Y, %H:%M %Z"\n')
    built = build_in_memory(site)
    assert built.ok, built.findings
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    published = page.cssselect(".story-head time")[0]
    assert published.text_content().strip() == "21 November 2026, 11:30 CET"
    assert published.get("datetime") == "2026-11-21T10:30:00Z"
    data = json.loads(built.files[STORY_URL + "index.json"])
    assert data["published"] == "2026-11-21T10:30:00Z" and data["edition"] == "2026-11-21T10"
    assert "Published 21 November 2026, 11:30 CET" in built.files[STORY_URL + "index.md"].decode()
    front = html.fromstring(built.files["index.html"])
    assert front.cssselect(".edition-head time")[0].text_content() == "21 November 2026, 11:00 CET"
    assert b"<published>2026-11-21T10:30:00Z</published>" in built.files["feed.xml"]


def test_day_editions_are_days_in_the_site_time_zone(site: Path):
    _settings(site, 'edition = "day"\ntimezone = "Europe/Berlin"\nday_format = "%A %-d %B"\n')
    late = STORY.replace("published: 2026-11-21T10:30:00Z", "published: 2026-11-21T23:30:00Z")
    write_tree(site, {STORY_PATH: late})
    built = build_in_memory(site)
    assert built.ok, built.findings
    # 23:30 UTC is 00:30 the next day in Berlin: the story is in the edition of that day
    assert "editions/2026-11-22/index.html" in built.files and "editions/2026-11-21/index.html" not in built.files
    edition = html.fromstring(built.files["editions/2026-11-22/index.html"])
    heading = edition.cssselect("h1 time")[0]
    assert (heading.get("datetime"), heading.text_content()) == ("2026-11-22", "Sunday 22 November")
    assert json.loads(built.files[STORY_URL + "index.json"])["edition"] == "2026-11-22"


def test_an_edition_field_must_have_the_site_form(site: Path):
    _settings(site, 'edition = "day"\n')
    write_tree(site, {STORY_PATH: STORY.replace("trust: confirmed\n", 'trust: confirmed\nedition: "2026-11-21T10"\n')})
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert result.exit_code == 1
    assert ("LP002 edition: '2026-11-21T10' is not a day, YYYY-MM-DD: expected e.g. \"2026-11-21\" "
            "(site.toml sets edition = \"day\")") in result.stdout
    write_tree(site, {STORY_PATH: STORY.replace("trust: confirmed\n", 'trust: confirmed\nedition: "2026-11-20"\n')})
    assert CliRunner().invoke(cli, ["check", "--root", str(site)]).exit_code == 0


def test_bad_date_settings_are_findings_at_their_line(site: Path):
    _settings(site, 'timezone = "Mars/Olympus"\ndate_format = "today"\n')
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert any(line.startswith("content/site.toml:5:1: LP002 timezone: ") and "unknown time zone 'Mars/Olympus'" in line
               for line in lines), lines
    assert any(line.startswith("content/site.toml:6:1: LP002 date_format: ") for line in lines), lines
