"""Atom and JSON Feed 1.1 for the site and for each term of the kinds of list that have feeds: the newest
stories, dated by the stories, never the clock."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .. import __version__
from ..content.config import SiteConfig
from ..render.formats import to_json
from ..render.teaser import Teaser
from .kinds import LIST_KINDS, Declared
from .lists import grouped
from .outputs import SITE_TOML, Output, Site, producer
from .sitemaps import EPOCH, modified

FEED_SIZE = 50
JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"


@dataclass(frozen=True)
class Feed:
    """One feed in both formats: where it lives, what it is called and its entries, newest first."""

    title: str
    description: str
    home_url: str
    atom_url: str
    json_url: str
    updated: str
    entries: list[Teaser]
    generator_version: str = __version__

    def modified(self, story: Teaser) -> str:
        return modified(story)


def feed_entries(stories: Sequence[Teaser], size: int = FEED_SIZE) -> list[Teaser]:
    """Newest first by published date, then URL (so equal dates keep one order), at most size."""
    return sorted(stories, key=lambda story: (story.published, story.path), reverse=True)[:size]


def make_feed(stories: Sequence[Teaser], config: SiteConfig, folder: str, title: str, description: str,
              fallback: str = EPOCH) -> Feed:
    """The feed published under folder ('/' or '/newsrooms/<slug>/'): updated when its newest entry last changed,
    or at fallback (the site's newest change) when it has no entry yet."""
    entries = feed_entries(stories)
    updated = max((modified(story) for story in entries), default=fallback)
    return Feed(title=title, description=description, home_url=config.url(folder),
                atom_url=config.url(folder + "feed.xml"), json_url=config.url(folder + "feed.json"),
                updated=updated, entries=entries)


def site_feeds(stories: Sequence[Teaser], config: SiteConfig, declared: Declared) -> Iterator[tuple[str, Feed]]:
    """(folder, feed) for the whole site, then for each declared term of each kind of list with feeds."""
    site = make_feed(stories, config, "/", config.title, config.description or config.title)
    yield "/", site
    for kind in LIST_KINDS:
        if kind.feed:
            found = grouped(stories, kind)
            for slug, name in kind.terms(declared).items():
                folder = f"{kind.prefix}{slug}/"
                yield folder, make_feed(found.get(slug, []), config, folder, f"{config.title}: {name}",
                                        kind.feed.format(name=name, site=config.title), site.updated)


@producer()
def feeds(site: Site) -> Iterator[Output]:
    """feed.xml and feed.json for the site and for every term with a feed."""
    for folder, feed in site_feeds(site.stories, site.config, site.declared):
        base = folder.lstrip("/")
        yield Output(base + "feed.xml", SITE_TOML, "feed.xml", {"feed": feed})
        yield Output(base + "feed.json", SITE_TOML, None, {"feed": feed}, make=json_feed)


def json_feed(config: SiteConfig, feed: Feed) -> str:
    """JSON Feed 1.1; ledgerpress's own fields go under `_ledgerpress`, as the spec asks of extensions."""
    author = {"name": config.title, "url": config.url("/")}
    return to_json({
        "version": JSON_FEED_VERSION, "title": feed.title, "home_page_url": feed.home_url, "feed_url": feed.json_url,
        "description": feed.description, "language": config.language, "authors": [author],
        "items": [_json_item(story, author) for story in feed.entries],
    })


def _json_item(story: Teaser, author: dict) -> dict:
    return {
        "id": story.url, "url": story.url, "title": story.title, "summary": story.description,
        "content_text": f"{story.description}\n\n{story.byline}", "date_published": story.published,
        "date_modified": modified(story), "authors": [author], "tags": [story.newsroom.name, story.beat.name],
        "_ledgerpress": {
            "newsroom": story.newsroom.slug, "beat": story.beat.slug, "trust": story.trust.slug,
            "edition": story.edition, "source_count": story.source_count,
            "cited_manifest_ids": story.cited_manifest_ids, "json": story.links.json_, "markdown": story.links.markdown,
        },
    }
