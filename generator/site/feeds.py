"""Atom and JSON Feed 1.1 for the site and for each term of the kinds of list that have feeds: the newest
stories, dated by the stories, never the clock."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from jinja2 import TemplateRuntimeError

from .. import __version__
from ..content.config import SiteConfig
from ..content.kinds import PAGED
from ..render.story_terms import Declared
from ..render.teaser import Teaser, as_fields
from .lists import by_term, newest_first, term_names
from .moments import EPOCH, modified
from .outputs import SITE_TOML, Output, Site, output_file, producer

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


def make_feed(entries: Sequence[Teaser], config: SiteConfig, folder: str, title: str, description: str,
              fallback: str = EPOCH) -> Feed:
    """The feed published under folder ('/' or a term's folder, e.g. '/newsrooms/<slug>/') with these entries
    (newest first, at most FEED_SIZE): updated when any of its entries last changed (a correction to an older
    story too), or at fallback (the site's newest change) when it has no entry yet."""
    updated = max((modified(story) for story in entries), default=fallback)
    return Feed(title=title, description=description, home_url=config.url(folder),
                atom_url=config.url(folder + "feed.xml"), json_url=config.url(folder + "feed.json"),
                updated=updated, entries=list(entries))


def site_feeds(stories: Sequence[Teaser], config: SiteConfig, declared: Declared) -> Iterator[tuple[str, Feed]]:
    """(folder, feed) for the whole site, then for each term of each kind of list with feeds (the terms that
    have pages: lists.term_names): each the newest FEED_SIZE of its stories, by published date, then URL (so
    equal dates keep one order)."""
    ordered = newest_first(stories)  # once: every feed takes its entries from it
    site = make_feed(ordered[:FEED_SIZE], config, "/", config.title, config.description or config.title)
    yield "/", site
    for kind in PAGED:
        if kind.feed:
            stories_of = by_term(ordered, kind)
            for slug, name in term_names(kind, config, declared, stories_of).items():
                folder = kind.path(slug)
                yield folder, make_feed(stories_of.get(slug, [])[:FEED_SIZE], config, folder, f"{config.title}: {name}",
                                        kind.feed.format(name=name, site=config.title), site.updated)


@producer()
def feeds(site: Site) -> Iterator[Output]:
    """feed.xml and feed.json for the site and for every term with a feed: each entry's content is its story
    whole, read from the story's index.json."""
    for folder, feed in site_feeds(site.stories, site.config, site.declared):
        reads = tuple(_data_path(story) for story in feed.entries)
        yield Output(output_file(folder, "feed.xml"), SITE_TOML, "feed.xml", {"feed": feed}, view=feed_view,
                     reads=reads)
        yield Output(output_file(folder, "feed.json"), SITE_TOML, "feed.json", {"feed": feed}, view=json_feed_view,
                     reads=reads)


def _data_path(story: Teaser) -> str:
    return output_file(story.path, "index.json")


def feed_view(config: SiteConfig, feed: Feed, read: Mapping[str, bytes] | None = None) -> dict[str, Any]:
    """The feed and each entry's whole story (its index.json, in `read`: none when the feed has no entry), by path."""
    return {"feed": feed, "bodies": {story.path: _story_data(read[_data_path(story)], story.path)
                                     for story in feed.entries} if read else {}}


def _story_data(data: bytes, path: str) -> Any:
    """A story's index.json as the feeds read it: a site's own story.json that does not write the view as JSON
    fails the build at that template (LP900), not with a traceback."""
    try:
        return _entry_view(data)
    except orjson.JSONDecodeError as err:
        raise TemplateRuntimeError(f"story.json must write the story's view as JSON (feeds read each entry's "
                                   f"index.json), but {path}index.json is not JSON: {err}") from None


@functools.lru_cache(maxsize=2 * FEED_SIZE)
def _entry_view(data: bytes) -> Any:
    """One parse of each story a build's feeds carry, whichever feeds and formats carry it (the site's, its
    newsroom's, its authors'; Atom and JSON), and in the preview of those that did not change since its last
    build. Read only: templates do not change what they are given."""
    return as_fields(orjson.loads(data))


def json_feed_view(config: SiteConfig, feed: Feed, read: Mapping[str, bytes] | None = None) -> dict[str, Any]:
    """JSON Feed 1.1 as data, less each item's content_html (feed.json adds it from _entry.html); ledgerpress's
    own fields go under `_ledgerpress`, as the spec asks of extensions."""
    author = {"name": config.title, "url": config.url("/")}
    document = {
        "version": JSON_FEED_VERSION, "title": feed.title, "home_page_url": feed.home_url, "feed_url": feed.json_url,
        "description": feed.description, "icon": config.url("/favicon.svg"), "language": config.language,
        "authors": [author], "items": [_json_item(story, author) for story in feed.entries],
    }
    return {**feed_view(config, feed, read), "document": document}


def _json_item(story: Teaser, author: dict) -> dict:
    found = {
        "id": story.url, "url": story.url, "title": story.title, "summary": story.description,
        "date_published": story.published, "date_modified": modified(story),
        "authors": [{"name": person.name, "url": person.url} for person in story.authors] or [author],
        "tags": [story.newsroom.name, story.beat.name],
    }
    if story.image:
        found["image"] = story.image.url
    found["_ledgerpress"] = {
        "newsroom": story.newsroom.slug, "beat": story.beat.slug, "trust": story.trust.slug,
        "edition": story.edition, "source_count": story.source_count,
        "cited_manifest_ids": story.cited_manifest_ids, "json": story.links.json_, "markdown": story.links.markdown,
    }
    return found
