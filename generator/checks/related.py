"""LP05x: `related` names stories that exist."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import StoryBrief
from . import SiteIndex, rule


@rule("LP050", "story", "a related entry names no existing story", passes="its related stories exist",
      local=False)
def related_exist(story: StoryBrief, site: SiteIndex) -> Iterator[Finding]:
    for i, key in enumerate(story.related or ()):
        if key not in site.by_key:
            yield story.source.finding(("related", i), "LP050", f"related story '{key}' does not exist "
                                       "(expected YYYY-MM-DD/slug of a story in content/stories)")
