"""LP040: a story does not repeat one published shortly before it."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from . import SiteIndex, rule


@rule("LP040", "site", "the story repeats a recent story", passes="the story does not repeat a recent story")
def repeated_stories(site: SiteIndex) -> Iterator[Finding]:
    """The pairs come from the analysis of the whole site (analysis.repeats), given as site.repeats."""
    by_path = {story.path: story for story in site.stories}
    threshold = site.config.duplicate_threshold
    for found in site.repeats:
        yield by_path[found.later].source.finding(
            ("title",), "LP040", f"repeats {found.earlier} (similarity {found.score:.2f}, threshold "
                                 f"{threshold:g}): expected a story that tells what is new, or, for a "
                                 "follow-up that must restate it, waive: {LP040: \"<why>\"}")
