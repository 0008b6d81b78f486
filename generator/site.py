"""Site-wide outputs built from story views: the front page, editions, newsroom and beat pages, plain pages, data."""

from __future__ import annotations

import datetime as dt
import functools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import groupby

from .body import render_markdown
from .config import SiteConfig
from .models import ManifestFile, Page
from .render import Renderer, builtin_templates, to_json
from .view import ManifestView, StoryView, Term, manifest_view

SCHEMA_PATH = "schema/story.schema.json"
SEARCH_PATH = "/search/"
NOT_IN_SITEMAP = ("404.html", SEARCH_PATH.lstrip("/") + "index.html")
NEWS_WINDOW = dt.timedelta(hours=48)
NEWS_LIMIT = 1000
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


def newest_first(views: list[StoryView]) -> list[StoryView]:
    """Newest published first; the URL breaks ties so the order never depends on input order."""
    return sorted(views, key=lambda view: (view.published, view.path), reverse=True)


def story_schema(config: SiteConfig) -> dict:
    """The JSON Schema of index.json, generated from the StoryView model."""
    schema = StoryView.model_json_schema(mode="serialization", by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": config.url("/" + SCHEMA_PATH),
            **schema}


@dataclass(frozen=True)
class Edition:
    """The stories published in one edition (an hour, `YYYY-MM-DDTHH`), newest first."""

    id: str
    label: str
    path: str
    stories: list[StoryView]


@dataclass(frozen=True)
class Pager:
    """Where one page of a paginated list sits: its number, the count, and its neighbours' paths."""

    number: int
    count: int
    prev: str | None
    next: str | None


@dataclass(frozen=True)
class Listing:
    """One list page (a newsroom, a beat or an edition): what list.html renders."""

    kind: str
    term: Term
    title: str
    description: str
    path: str
    stories: list[StoryView]
    pager: Pager | None
    feeds: bool = False


def editions(views: list[StoryView]) -> list[Edition]:
    """Stories grouped by edition, the newest edition first."""
    ordered = sorted(newest_first(views), key=lambda view: view.edition, reverse=True)
    return [Edition(key, edition_label(key), f"/editions/{key}/", newest_first(list(group)))
            for key, group in groupby(ordered, key=lambda view: view.edition)]


def edition_label(edition: str) -> str:
    """2026-11-27T10 -> 2026-11-27 10:00 UTC, the way every other time on the site reads."""
    return f"{edition[:10]} {edition[11:13]}:00 UTC"


def front_editions(all_editions: list[Edition], page_size: int) -> list[Edition]:
    """Whole editions, newest first, until page_size stories are on the front page (always at least one)."""
    shown: list[Edition] = []
    for edition in all_editions:
        if shown and sum(len(e.stories) for e in shown) + len(edition.stories) > page_size:
            break
        shown.append(edition)
    return shown


def paginate(stories: list[StoryView], path: str, page_size: int) -> list[tuple[str, list[StoryView], Pager]]:
    """(page path, its stories, pager) for path, path + 'page/2/', ...; an empty list still has page 1."""
    chunks = [stories[i:i + page_size] for i in range(0, len(stories), page_size)] or [[]]
    paths = [path if n == 1 else f"{path}page/{n}/" for n in range(1, len(chunks) + 1)]
    return [(paths[i], chunk, Pager(i + 1, len(chunks), paths[i - 1] if i else None,
                                    paths[i + 1] if i + 1 < len(chunks) else None))
            for i, chunk in enumerate(chunks)]


def term_listings(views: list[StoryView], config: SiteConfig, kind: str) -> Iterator[Listing]:
    """Every page of every declared newsroom (kind 'newsroom') or beat (kind 'beat'), in declaration order."""
    names = config.newsrooms if kind == "newsroom" else config.beats
    by_term: dict[str, list[StoryView]] = {}
    slug_of = operator.attrgetter(f"{kind}_slug")
    for view in newest_first(views):
        by_term.setdefault(slug_of(view), []).append(view)
    for slug, name in names.items():
        term = Term(slug=slug, name=name, url=config.url(f"/{kind}s/{slug}/"))
        mine = by_term.get(slug, [])
        description = (f"Every story from the {name} newsroom, newest first." if kind == "newsroom"
                       else f"Every story on the {name} beat, newest first.")
        for path, chunk, pager in paginate(mine, f"/{kind}s/{slug}/", config.page_size):
            yield Listing(kind, term, name, description, path, chunk, pager, feeds=kind == "newsroom")


def term_counts(views: list[StoryView], config: SiteConfig, kind: str) -> list[tuple[Term, int]]:
    """Each declared newsroom or beat with its number of stories, in declaration order."""
    names = config.newsrooms if kind == "newsroom" else config.beats
    counts = Counter(map(operator.attrgetter(f"{kind}_slug"), views))
    return [(Term(slug=slug, name=name, url=config.url(f"/{kind}s/{slug}/")), counts[slug])
            for slug, name in names.items()]


def edition_listings(all_editions: list[Edition], config: SiteConfig) -> Iterator[Listing]:
    for edition in all_editions:
        term = Term(slug=edition.id, name=edition.label, url=config.url(edition.path))
        count = len(edition.stories)
        description = f"The {edition.label} edition of {config.title}: {count} stor{'y' if count == 1 else 'ies'}."
        yield Listing("edition", term, f"Edition of {edition.label}", description, edition.path, edition.stories,
                      None)


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
    yield Plan(SCHEMA_PATH, "generator/view.py", None, (),
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


def manifest_plans(manifests: dict[str, ManifestFile], views: list[StoryView], renderer: Renderer,
                   config: SiteConfig, mark: Mark) -> Iterator[Plan]:
    """manifests/<id>/index.html and index.json: each record with its claims and backlinks."""
    citing: dict[str, list[StoryView]] = {}
    for view in views:
        for manifest_id in view.ledger_claims:
            citing.setdefault(manifest_id, []).append(view)
    for manifest_id in sorted(manifests):
        found, mine = manifests[manifest_id], citing.get(manifest_id, [])
        page = functools.cache(partial(manifest_view, found, mine, config))
        inputs = (found.digest, tuple(sorted(marks(mine, mark))))
        for suffix in ("html", "json"):
            yield Plan(f"manifests/{manifest_id}/index.{suffix}", found.path, f"manifest.{suffix}", inputs,
                       partial(_manifest_page, renderer, f"manifest.{suffix}", page))


def _manifest_page(renderer: Renderer, template: str, page: Callable[[], ManifestView]) -> str:
    return renderer.render(template, manifest=page())
