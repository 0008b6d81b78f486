"""Site-wide outputs on tiny sites: front page by edition, paginated newsroom and beat pages, stories.json,
robots.txt, 404, sitemaps, and the metadata every HTML page carries."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from lxml import etree, html

from generator.content.slugs import slugify
from generator.site.lists import Edition, front_editions, paginate
from generator.site.sitemaps import news_language, news_stories
from tests.conftest import build_in_memory

from .conftest import write_tree

BASE = "https://test.example.org"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
SLOTS = [("amber", "Ada", "harbor", "north"), ("birch", "Bo", "river", "south"), ("cedar", "Cy", "market", "east"),
         ("delta", "Di", "station", "west"), ("ember", "Ed", "garden", "upper"), ("fjord", "Fay", "tunnel", "lower"),
         ("gable", "Gus", "quarry", "inner")]


def story_file(n: int, day: int, hour: int, newsroom: str = "city", beat: str = "policy",
               updated: str | None = None) -> tuple[str, str]:
    """(path, text) of a valid story whose body shares no five-word run with any other (so no LP040)."""
    word, person, place, side = SLOTS[n]
    title = f"The {word} report reaches the council"
    front = (f'---\ntitle: "{title}"\ndescription: "What the {word} report says about the {place}."\n'
             f"published: 2026-11-{day:02d}T{hour:02d}:00:00Z\nnewsroom: {newsroom}\nbeat: {beat}\ntrust: reported\n"
             + (f"updated: {updated}\n" if updated else "")
             + 'ledger:\n  - manifest: "1000000000000000001"\n    claims: ["2000000000000000012"]\n---\n\n')
    body = (f"## Summary\n\nThe {word} report reached the council's November session, where {person} read it to "
            f"the {place} group in {side} hall. [cites: 1000000000000000001]\n")
    return f"content/stories/2026-11-{day:02d}/{slugify(title)}.md", front + body


@pytest.fixture
def busy(site: Path) -> Path:
    """The one-story site plus five city/policy stories (two in one edition) and one science story."""
    stories = [story_file(0, 21, 12), story_file(1, 22, 9), story_file(2, 22, 9), story_file(3, 23, 8),
               story_file(4, 24, 7, updated="2026-11-25T06:00:00Z"),
               story_file(5, 24, 15, newsroom="science", beat="research")]
    toml = (site / "content/site.toml").read_text().replace("page_size = 2\n", "page_size = 2\nfront_page_size = 4\n")
    return write_tree(site, {**dict(stories), "content/site.toml": toml})


@pytest.fixture
def built(busy: Path):
    result = build_in_memory(busy)
    assert result.ok, [str(f) for f in result.findings]
    return result


def page(built, path: str) -> html.HtmlElement:
    return html.fromstring(built.files[path])


def story_links(tree: html.HtmlElement) -> list[str]:
    return [a.get("href") for a in tree.cssselect(".teaser-title a")]


# Pure helpers ------------------------------------------------------------------------------------------------

def test_paginate_names_pages_and_neighbours():
    pages = paginate(list("abcde"), "/newsrooms/city/", 2)
    assert [(path, chunk) for path, chunk, _ in pages] == [
        ("/newsrooms/city/", ["a", "b"]), ("/newsrooms/city/page/2/", ["c", "d"]), ("/newsrooms/city/page/3/", ["e"])]
    assert [(p.number, p.count, p.prev, p.next) for _, _, p in pages] == [
        (1, 3, None, "/newsrooms/city/page/2/"), (2, 3, "/newsrooms/city/", "/newsrooms/city/page/3/"),
        (3, 3, "/newsrooms/city/page/2/", None)]
    assert [(path, chunk) for path, chunk, _ in paginate([], "/beats/x/", 2)] == [("/beats/x/", [])]


def test_front_page_takes_the_newest_stories_by_edition():
    editions = [Edition(str(n), "", "", stories, len(stories), "") for n, stories in enumerate([[1, 2], [3], [4, 5]])]
    assert [e.stories for e in front_editions(editions, 3)] == [[1, 2], [3]]
    assert [e.stories for e in front_editions(editions, 4)] == [[1, 2], [3], [4]]
    assert [(e.stories, e.total) for e in front_editions(editions, 1)] == [([1], 2)]
    assert front_editions([], 3) == []


def test_news_sitemap_window_and_limit():
    def view(hours_before: int, n: int = 0):
        moment = f"2026-11-27T{10 - hours_before % 10:02d}:00:00Z" if hours_before < 10 else \
            f"2026-11-{27 - hours_before // 24:02d}T{10:02d}:{n % 60:02d}:00Z"
        return SimpleNamespace(published=moment, path=f"/stories/{hours_before}-{n}/")
    views = [view(0), view(1), view(48), view(72)]
    assert [v.path for v in news_stories(views)] == ["/stories/0-0/", "/stories/1-0/", "/stories/48-0/"]
    many = [SimpleNamespace(published="2026-11-27T10:00:00Z", path=f"/stories/{n:04d}/") for n in range(1200)]
    assert len(news_stories(many)) == 1000
    assert news_stories([]) == []
    assert [news_language(code) for code in ("en", "en-GB", "zh-CN", "pt-br")] == ["en", "en", "zh-cn", "pt"]


# Pages --------------------------------------------------------------------------------------------------------

def test_front_page_groups_stories_by_edition_newest_first(built):
    front = page(built, "index.html")
    sections = front.cssselect("section.edition")
    # front_page_size is 4: three one-story editions, then the newest of the two stories of the fourth.
    assert [s.get("aria-labelledby") for s in sections] == ["edition-2026-11-24T15", "edition-2026-11-24T07",
                                                            "edition-2026-11-23T08", "edition-2026-11-22T09"]
    assert "Latest edition" in sections[0].text_content() and "Latest" not in sections[1].text_content()
    assert story_links(front)[:2] == ["/stories/2026-11-24/the-fjord-report-reaches-the-council/",
                                      "/stories/2026-11-24/the-ember-report-reaches-the-council/"]
    assert len(story_links(front)) == 4
    more = sections[3].cssselect("p.more a")[0]
    assert (more.text_content(), more.get("href")) == ("1 more story in this edition", "/editions/2026-11-22T09/")
    teaser = front.cssselect(".teaser")[0].text_content()
    assert "Reported" in teaser and "1 source ·" in teaser and "Science" in teaser and "2026-11-24 15:00 UTC" in teaser
    hrefs = [a.get("href") for a in front.cssselect(".teaser a")]
    assert "/stories/2026-11-24/the-fjord-report-reaches-the-council/index.json" in hrefs
    assert "/stories/2026-11-24/the-fjord-report-reaches-the-council/index.md" in hrefs


def test_edition_pages_and_the_archive(built):
    shared = page(built, "editions/2026-11-22T09/index.html")
    assert story_links(shared) == ["/stories/2026-11-22/the-cedar-report-reaches-the-council/",
                                   "/stories/2026-11-22/the-birch-report-reaches-the-council/"]
    archive = page(built, "editions/index.html")
    editions = [a.get("href") for a in archive.cssselect(".edition-list h2 a")]
    assert editions == sorted(editions, reverse=True) and len(editions) == 6


def test_newsroom_pages_paginate_with_rel_prev_and_next(built):
    first, second, third = (page(built, f"newsrooms/city/{p}index.html") for p in ("", "page/2/", "page/3/"))
    assert "newsrooms/city/page/4/index.html" not in built.files
    assert [len(story_links(p)) for p in (first, second, third)] == [2, 2, 2]
    everything = story_links(first) + story_links(second) + story_links(third)
    assert len(set(everything)) == 6 and everything[0] == "/stories/2026-11-24/the-ember-report-reaches-the-council/"
    assert first.cssselect('link[rel="prev"]') == [] and first.cssselect('link[rel="next"]')[0].get("href") == \
        f"{BASE}/newsrooms/city/page/2/"
    assert second.cssselect('link[rel="prev"]')[0].get("href") == f"{BASE}/newsrooms/city/"
    assert second.cssselect('a[rel="next"]')[0].get("href") == "/newsrooms/city/page/3/"
    assert third.cssselect('a[rel="prev"]')[0].get("href") == "/newsrooms/city/page/2/"
    assert third.cssselect('a[rel="next"]') == []
    assert second.cssselect('link[rel="canonical"]')[0].get("href") == f"{BASE}/newsrooms/city/page/2/"
    assert "page 2 of 3" in second.findtext(".//title")


def test_beat_pages(built):
    assert story_links(page(built, "beats/research/index.html")) == \
        ["/stories/2026-11-24/the-fjord-report-reaches-the-council/"]
    assert "beats/policy/page/3/index.html" in built.files


def test_a_declared_newsroom_or_beat_without_stories_still_has_its_page(site: Path):
    result = build_in_memory(site)
    for path in ("newsrooms/science/index.html", "beats/research/index.html"):
        assert b"No stories here yet" in result.files[path]
        assert path.replace("index.html", "page/2/index.html") not in result.files


def test_nav_links_every_newsroom_and_beat(built):
    nav = [a.get("href") for a in page(built, "terms/reuse/index.html").cssselect("nav.sections a")]
    assert {"/newsrooms/city/", "/newsrooms/science/", "/beats/policy/", "/beats/research/", "/editions/"} <= set(nav)
    current = page(built, "newsrooms/city/page/2/index.html").cssselect("nav.sections a[aria-current]")
    assert [a.get("href") for a in current] == ["/newsrooms/city/"]


def test_stories_json_lists_every_story_with_its_variants(built):
    data = json.loads(built.files["stories.json"])
    stories = data["stories"]
    assert data["count"] == len(stories) == 7
    assert [s["published"] for s in stories] == sorted((s["published"] for s in stories), reverse=True)
    for story in stories:
        assert story["links"]["html"] == story["url"] and story["links"]["json"].endswith("/index.json")
        assert story["links"]["markdown"].endswith("/index.md")
        assert all(isinstance(i, str) for i in story["cited_manifest_ids"])
        assert {"title", "description", "newsroom", "beat", "trust", "source_count", "edition"} <= set(story)


def test_robots_and_404(built):
    robots = built.files["robots.txt"].decode()
    assert f"Sitemap: {BASE}/sitemap.xml" in robots and f"Sitemap: {BASE}/news-sitemap.xml" in robots
    missing = page(built, "404.html")
    assert missing.cssselect('meta[name="robots"]')[0].get("content") == "noindex"
    assert missing.cssselect('link[rel="stylesheet"]')[0].get("href") == "/style.css"
    assert "/terms/reuse/" in [a.get("href") for a in missing.cssselect("main a")]


def test_every_html_page_has_title_description_canonical_open_graph_and_feeds(built):
    pages = [path for path in built.files if path.endswith(".html")]
    assert len(pages) > 20
    for path in pages:
        tree = page(built, path)
        assert tree.findtext(".//title").strip(), path
        assert tree.cssselect('meta[name="description"]')[0].get("content").strip(), path
        canonical = tree.cssselect('link[rel="canonical"]')[0].get("href")
        assert canonical.startswith(BASE + "/"), path
        og = {m.get("property"): m.get("content") for m in tree.cssselect("meta[property^='og:']")}
        assert og["og:url"] == canonical and og["og:title"] and og["og:description"] and og["og:type"], path
        feeds = {link.get("href") for link in tree.cssselect('link[rel="alternate"]')}
        assert {f"{BASE}/feed.xml", f"{BASE}/feed.json"} <= feeds, path
    newsroom = page(built, "newsrooms/city/page/2/index.html")
    assert f"{BASE}/newsrooms/city/feed.xml" in {l.get("href") for l in newsroom.cssselect('link[rel="alternate"]')}


def test_story_json_ld_is_a_complete_news_article(built):
    tree = page(built, "stories/2026-11-21/council-funds-the-quay-street-busway/index.html")
    article = json.loads(tree.cssselect('script[type="application/ld+json"]')[0].text)
    assert article["@type"] == "NewsArticle" and article["headline"] == "Council funds the Quay Street busway"
    assert article["datePublished"] == "2026-11-21T10:30:00Z" and article["dateModified"]
    assert article["publisher"]["name"] == "Test Desk" and article["articleSection"]
    front = json.loads(page(built, "index.html").cssselect('script[type="application/ld+json"]')[0].text)
    assert article["publisher"] in front["@graph"]  # one organization, by one @id, on every page
    assert [(c["name"], c["url"], c["datePublished"]) for c in article["citation"]] == [
        ("Council minutes, November session", "https://council.example.org/minutes/11", "2026-11-20T09:00:00Z"),
        ("Transit ridership report", "https://transit.example.org/ridership", "2026-11-19T12:00:00Z")]
    assert tree.cssselect('meta[property="og:type"]')[0].get("content") == "article"


# Sitemaps -----------------------------------------------------------------------------------------------------

def test_sitemap_lists_every_page_with_its_lastmod(built):
    urls = {u.findtext(f"{SITEMAP}loc"): u.findtext(f"{SITEMAP}lastmod")
            for u in etree.fromstring(built.files["sitemap.xml"]).iter(f"{SITEMAP}url")}
    pages = {f"{BASE}/" + p.removesuffix("index.html") for p in built.files if p.endswith(".html")}
    assert set(urls) == pages - {f"{BASE}/404.html", f"{BASE}/search/"}
    assert urls[f"{BASE}/stories/2026-11-24/the-ember-report-reaches-the-council/"] == "2026-11-25T06:00:00Z"
    assert urls[f"{BASE}/newsrooms/city/page/3/"] == "2026-11-25T06:00:00Z"
    assert urls[f"{BASE}/newsrooms/science/"] == "2026-11-24T15:00:00Z"
    assert urls[f"{BASE}/editions/2026-11-22T09/"] == "2026-11-22T09:00:00Z"
    assert urls[f"{BASE}/"] == "2026-11-25T06:00:00Z"


def test_news_sitemap_lists_the_48_hours_before_the_newest_story(built):
    tree = etree.fromstring(built.files["news-sitemap.xml"])
    locs = [u.findtext(f"{SITEMAP}loc") for u in tree.iter(f"{SITEMAP}url")]
    assert locs == [f"{BASE}/stories/2026-11-24/the-fjord-report-reaches-the-council/",
                    f"{BASE}/stories/2026-11-24/the-ember-report-reaches-the-council/",
                    f"{BASE}/stories/2026-11-23/the-delta-report-reaches-the-council/"]
    news = "{http://www.google.com/schemas/sitemap-news/0.9}"
    first = next(tree.iter(f"{news}news"))
    assert first.findtext(f"{news}publication/{news}name") == "Test Desk"
    assert first.findtext(f"{news}publication/{news}language") == "en"
    assert first.findtext(f"{news}publication_date") == "2026-11-24T15:00:00Z"
    assert first.findtext(f"{news}title") == "The fjord report reaches the council"


def test_site_outputs_are_deterministic(busy):
    first, second = build_in_memory(busy), build_in_memory(busy)
    assert first.files == second.files


@pytest.fixture
def moved_kinds():
    """The beat and newsroom rows of the kinds table with other URL prefixes (one two folders deep), as a site's
    own table might have."""
    from generator.content.kinds import KINDS

    before = {name: KINDS[name].folder for name in ("beat", "newsroom")}
    object.__setattr__(KINDS["beat"], "folder", "topics")  # (the rows are frozen: the table is code)
    object.__setattr__(KINDS["newsroom"], "folder", "sections/desks")
    yield
    for name, folder in before.items():
        object.__setattr__(KINDS[name], "folder", folder)


def test_the_kinds_table_places_every_page_of_a_kind_and_every_link_to_it(busy, moved_kinds):
    result = build_in_memory(busy, search=False)
    assert result.ok, [str(f) for f in result.findings]
    assert "topics/research/index.html" in result.files and "sections/desks/city/page/2/index.html" in result.files
    assert not [path for path in result.files if path.startswith(("beats/", "newsrooms/"))]
    stale = [path for path, data in result.files.items() if b"/beats/" in data or b"/newsrooms/" in data]
    assert stale == []
    story = page(result, "stories/2026-11-24/the-fjord-report-reaches-the-council/index.html")
    kickers = [a.get("href") for a in story.cssselect(".story-head .kicker a")]
    assert kickers == ["/sections/desks/science/", "/topics/research/"]
    teaser = page(result, "sections/desks/science/index.html").cssselect(".teaser .kicker a")[0]
    assert teaser.get("href") == "/topics/research/"
    view = json.loads(result.files["stories/2026-11-24/the-fjord-report-reaches-the-council/index.json"])
    assert view["beat"]["url"] == f"{BASE}/topics/research/"
    lastmods = {u.findtext(f"{SITEMAP}loc"): u.findtext(f"{SITEMAP}lastmod")
                for u in etree.fromstring(result.files["sitemap.xml"]).iter(f"{SITEMAP}url")}
    assert lastmods[f"{BASE}/sections/desks/science/"] == "2026-11-24T15:00:00Z"
    assert lastmods[f"{BASE}/sections/desks/city/page/2/"] == "2026-11-25T06:00:00Z"


def test_a_heading_s_inline_markdown_is_html_on_the_page_and_in_feeds_and_as_written_in_the_other_formats(
        site: Path):
    """`## Why *now*` is a heading with emphasis on the page and in a feed entry, as a paragraph's would be; the
    Markdown variant and index.json keep it as written; the rest of its text is escaped (raw HTML is LP061's)."""
    from tests.conftest import STORY, STORY_PATH, build_in_memory, write_tree

    written = "The vote, and *why now* & `9 to 2` ([minutes](/pages/terms/reuse/))"
    story = STORY.replace("## The vote", f"## {written}")
    built = build_in_memory(write_tree(site, {STORY_PATH: story}), search=False)
    assert built.ok, built.findings
    folder = "stories/2026-11-21/council-funds-the-quay-street-busway/"
    heading = "The vote, and <em>why now</em> &amp; <code>9 to 2</code> ({}minutes</a>)"
    page = built.files[folder + "index.html"].decode()
    assert heading.format('<a href="/pages/terms/reuse/">') + "</h2>" in page
    entry = json.loads(built.files["feed.json"])["items"][0]["content_html"]  # every address absolute in a feed
    assert entry.count("<h2>" + heading.format(f'<a href="{BASE}/pages/terms/reuse/">') + "</h2>") == 1
    assert f"## {written}\n" in built.files[folder + "index.md"].decode()
    assert written in [section["title"] for section in json.loads(built.files[folder + "index.json"])["sections"]]


def test_a_feed_shows_citations_as_superscript_links_and_the_feeds_rights_speak_of_its_stories(built):
    """In a feed reader the markers read as "^[2[2]]" (the brackets beside the number a reader gives each
    link); the feed's own <rights> was one story's reuse text ("this story")."""
    import feedparser

    feed = feedparser.parse(built.files["feed.xml"])
    assert feed.feed.rights.startswith("Each story in this feed may be reused on ") and "this story" not in feed.feed.rights
    assert feed.feed.rights.endswith(f"{BASE}/terms/reuse/")
    for document in (feed.entries[0].content[0].value, json.loads(built.files["feed.json"])["items"][0]["content_html"]):
        fragment = html.fromstring(f"<div>{document}</div>")
        marks = fragment.xpath("//sup")
        assert marks and "[" not in "".join(mark.text_content() for mark in marks), document
        for mark in marks:
            links = mark.xpath("a")
            assert links and all(re.search(r"#manifest-\d+$", link.get("href")) for link in links)
            assert all(link.get("href").startswith(BASE) for link in links)
