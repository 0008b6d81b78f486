"""LP040: a story does not repeat one published shortly before it."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterator

from ..analysis.repeats import Dated, RepeatIndex, repeats
from ..content.findings import Finding
from ..content.stories import story_body
from . import SiteIndex, rule


@rule("LP040", "site", "the story repeats a recent story", passes="the story does not repeat a recent story")
def repeated_stories(site: SiteIndex) -> Iterator[Finding]:
    config = site.config
    by_path = {story.path: story for story in site.stories}
    bodies = [Dated(story.path, story.meta.published, story.body or functools.partial(story_body, site.root, story.path),
                    site.digests.get(story.path, "")) for story in site.stories]
    window = dt.timedelta(days=config.duplicate_window_days)
    kept, site.repeats = site.repeats, None  # updated in place below: kept only once that succeeded
    if kept is None or kept.threshold != config.duplicate_threshold or not kept.update(bodies, site.features, site.changed):
        kept = RepeatIndex(bodies, config.duplicate_threshold, site.features or None)
    site.repeats = kept
    for found in repeats(bodies, config.duplicate_threshold, window, site.features or None, site.scores, kept):
        yield by_path[found.later].source.finding(
            ("title",), "LP040", f"repeats {found.earlier} (similarity {found.score:.2f}, threshold "
                                 f"{config.duplicate_threshold:g}): expected a story that tells what is new, or, for a "
                                 "follow-up that must restate it, waive: {LP040: \"<why>\"}")
