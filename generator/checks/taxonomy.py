"""LP01x: newsrooms, beats and trust levels exist, and every story has a URL of its own."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import Story
from . import SiteIndex, rule


@rule("LP010", "story", "newsroom, beat or trust level not declared in site.toml")
def declared(story: Story, site: SiteIndex) -> Iterator[Finding]:
    for field, known in (("newsroom", site.config.newsrooms), ("beat", site.config.beats),
                         ("trust", site.config.trust)):
        value = getattr(story.meta, field)
        if value not in known:
            choices = ", ".join(sorted(known))
            yield story.source.finding((field,), "LP010", f"{field} '{value}' is not declared in site.toml: expected "
                                       f"one of {choices}, or {value} declared under [{field}s] there")


@rule("LP011", "site", "two stories have the same URL")
def unique_urls(site: SiteIndex) -> Iterator[Finding]:
    first: dict[str, Story] = {}
    for story in sorted(site.stories, key=lambda s: s.path):
        other = first.setdefault(story.url_path, story)
        if other is not story:
            yield story.source.finding(("title",), "LP011", f"same URL {story.url_path} as {other.path}: expected "
                                       "each story under its own date and slug (set slug: to tell them apart)")
