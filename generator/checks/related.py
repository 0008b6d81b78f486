"""LP05x: `related` names stories that exist."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import StoryBrief
from . import SiteIndex, rule


@rule("LP050", "story", "a related entry names no existing story", passes="its related stories exist",
      local=False)
def related_exist(story: StoryBrief, site: SiteIndex) -> Iterator[Finding]:
    broken = _broken_keys(site)
    for i, key in enumerate(story.related or ()):
        if key not in site.by_key and key not in broken:  # a story that failed to load has its own findings
            yield story.source.finding(("related", i), "LP050", f"related story '{key}' does not exist: expected "
                                       "YYYY-MM-DD/slug of a story in content/stories, e.g. 2026-11-20/council-backs-the-busway")


def _broken_keys(site: SiteIndex) -> frozenset[str]:
    """`YYYY-MM-DD/name` of each story file whose front matter did not load."""
    return site.derive(("broken", ""), lambda: frozenset(
        f"{parts[-2]}/{parts[-1].removesuffix('.md')}" for parts in (item.path.split("/") for item in site.broken)
        if len(parts) >= 2))
