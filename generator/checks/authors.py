"""LP012: every author a story names has a file, content/authors/<slug>.md."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding, close_match, did_you_mean
from . import SiteIndex, rule


@rule("LP012", "site", "an author a story names has no file content/authors/<slug>.md")
def authors_on_file(site: SiteIndex) -> Iterator[Finding]:
    for story in [*site.stories, *site.drafts]:  # a draft's too: it is about the story itself
        for i, slug in enumerate(story.authors):
            # a file that is there but does not load has findings of its own: one mistake, one finding
            if slug not in site.authors and not (site.root / "content" / "authors" / f"{slug}.md").is_file():
                hint = did_you_mean(close_match(slug, site.authors))
                yield story.source.finding(("authors", i), "LP012", f"author '{slug}' has no file{hint}: expected "
                                           f"content/authors/{slug}.md with at least a name, e.g. name: \"Ana Lima\"")
