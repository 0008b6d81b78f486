"""Authors: content/authors/<slug>.md, the byline in all three formats, a paginated page with feeds per author,
Person in the structured data, authors on feed entries; a bad author file is a finding, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
from click.testing import CliRunner
from lxml import etree, html

from generator.cli import cli
from tests.conftest import STORY, STORY_PATH, build_in_memory, write_tree
from tests.test_site import story_file

STORY_URL = "stories/2026-11-21/council-funds-the-quay-street-busway/"
BASE = "https://test.example.org"
ATOM = "{http://www.w3.org/2005/Atom}"
ANA = '---\nname: "Ana Lima"\nrole: "City reporter"\nurl: "https://ana.example.org/"\nemail: "ana@example.org"\n---\n\nAna covers *transport* and the council.\n'
TOM = '---\nname: "Tom Reyes"\n---\n\nTom covers transit.\n'


def _by(text: str, authors: str) -> str:
    return text.replace("trust: reported\n", f"trust: reported\nauthors: {authors}\n").replace(
        "trust: confirmed\n", f"trust: confirmed\nauthors: {authors}\n")


def authored(site: Path) -> Path:
    """The story by Ana and Tom, and three more by Ana (page_size is 2: her page has two pages)."""
    files = {STORY_PATH: _by(STORY, '["ana-lima", "tom-reyes"]'), "content/authors/ana-lima.md": ANA,
             "content/authors/tom-reyes.md": TOM}
    for n, day in enumerate((22, 23, 24)):
        path, text = story_file(n, day, 9)
        files[path] = _by(text, '["ana-lima"]')
    return write_tree(site, files)


def test_the_byline_in_three_formats(site: Path):
    built = build_in_memory(authored(site))
    assert built.ok, built.findings
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    links = page.cssselect(".story-head .authors a")
    assert [(a.text_content(), a.get("href"), a.get("rel")) for a in links] == [
        ("Ana Lima", "/authors/ana-lima/", "author"), ("Tom Reyes", "/authors/tom-reyes/", "author")]
    data = json.loads(built.files[STORY_URL + "index.json"])
    assert data["byline"] == "By Ana Lima and Tom Reyes"
    assert data["trust_line"].startswith("Confirmed · 2 sources · City · Published ")
    assert data["authors"][0] == {"slug": "ana-lima", "name": "Ana Lima", "role": "City reporter",
                                  "path": "/authors/ana-lima/", "url": f"{BASE}/authors/ana-lima/",
                                  "profile": "https://ana.example.org/"}
    markdown = built.files[STORY_URL + "index.md"].decode()
    assert f"By [Ana Lima]({BASE}/authors/ana-lima/) and [Tom Reyes]({BASE}/authors/tom-reyes/)\n" in markdown



def test_three_names_read_alike_in_every_byline(site: Path):
    lee = '---\nname: "Lee Park"\n---\n'
    authored(site)
    write_tree(site, {STORY_PATH: _by(STORY, '["ana-lima", "tom-reyes", "lee-park"]'), "content/authors/lee-park.md": lee})
    built = build_in_memory(site, search=False)
    assert built.ok, built.findings
    said = "By Ana Lima, Tom Reyes and Lee Park"
    assert json.loads(built.files[STORY_URL + "index.json"])["byline"] == said
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    assert page.cssselect(".story-head .authors")[0].text_content() == said
    teasers = html.fromstring(built.files["authors/lee-park/index.html"]).cssselect(".teaser .byline")
    assert teasers[0].text_content().startswith(said + " · ")
    markdown = built.files[STORY_URL + "index.md"].decode()
    assert (f"By [Ana Lima]({BASE}/authors/ana-lima/), [Tom Reyes]({BASE}/authors/tom-reyes/) and "
            f"[Lee Park]({BASE}/authors/lee-park/)\n") in markdown

def test_structured_data_names_each_author_as_a_person(site: Path):
    built = build_in_memory(authored(site))
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    article = json.loads(page.cssselect('script[type="application/ld+json"]')[0].text)
    assert article["author"] == [
        {"@type": "Person", "name": "Ana Lima", "url": f"{BASE}/authors/ana-lima/", "jobTitle": "City reporter",
         "sameAs": ["https://ana.example.org/"]},
        {"@type": "Person", "name": "Tom Reyes", "url": f"{BASE}/authors/tom-reyes/"}]
    profile = html.fromstring(built.files["authors/ana-lima/index.html"])
    about = json.loads(profile.cssselect('script[type="application/ld+json"]')[0].text)
    assert about["@type"] == "ProfilePage" and about["mainEntity"]["name"] == "Ana Lima"


def test_author_pages_are_paginated_with_a_bio_and_feeds(site: Path):
    built = build_in_memory(authored(site))
    first = html.fromstring(built.files["authors/ana-lima/index.html"])
    assert first.cssselect("h1")[0].text_content() == "Ana Lima"
    assert first.cssselect(".role")[0].text_content() == "City reporter"
    assert first.cssselect(".bio em")[0].text_content() == "transport"
    assert first.cssselect('.contact a[href="mailto:ana@example.org"]')
    assert len(first.cssselect(".teaser")) == 2 and "authors/ana-lima/page/2/index.html" in built.files
    assert "authors/ana-lima/page/3/index.html" not in built.files
    assert first.cssselect('link[rel="next"]')[0].get("href") == f"{BASE}/authors/ana-lima/page/2/"
    feed = feedparser.parse(built.files["authors/ana-lima/feed.xml"])
    assert not feed.bozo and len(feed.entries) == 4 and feed.feed.link == f"{BASE}/authors/ana-lima/"
    assert len(json.loads(built.files["authors/tom-reyes/feed.json"])["items"]) == 1
    assert any("/authors/ana-lima/" in loc.decode() for loc in [built.files["sitemap.xml"]])


def test_feed_entries_name_their_authors(site: Path):
    built = build_in_memory(authored(site))
    entry = next(e for e in etree.fromstring(built.files["feed.xml"]).findall(f"{ATOM}entry")
                 if e.findtext(f"{ATOM}id") == f"{BASE}/{STORY_URL}")
    assert [(a.findtext(f"{ATOM}name"), a.findtext(f"{ATOM}uri")) for a in entry.findall(f"{ATOM}author")] == [
        ("Ana Lima", f"{BASE}/authors/ana-lima/"), ("Tom Reyes", f"{BASE}/authors/tom-reyes/")]
    parsed = feedparser.parse(built.files["feed.xml"])
    assert [a["name"] for a in next(e for e in parsed.entries if e.id == f"{BASE}/{STORY_URL}").authors] == [
        "Ana Lima", "Tom Reyes"]
    item = next(i for i in json.loads(built.files["feed.json"])["items"] if i["id"] == f"{BASE}/{STORY_URL}")
    assert item["authors"] == [{"name": "Ana Lima", "url": f"{BASE}/authors/ana-lima/"},
                               {"name": "Tom Reyes", "url": f"{BASE}/authors/tom-reyes/"}]


def test_a_bad_author_file_is_a_finding(site: Path):
    write_tree(authored(site), {"content/authors/tom-reyes.md": "---\nrole: Reporter\nemail: tom\n---\n",
                                "content/authors/Bad Name.md": "---\nname: X\n---\n"})
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "content/authors/Bad Name.md:1:1: LP002 author file name 'Bad Name.md' is not a slug: expected " \
           "lower-case letters and digits joined by single hyphens, e.g. content/authors/ana-lima.md" in lines
    assert any(line.startswith("content/authors/tom-reyes.md:2:1: LP002 required field 'name' is missing: "
                               'expected e.g. name: "Ana Lima"') for line in lines), lines
    assert any(line.startswith("content/authors/tom-reyes.md:3:1: LP002 email: 'tom' is not an email address")
               for line in lines), lines
    assert not any(" LP012 " in line for line in lines), lines  # the file is there: its own findings say enough


def test_an_edited_author_file_remakes_only_their_stories(site: Path):
    authored(site)
    run = CliRunner()
    assert run.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    public = site / "public"
    before = {p.relative_to(public).as_posix(): p.stat().st_mtime_ns for p in public.rglob("*") if p.is_file()}
    write_tree(site, {"content/authors/tom-reyes.md": TOM.replace("Tom Reyes", "Tomás Reyes")})
    assert run.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    after = {p.relative_to(public).as_posix(): p.stat().st_mtime_ns for p in public.rglob("*") if p.is_file()}
    stories = {path.rsplit("/", 1)[0] for path in after if path.startswith("stories/") and after[path] != before[path]}
    assert stories == {STORY_URL.rstrip("/")}
    assert "Tomás Reyes" in (public / STORY_URL / "index.md").read_text()


def test_an_author_of_drafts_and_scheduled_stories_only_has_no_page(site: Path):
    """An author whose only stories are drafts or scheduled got a public page (their name and bio)."""
    import datetime as dt

    later, text = story_file(1, 28, 6)
    draft, draft_text = story_file(2, 22, 9)
    write_tree(site, {"content/authors/ana-lima.md": ANA, later: _by(text, '["ana-lima"]'),
                      draft: _by(draft_text, '["ana-lima"]').replace("trust: reported\n", "trust: reported\ndraft: true\n")})
    built = build_in_memory(site, search=False, now=dt.datetime(2026, 11, 25, tzinfo=dt.timezone.utc))
    assert built.ok, built.findings
    assert not any("ana-lima" in path for path in built.files), [p for p in built.files if "ana" in p]
    assert not any(b"Ana Lima" in data or b"ana-lima" in data for data in built.files.values())
    published = build_in_memory(site, search=False, now=dt.datetime(2026, 11, 28, 6, tzinfo=dt.timezone.utc))
    assert "authors/ana-lima/index.html" in published.files
