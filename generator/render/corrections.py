"""A story's corrections as readers see them (dated notes at its top), and when the story last changed."""

from __future__ import annotations

import datetime as dt

from ..content.models import Story
from .dates import iso_z
from .view import View


class CorrectionView(View):
    """A dated note that sets the record straight: `number` orders them (oldest first) and names its anchor,
    `date` is ISO 8601 (a day, or a UTC time), `manifest_id` the source it is about, if any."""

    number: int
    anchor: str
    date: str
    text: str
    manifest_id: str | None


def _moment(value: dt.datetime | dt.date) -> dt.datetime:
    """A date as its first moment in UTC, so that dates and times compare."""
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc)
    return dt.datetime(value.year, value.month, value.day, tzinfo=dt.timezone.utc)


def _iso(value: dt.datetime | dt.date) -> str:
    return iso_z(value) if isinstance(value, dt.datetime) else value.isoformat()


def correction_views(story: Story) -> list[CorrectionView]:
    """The corrections, oldest first (the order they were made in), each numbered."""
    ordered = sorted(story.meta.corrections, key=lambda c: _moment(c.date))
    return [CorrectionView(number=n, anchor=f"correction-{n}", date=_iso(c.date), text=c.text, manifest_id=c.manifest)
            for n, c in enumerate(ordered, start=1)]


def last_changed(story: Story) -> tuple[str, str]:
    """(when the story last changed, as ISO text; its day): the latest of `updated` and its corrections' dates,
    since a correction is a change, and never before it was published (as its feeds and sitemaps say)."""
    meta = story.meta
    latest = max([meta.published, *([meta.updated] if meta.updated else []), *(c.date for c in meta.corrections)],
                 key=_moment)
    day = latest.astimezone(dt.timezone.utc).date() if isinstance(latest, dt.datetime) else latest
    return _iso(latest), day.isoformat()
