"""LP01x: newsrooms, beats and trust levels exist, and every story has a URL of its own."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import Page, Story
from . import SiteIndex, rule

# What a build writes at the top of the output folder besides plain pages: a page there would collide with it
# (tests/test_no_traceback.py holds this to a real build's output).
GENERATED_FILES = frozenset({"index.html", "404.html", "feed.xml", "feed.json", "sitemap.xml", "news-sitemap.xml",
                             "robots.txt", "stories.json", "style.css", "favicon.svg"})
GENERATED_FOLDERS = frozenset({"stories", "editions", "newsrooms", "beats", "manifests", "schema", "search",
                               "pagefind", "authors", "corrections", "images"})


@rule("LP010", "story", "newsroom, beat or trust level not declared in site.toml")
def declared(story: Story, site: SiteIndex) -> Iterator[Finding]:
    for field, table, known in (("newsroom", "newsrooms", site.config.newsrooms), ("beat", "beats", site.config.beats),
                                ("trust", "trust", site.config.trust)):
        value = getattr(story.meta, field)
        if value not in known:
            choices = ", ".join(sorted(known))
            yield story.source.finding((field,), "LP010", f"{field} '{value}' is not declared in site.toml: expected "
                                       f"one of {choices}, or {value} declared under [{table}] there")


@rule("LP011", "site", "two stories (or pages) have the same URL, or a page has the URL of a generated file")
def unique_urls(site: SiteIndex) -> Iterator[Finding]:
    first: dict[str, Story] = {}
    for story in sorted(site.stories, key=lambda s: s.path):
        other = first.setdefault(story.url_path, story)
        if other is not story:
            yield story.source.finding(("title",), "LP011", f"same URL {story.url_path} as {other.path}: expected "
                                       "each story under its own date and slug (set slug: to tell them apart)")
    pages: dict[str, Page] = {}
    for page in sorted(site.pages, key=lambda p: p.path):
        other = pages.setdefault(page.url_path, page)
        taken = generated_at(page.url_path)
        if other is not page:
            yield Finding(page.path, 1, 1, "LP011", f"same URL {page.url_path} as {other.path}: expected each page "
                          "at its own path under content/pages/")
        elif taken:
            yield Finding(page.path, 1, 1, "LP011", f"URL {page.url_path} is taken by {taken}: expected the page "
                          "moved or renamed")


def generated_at(url_path: str) -> str | None:
    """What the build writes where a page at url_path would go, if anything."""
    top = url_path.strip("/").split("/")[0]
    if not top:
        return "the front page (index.html)"
    if top in GENERATED_FILES:
        return f"the generated file {top}"
    return f"the generated folder {top}/" if top in GENERATED_FOLDERS else None
