"""A story's corrections as readers see them (dated notes at its top), and when the story last changed."""

from __future__ import annotations

import datetime as dt

from ..content.models import Story
from .dates import iso_z, moment
from .view import View


class CorrectionView(View):
    """A dated note that sets the record straight: `number` orders them (oldest first) and names its anchor,
    `date` is ISO 8601 (a day, or a UTC time), `manifest_id` the source it is about, if any."""

    number: int
    anchor: str
    date: str
    text: str
    manifest_id: str | None


def _iso(value: dt.datetime | dt.date) -> str:
    """A front-matter date as ISO text: a day stays a day, a time becomes UTC."""
    return iso_z(value) if isinstance(value, dt.datetime) else value.isoformat()


def _ordered(story: Story, due: int | None = None) -> list:
    """The corrections, oldest first (the order they were made in); the first `due` of them (None: all)."""
    return sorted(story.meta.corrections, key=lambda c: moment(_iso(c.date)))[:due]


def correction_views(story: Story, due: int | None = None) -> list[CorrectionView]:
    """The corrections shown (`due`: how many), oldest first, each numbered."""
    return [CorrectionView(number=n, anchor=f"correction-{n}", date=_iso(c.date), text=c.text, manifest_id=c.manifest)
            for n, c in enumerate(_ordered(story, due), start=1)]


def last_changed(story: Story, due: int | None = None) -> tuple[str, str]:
    """(when the story last changed, as ISO text; its day): the latest of `updated` and its corrections' dates
    (those shown), since a correction is a change, and never before it was published (as its feeds and sitemaps
    say)."""
    meta = story.meta
    dates = [meta.published, *([meta.updated] if meta.updated else []), *(c.date for c in _ordered(story, due))]
    latest = max(map(_iso, dates), key=moment)
    return latest, moment(latest).date().isoformat()
