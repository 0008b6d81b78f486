"""sitemap.xml (every HTML page with its lastmod) and news-sitemap.xml (the last 48 hours of stories)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from functools import partial

from ..content.config import SiteConfig
from ..render.story_view import StoryView
from ..render.templates import Renderer
from .lists import newest_first
from .plans import EPOCH, NOT_IN_SITEMAP, SITE_TOML, Mark, Plan, marks

NEWS_WINDOW = dt.timedelta(hours=48)


NEWS_LIMIT = 1000


@functools.lru_cache(maxsize=1 << 16)
def _moment(value: str) -> dt.datetime:
    """An ISO date or date-time from a view as an aware datetime (a bare date is its midnight, UTC)."""
    if len(value) == 10:
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.timezone.utc)
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def modified(view: StoryView) -> str:
    """When a story last changed, as a UTC date-time: its `updated`, never before it was published."""
    return _modified(view.updated, view.published)


@functools.lru_cache(maxsize=1 << 16)
def _modified(updated: str, published: str) -> str:
    moment = max(_moment(updated), _moment(published))
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sitemap_plans(views: list[StoryView], files: Iterable[str], renderer: Renderer, config: SiteConfig,
                  mark: Mark) -> list[Plan]:
    """sitemap.xml (every HTML page with its lastmod) and news-sitemap.xml (the last 48 hours of stories)."""
    lastmods = page_lastmods(views, files)
    urls = [{"loc": config.url("/" + path.removesuffix("index.html")), "lastmod": lastmods[path]}
            for path in sorted(lastmods)]
    news, language = news_stories(views), news_language(config.language)
    return [Plan("sitemap.xml", SITE_TOML, "sitemap.xml", tuple(sorted(lastmods.items())),
                 partial(renderer.render, "sitemap.xml", urls=urls)),
            Plan("news-sitemap.xml", SITE_TOML, "news-sitemap.xml", (language, marks(news, mark)),
                 partial(renderer.render, "news-sitemap.xml", stories=news, language=language))]


def news_language(language: str) -> str:
    """Google News wants an ISO 639 code ('en' for 'en-GB'); Chinese alone keeps its script: zh-cn, zh-tw."""
    code = language.lower()
    return code if code in ("zh-cn", "zh-tw") else code.split("-")[0]


def page_lastmods(views: list[StoryView], files: Iterable[str]) -> dict[str, str]:
    """{output path: lastmod} for every HTML page worth indexing: the newest change among the stories it shows
    (a list page: its whole newsroom, beat or edition; a manifest page: the stories citing it; others: the site)."""
    newest: dict[tuple[str, str], str] = {}
    for view in views:
        changed = modified(view)
        keys = [("stories", view.path), ("newsrooms", view.newsroom_slug), ("beats", view.beat_slug),
                ("editions", view.edition), *(("manifests", i) for i in view.cited_manifest_ids)]
        for key in keys:
            newest[key] = max(newest.get(key, changed), changed)
    site_wide = max(newest.values(), default=EPOCH)
    lastmods = {}
    for path in files:
        if not path.endswith(".html") or path in NOT_IN_SITEMAP:
            continue
        parts = path.split("/")
        key = ("stories", "/" + path.removesuffix("index.html")) if parts[0] == "stories" else tuple(parts[:2])
        lastmods[path] = newest.get(key, site_wide)
    return lastmods


def news_stories(views: list[StoryView]) -> list[StoryView]:
    """Stories published in the 48 hours up to the newest story, newest first, at most 1,000."""
    ordered = newest_first(views)
    if not ordered:
        return []
    start = _moment(ordered[0].published) - NEWS_WINDOW
    return [view for view in ordered if _moment(view.published) >= start][:NEWS_LIMIT]
