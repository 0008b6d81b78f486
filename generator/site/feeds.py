"""Atom and JSON Feed 1.1 for the site and each newsroom: the newest stories, dated by the stories, not the clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

from ..content.config import SiteConfig
from ..render.formats import to_json
from ..render.story_view import StoryView
from ..render.templates import Renderer
from .. import __version__
from .plans import EPOCH, SITE_TOML, Mark, Plan, marks
from .sitemaps import modified

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
    entries: list[StoryView]
    generator_version: str = __version__

    def modified(self, story: StoryView) -> str:
        return modified(story)


def feed_entries(views: list[StoryView], size: int = FEED_SIZE) -> list[StoryView]:
    """Newest first by published date, then URL (so equal dates keep one order), at most size."""
    return sorted(views, key=lambda view: (view.published, view.url), reverse=True)[:size]


def make_feed(views: list[StoryView], config: SiteConfig, folder: str, title: str, description: str,
              fallback: str = EPOCH) -> Feed:
    """The feed published under folder ('/' or '/newsrooms/<slug>/'): updated when its newest entry last changed,
    or at fallback (the site's newest change) when it has no entry yet."""
    entries = feed_entries(views)
    updated = max((modified(view) for view in entries), default=fallback)
    return Feed(title=title, description=description, home_url=config.url(folder),
                atom_url=config.url(folder + "feed.xml"), json_url=config.url(folder + "feed.json"),
                updated=updated, entries=entries)


def site_feeds(views: list[StoryView], config: SiteConfig) -> Iterator[tuple[str, Feed]]:
    """(folder, feed) for the whole site, then for each declared newsroom in declaration order."""
    site = make_feed(views, config, "/", config.title, config.description or config.title)
    yield "/", site
    for slug, name in config.newsrooms.items():
        mine = [view for view in views if view.newsroom_slug == slug]
        yield f"/newsrooms/{slug}/", make_feed(mine, config, f"/newsrooms/{slug}/", f"{config.title}: {name}",
                                               f"Stories from the {name} newsroom of {config.title}.", site.updated)


def json_feed(feed: Feed, config: SiteConfig) -> dict:
    """JSON Feed 1.1; ledgerpress's own fields go under `_ledgerpress`, as the spec asks of extensions."""
    author = {"name": config.title, "url": config.url("/")}
    return {
        "version": JSON_FEED_VERSION, "title": feed.title, "home_page_url": feed.home_url, "feed_url": feed.json_url,
        "description": feed.description, "language": config.language, "authors": [author],
        "items": [_json_item(view, author) for view in feed.entries],
    }


def _json_item(view: StoryView, author: dict) -> dict:
    return {
        "id": view.url, "url": view.url, "title": view.title, "summary": view.description,
        "content_text": f"{view.description}\n\n{view.byline}", "date_published": view.published,
        "date_modified": modified(view), "authors": [author], "tags": [view.newsroom.name, view.beat.name],
        "_ledgerpress": {
            "newsroom": view.newsroom.slug, "beat": view.beat.slug, "trust": view.trust.slug,
            "edition": view.edition, "source_count": view.source_count,
            "cited_manifest_ids": view.cited_manifest_ids, "json": view.links.json_, "markdown": view.links.markdown,
        },
    }


def feed_plans(views: list[StoryView], renderer: Renderer, config: SiteConfig, mark: Mark) -> Iterator[Plan]:
    """feed.xml and feed.json for the site and for every newsroom."""
    for folder, feed in site_feeds(views, config):
        base = folder.lstrip("/")
        inputs = (folder, feed.title, feed.description, feed.updated, marks(feed.entries, mark))
        yield Plan(base + "feed.xml", SITE_TOML, "feed.xml", inputs, partial(renderer.render, "feed.xml", feed=feed))
        yield Plan(base + "feed.json", SITE_TOML, None, inputs,
                   lambda feed=feed: to_json(json_feed(feed, config)))
