"""When a story last changed, as the sitemaps, the feeds and the corrections page state it."""

from __future__ import annotations

import functools

from ..render.dates import iso_z, moment
from ..render.teaser import Teaser

EPOCH = "1970-01-01T00:00:00Z"  # when a list with no story in it last changed


def modified(story: Teaser) -> str:
    """When a story last changed, as a UTC date-time: its `updated`, never before it was published."""
    return _modified(story.updated, story.published)


@functools.lru_cache(maxsize=1 << 16)
def _modified(updated: str, published: str) -> str:
    latest = max(moment(updated), moment(published))
    return iso_z(latest)
