"""LP00x: the file's place agrees with what its front matter says."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from ..content.findings import Finding
from ..content.layout import story_file
from ..content.models import Story
from ..content.slugs import slugify
from . import SiteIndex, rule


@rule("LP005", "story", "file name, folder date, slug and published date disagree")
def file_place(story: Story, site: SiteIndex) -> Iterator[Finding]:
    published = story.published_utc.date().isoformat()
    if not _is_date(story.folder):
        yield Finding(story.path, 1, 1, "LP005", f"folder '{story.folder}' is not a date: expected "
                      f"{story_file(story.published_utc, story.name)} (the UTC date of published)")
    elif story.folder != published:
        yield story.source.finding(("published",), "LP005",
                                   f"published date {published} (UTC) differs from the folder date {story.folder}: "
                                   f"expected the story in content/stories/{published}/, or published on {story.folder}")
    if story.meta.slug is not None and story.meta.slug != story.name:
        yield story.source.finding(("slug",), "LP005", f"slug '{story.meta.slug}' differs from the file name "
                                   f"'{story.name}': expected the file named {story.meta.slug}.md, or slug: {story.name}")
    elif story.meta.slug is None and slugify(story.meta.title) != story.name:
        yield story.source.finding(("title",), "LP005", f"file name '{story.name}' differs from the title's slug "
                                   f"'{slugify(story.meta.title)}': expected the file renamed, or slug: {story.name}")


def _is_date(text: str) -> bool:
    try:
        return dt.date.fromisoformat(text).isoformat() == text
    except ValueError:
        return False
