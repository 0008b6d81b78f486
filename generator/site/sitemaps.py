"""sitemap.xml (every HTML page with its lastmod) and news-sitemap.xml (the last 48 hours of stories)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Sequence

from ..render.dates import moment
from ..content.kinds import PAGED
from ..render.story_terms import terms_of
from ..render.ledger_rows import manifest_path
from ..render.structured import SEARCH_PATH
from ..render.teaser import Teaser
from .lists import newest_first
from .moments import EPOCH, modified
from .outputs import SITE_TOML, Output, Site, output_file, producer

NEWS_WINDOW = dt.timedelta(hours=48)
NEWS_LIMIT = 1000
NOT_IN_SITEMAP = ("404.html", output_file(SEARCH_PATH))


@producer(last=True)
def sitemaps(site: Site) -> Iterator[Output]:
    """sitemap.xml (every HTML page with its lastmod) and news-sitemap.xml (the last 48 hours of stories)."""
    lastmods = page_lastmods(site.stories, site.paths)
    urls = [{"loc": site.config.url("/" + path.removesuffix("index.html")), "lastmod": lastmods[path]}
            for path in sorted(lastmods)]
    yield Output("sitemap.xml", SITE_TOML, "sitemap.xml", {"urls": urls})
    yield Output("news-sitemap.xml", SITE_TOML, "news-sitemap.xml",
                 {"stories": news_stories(site.stories), "language": news_language(site.config.language)})


def news_language(language: str) -> str:
    """Google News wants an ISO 639 code ('en' for 'en-GB'); Chinese alone keeps its script: zh-cn, zh-tw."""
    code = language.lower()
    return code if code in ("zh-cn", "zh-tw") else code.split("-")[0]


def page_lastmods(stories: Sequence[Teaser], files: Iterable[str]) -> dict[str, str]:
    """{output path: lastmod} for every HTML page worth indexing: the newest change among the stories it shows
    (a list page: its whole term; a manifest page: the stories citing it; others: the whole site)."""
    newest: dict[str, str] = {}  # by the URL path of the pages showing it: "/stories/<key>/", "/beats/<slug>/", ...
    for story in stories:
        changed = modified(story)
        folders = [story.path, *(kind.path(term) for kind in PAGED for term in terms_of(story, kind)),
                   *(manifest_path(i) for i in story.cited_manifest_ids)]
        for folder in folders:
            newest[folder] = max(newest.get(folder, changed), changed)
    site_wide = max(newest.values(), default=EPOCH)
    lastmods = {}
    for path in files:
        if path.endswith(".html") and path not in NOT_IN_SITEMAP:
            folder = "/" + path.removesuffix(path.rpartition("/")[2])  # "/beats/transit/page/2/"
            while folder != "/" and folder not in newest:  # up to the term's first page, "/beats/transit/"
                folder = folder[:folder.rfind("/", 0, -1) + 1]
            lastmods[path] = newest.get(folder, site_wide)
    return lastmods


def news_stories(stories: Sequence[Teaser]) -> list[Teaser]:
    """Stories published in the 48 hours up to the newest story, newest first, at most 1,000."""
    ordered = newest_first(stories)
    if not ordered:
        return []
    start = moment(ordered[0].published) - NEWS_WINDOW
    return [story for story in ordered if moment(story.published) >= start][:NEWS_LIMIT]
