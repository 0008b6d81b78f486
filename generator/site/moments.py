"""When a story last changed, as the sitemaps, the feeds and the corrections page state it."""

from __future__ import annotations

import datetime as dt
import functools

from ..render.dates import iso_z
from ..render.teaser import Teaser

EPOCH = "1970-01-01T00:00:00Z"  # when a list with no story in it last changed


@functools.lru_cache(maxsize=1 << 16)
def moment(value: str) -> dt.datetime:
    """An ISO date or date-time from a view as an aware datetime (a bare date is its midnight, UTC)."""
    if len(value) == 10:
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.timezone.utc)
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def modified(story: Teaser) -> str:
    """When a story last changed, as a UTC date-time: its `updated`, never before it was published."""
    return _modified(story.updated, story.published)


@functools.lru_cache(maxsize=1 << 16)
def _modified(updated: str, published: str) -> str:
    latest = max(moment(updated), moment(published))
    return iso_z(latest)
