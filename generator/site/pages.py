"""The site's pages besides feeds, sitemaps and manifest pages: the front page, the editions, every list page,
the plain pages from content/pages/, the search page, 404, and the data files (stories.json, the schema)."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.body import render_markdown
from ..content.config import SiteConfig
from ..content.models import Page
from ..render.bylines import author_page
from ..render.formats import to_json
from ..render.story_view import StoryView
from ..render.structured import SEARCH_PATH
from ..render.teaser import Teaser
from .lists import editions, front_editions, indexes, listings, newest_first, term_counts
from .outputs import SITE_TOML, Output, Site, output_file, producer

SCHEMA_PATH = "schema/story.schema.json"
STORIES_FIELDS = ("title", "description", "slug", "url", "published", "updated", "edition", "newsroom", "beat", "trust",
                  "source_count", "cited_manifest_ids", "links")


def page_output(page: Page) -> str:
    """A plain page's HTML output."""
    return output_file(page.url_path)


@producer()
def front_and_lists(site: Site) -> Iterator[Output]:
    """The front page (the newest editions, and the terms of the kinds it lists), the index page of each kind,
    and every page of every term."""
    config, stories, declared = site.config, site.stories, site.declared
    links = page_links(site.pages)
    yield Output("index.html", SITE_TOML, "index.html", {
        "editions": front_editions(editions(stories, config), config.front_page_size), "pages": links,
        "terms": term_counts(stories, config, declared)})
    for index in indexes(stories, config, declared):
        yield Output(output_file(index.kind.prefix), SITE_TOML, index.kind.index, {"index": index})
    about = {"author": {slug: author_page(author, config) for slug, author in site.authors.items()}}
    for listing in listings(stories, config, declared, about):
        yield Output(output_file(listing.path), SITE_TOML, listing.kind.template, {"listing": listing})


@producer()
def plain_pages(site: Site) -> Iterator[Output]:
    """The pages from content/pages/, the search page, 404.html, the stylesheet and the icon."""
    links = page_links(site.pages)
    yield Output("404.html", "templates/404.html", "404.html", {"pages": links})
    yield Output(output_file(SEARCH_PATH), "templates/search.html", "search.html", {"path": SEARCH_PATH})
    yield Output("style.css", "templates/style.css", "style.css", raw=True)
    yield Output("favicon.svg", "templates/favicon.svg", "favicon.svg", raw=True)
    for page in sorted(site.pages, key=lambda p: p.url_path):
        html = render_markdown(page.body)
        yield Output(page_output(page), page.path, "page.html", {"page": {
            "title": page.meta.title, "description": page.meta.description, "path": page.url_path, "html": html}})


@producer()
def data_files(site: Site) -> Iterator[Output]:
    """stories.json, the schema of every story's index.json, and robots.txt."""
    yield Output("stories.json", SITE_TOML, None, {"stories": newest_first(site.stories)}, make=stories_json)
    yield Output(SCHEMA_PATH, "generator/render/story_view.py", None, make=story_schema)
    yield Output("robots.txt", SITE_TOML, None, make=robots_txt)


def page_links(pages: list[Page]) -> list[dict[str, str]]:
    return [{"title": page.meta.title, "path": page.url_path} for page in sorted(pages, key=lambda p: p.url_path)]


def stories_json(config: SiteConfig, stories: list[Teaser]) -> str:
    """Every story's metadata and the URLs of its three variants, newest first."""
    return to_json({"title": config.title, "home_page_url": config.url("/"), "url": config.url("/stories.json"),
                    "language": config.language, "count": len(stories),
                    "stories": [story.fields(STORIES_FIELDS) for story in stories]})


def story_schema(config: SiteConfig) -> str:
    """The JSON Schema of index.json, generated from the StoryView model."""
    schema = StoryView.model_json_schema(mode="serialization", by_alias=True)
    return to_json({"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": config.url("/" + SCHEMA_PATH),
                    **schema})


def robots_txt(config: SiteConfig) -> str:
    return (f"User-agent: *\nAllow: /\n\nSitemap: {config.url('/sitemap.xml')}\n"
            f"Sitemap: {config.url('/news-sitemap.xml')}\n")
