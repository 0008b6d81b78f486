"""Site-wide outputs built from story views: the front page, editions, newsroom and beat pages, plain pages, data."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from ..checks.taxonomy import generated_at
from ..content.body import render_markdown
from ..content.config import SiteConfig
from ..content.models import Page
from ..render.formats import to_json
from ..render.story_view import StoryView, Term
from ..render.templates import Renderer, builtin_templates
from .lists import (
    Edition,
    edition_listings,
    editions,
    front_editions,
    newest_first,
    term_counts,
    term_listings,
)

SCHEMA_PATH = "schema/story.schema.json"


SEARCH_PATH = "/search/"


NOT_IN_SITEMAP = ("404.html", SEARCH_PATH.lstrip("/") + "index.html")


EPOCH = "1970-01-01T00:00:00Z"


SITE_TOML = "content/site.toml"  # the source that site-wide outputs are reported against


Mark = Callable[[StoryView], str]  # a digest of everything a story view was made from


@dataclass(frozen=True)
class Plan:
    """One site output before it is made: its path, the source it is reported against, what it is made from
    (`inputs`: story views by their marks; the generator, options and site.toml count for every output, and
    `template` with all it includes for this one) and how to make it. A build makes it only when these moved."""

    path: str
    source: str
    template: str | None
    inputs: tuple
    make: Callable[[], str | bytes]
    rendered: bool = True  # False: the template is copied as it is, not rendered through Jinja


def marks(views: Iterable[StoryView], mark: Mark) -> tuple[str, ...]:
    return tuple(mark(view) for view in views)


def story_schema(config: SiteConfig) -> dict:
    """The JSON Schema of index.json, generated from the StoryView model."""
    schema = StoryView.model_json_schema(mode="serialization", by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": config.url("/" + SCHEMA_PATH),
            **schema}


def stories_data(views: list[StoryView], config: SiteConfig) -> dict:
    """stories.json: every story's metadata and the URLs of its three variants, newest first."""
    keep = ("title", "description", "slug", "url", "published", "updated", "edition", "newsroom", "beat", "trust",
            "source_count", "cited_manifest_ids", "links")
    return {"title": config.title, "home_page_url": config.url("/"), "url": config.url("/stories.json"),
            "language": config.language, "count": len(views),
            "stories": [view.data(keep) for view in newest_first(views)]}


def site_plans(views: list[StoryView], pages: list[Page], renderer: Renderer, config: SiteConfig,
               mark: Mark) -> Iterator[Plan]:
    """Every file that is not a story variant, feed, sitemap or manifest page."""
    render = renderer.render
    pages = [page for page in pages if not generated_at(page.url_path)]  # (LP011 turned off: generated files win)
    all_editions = editions(views)
    front = front_editions(all_editions, config.page_size)
    links = _page_links(pages)
    newsrooms, beats = term_counts(views, config, "newsroom"), term_counts(views, config, "beat")
    yield Plan("index.html", SITE_TOML, "index.html",
               (_edition_marks(front, mark), _link_items(links), _counts(newsrooms), _counts(beats)),
               partial(render, "index.html", editions=front, pages=links, newsrooms=newsrooms, beats=beats))
    yield Plan("editions/index.html", SITE_TOML, "editions.html", (_edition_marks(all_editions, mark),),
               partial(render, "editions.html", editions=all_editions))
    listings = [*edition_listings(all_editions, config), *term_listings(views, config, "newsroom"),
                *term_listings(views, config, "beat")]
    for listing in listings:
        yield Plan(listing.path.lstrip("/") + "index.html", SITE_TOML, "list.html",
                   (listing.path, listing.description, listing.pager, marks(listing.stories, mark)),
                   partial(render, "list.html", listing=listing))
    yield Plan("stories.json", SITE_TOML, None, marks(newest_first(views), mark),
               lambda: to_json(stories_data(views, config)))
    yield Plan(SCHEMA_PATH, "generator/render/story_view.py", None, (),
               lambda: to_json(story_schema(config)))
    yield Plan("style.css", "templates/style.css", "style.css", (), partial(_stylesheet, renderer), rendered=False)
    yield Plan("404.html", "templates/404.html", "404.html", _link_items(links), partial(render, "404.html", pages=links))
    yield Plan(SEARCH_PATH.lstrip("/") + "index.html", "templates/search.html", "search.html", (),
               partial(render, "search.html", path=SEARCH_PATH))
    yield Plan("robots.txt", SITE_TOML, None, (), partial(robots_txt, config))
    for page in sorted(pages, key=lambda p: p.url_path):
        yield Plan(page.url_path.lstrip("/") + "index.html", page.path, "page.html",
                   (page.url_path, repr(page.meta), page.body), partial(_page, page, renderer))


def _page(page: Page, renderer: Renderer) -> str:
    context = {"title": page.meta.title, "description": page.meta.description, "path": page.url_path,
               "html": render_markdown(page.body)}
    return renderer.render("page.html", page=context)


def _edition_marks(shown: list[Edition], mark: Mark) -> tuple:
    return tuple((edition.id, marks(edition.stories, mark)) for edition in shown)


def _link_items(links: list[dict[str, str]]) -> tuple:
    return tuple(tuple(link.items()) for link in links)


def _counts(terms: list[tuple[Term, int]]) -> tuple[int, ...]:
    return tuple(count for _, count in terms)


def _page_links(pages: list[Page]) -> list[dict[str, str]]:
    return [{"title": page.meta.title, "path": page.url_path} for page in sorted(pages, key=lambda p: p.url_path)]


def robots_txt(config: SiteConfig) -> str:
    return (f"User-agent: *\nAllow: /\n\nSitemap: {config.url('/sitemap.xml')}\n"
            f"Sitemap: {config.url('/news-sitemap.xml')}\n")


def _stylesheet(renderer: Renderer) -> bytes:
    """The site's own style.css if it has one, else ours (through the same loader, not rendered)."""
    source, _, _ = renderer.env.loader.get_source(renderer.env, "style.css")
    return source.encode("utf-8") if source else (builtin_templates() / "style.css").read_bytes()
