"""Atom and JSON Feed 1.1 on tiny sites: valid against their schemas, newest 50 by date then URL, dated by
the stories (never by the clock), with a feed per newsroom."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import feedparser
import jsonschema
import pytest
from lxml import etree

from generator.content.config import SiteConfig
from generator.render.teaser import Teaser
from generator.site.feeds import FEED_SIZE, site_feeds
from tests.conftest import SITE_TOML, build_in_memory

from .conftest import write_tree
from .test_site import story_file

SCHEMAS = Path(__file__).parent / "schemas"
ATOM = "{http://www.w3.org/2005/Atom}"
BASE = "https://test.example.org"


@pytest.fixture
def built(site: Path):
    """The one-story site plus a city story updated later and a science story."""
    write_tree(site, dict([story_file(0, 22, 9, updated="2026-11-25T06:00:00Z"),
                           story_file(1, 23, 12, newsroom="science", beat="research")]))
    result = build_in_memory(site)
    assert result.ok, [str(f) for f in result.findings]
    return result


FEEDS = ["feed", "newsrooms/city/feed", "newsrooms/science/feed"]


def test_atom_feeds_validate_against_the_rfc_4287_schema(built, tmp_path):
    assert shutil.which("jing"), "jing is missing: apt-get install jing (see .ci/run)"
    paths = []
    for name in FEEDS:
        path = tmp_path / f"{name.replace('/', '-')}.xml"
        path.write_bytes(built.files[f"{name}.xml"])
        paths.append(str(path))
    run = subprocess.run(["jing", "-c", str(SCHEMAS / "atom.rnc"), *paths], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr


def test_atom_feed_has_ids_links_summaries_categories_and_an_author(built):
    feed = etree.fromstring(built.files["feed.xml"])
    assert feed.findtext(f"{ATOM}id") == f"{BASE}/feed.xml"
    assert feed.findtext(f"{ATOM}author/{ATOM}name") == "Test Desk"
    links = {(link.get("rel"), link.get("type")): link.get("href") for link in feed.findall(f"{ATOM}link")}
    assert links[("self", "application/atom+xml")] == f"{BASE}/feed.xml"
    assert links[("alternate", "text/html")] == f"{BASE}/"
    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}id") for e in entries] == [
        f"{BASE}/stories/2026-11-23/the-birch-report-reaches-the-council/",
        f"{BASE}/stories/2026-11-22/the-amber-report-reaches-the-council/",
        f"{BASE}/stories/2026-11-21/council-funds-the-quay-street-busway/"]
    first = entries[0]
    assert first.find(f"{ATOM}link[@rel='alternate'][@type='text/html']").get("href") == first.findtext(f"{ATOM}id")
    assert first.findtext(f"{ATOM}summary") == "What the birch report says about the river."
    assert first.findtext(f"{ATOM}published") == first.findtext(f"{ATOM}updated") == "2026-11-23T12:00:00Z"
    categories = [(c.get("scheme"), c.get("term"), c.get("label")) for c in first.findall(f"{ATOM}category")]
    assert categories == [(f"{BASE}/newsrooms/", "science", "Science"), (f"{BASE}/beats/", "research", "Research")]


def test_feedparser_reads_every_feed_cleanly(built):
    for name in FEEDS:
        parsed = feedparser.parse(built.files[f"{name}.xml"])
        assert not parsed.bozo, (name, parsed.get("bozo_exception"))
        assert parsed.feed.author == "Test Desk" and parsed.version == "atom10"
        assert all(entry.link and entry.summary and entry.published for entry in parsed.entries)


def test_updated_comes_from_the_newest_story_change_not_the_clock(built, site):
    assert etree.fromstring(built.files["feed.xml"]).findtext(f"{ATOM}updated") == "2026-11-25T06:00:00Z"
    assert etree.fromstring(built.files["newsrooms/science/feed.xml"]).findtext(f"{ATOM}updated") == \
        "2026-11-23T12:00:00Z"
    assert json.loads(built.files["feed.json"])["items"][1]["date_modified"] == "2026-11-25T06:00:00Z"
    assert build_in_memory(site).files["feed.xml"] == built.files["feed.xml"]


def test_a_newsroom_without_stories_gets_an_empty_feed_dated_by_the_site(site):
    result = build_in_memory(site)
    empty = etree.fromstring(result.files["newsrooms/science/feed.xml"])
    assert empty.findall(f"{ATOM}entry") == []
    assert empty.findtext(f"{ATOM}updated") == etree.fromstring(result.files["feed.xml"]).findtext(f"{ATOM}updated")
    assert json.loads(result.files["newsrooms/science/feed.json"])["items"] == []


def test_json_feeds_validate_against_json_feed_1_1_with_formats(built):
    schema = json.loads((SCHEMAS / "jsonfeed-1.1.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for name in FEEDS:
        document = json.loads(built.files[f"{name}.json"])
        assert [e.message for e in validator.iter_errors(document)] == [], name
    feed = json.loads(built.files["feed.json"])
    assert feed["feed_url"] == f"{BASE}/feed.json" and feed["authors"] == [{"name": "Test Desk", "url": f"{BASE}/"}]
    item = feed["items"][-1]
    assert item["id"] == item["url"] == f"{BASE}/stories/2026-11-21/council-funds-the-quay-street-busway/"
    assert item["tags"] == ["City", "Policy"]
    assert item["_ledgerpress"]["cited_manifest_ids"] == ["1000000000000000001", "1000000000000000002"]


def test_a_bad_date_fails_the_json_feed_schema():
    """The format checker is on: without it a broken date would pass silently."""
    schema = json.loads((SCHEMAS / "jsonfeed-1.1.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    bad = {"version": "https://jsonfeed.org/version/1.1", "title": "t",
           "items": [{"id": "1", "content_text": "x", "date_published": "27 November"}]}
    assert list(validator.iter_errors(bad))


def test_feeds_keep_the_newest_50_by_date_then_url():
    stories = [Teaser(b"{}", str(n), {"published": (day := f"2026-11-{1 + n % 28:02d}T10:00:00Z"), "updated": day,
                                      "path": f"/stories/{n:03d}/"}) for n in range(80)]
    config = SiteConfig.model_validate(tomllib.loads(SITE_TOML))
    folder, feed = next(site_feeds(stories, config, {}))  # the site's own feed comes first
    assert folder == "/" and len(feed.entries) == FEED_SIZE
    keys = [(story.published, story.path) for story in feed.entries]
    assert keys == sorted(keys, reverse=True)
    assert keys[0] == ("2026-11-28T10:00:00Z", "/stories/055/")
    assert next(site_feeds(list(reversed(stories)), config, {}))[1].entries == feed.entries


def test_a_kind_of_list_with_feeds_and_no_declared_terms_has_a_feed_for_each_term_its_stories_have(monkeypatch):
    """Feeds follow the same terms as the list pages (test: the edition row, given feeds): a new row with feeds
    needs nothing else for each of its pages' feed links to have a feed behind it."""
    import dataclasses

    import generator.site.feeds as feeds
    from generator.content.kinds import KINDS

    edition = dataclasses.replace(KINDS["edition"], feed="Stories of the {name} edition of {site}.")
    monkeypatch.setattr(feeds, "PAGED", (edition,))
    stories = [Teaser(b"{}", str(n), {"published": f"2026-11-{20 + n}T10:00:00Z", "updated": f"2026-11-{20 + n}",
                                      "path": f"/stories/{n}/", "edition": f"2026-11-{20 + n}"}) for n in range(3)]
    config = SiteConfig.model_validate(tomllib.loads(SITE_TOML))
    made = dict(site_feeds(stories, config, {}))
    assert sorted(made) == ["/", "/editions/2026-11-20/", "/editions/2026-11-21/", "/editions/2026-11-22/"]
    assert [story.path for story in made["/editions/2026-11-21/"].entries] == ["/stories/1/"]
