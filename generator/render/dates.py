"""Dates as readers see them: in the site's time zone and its date_format (day_format for a day alone). What
programs read (feeds, sitemaps, JSON, structured data, datetime attributes) stays ISO 8601 in UTC."""

from __future__ import annotations

import datetime as dt
import functools
import zoneinfo

from markupsafe import Markup, escape


@functools.lru_cache(maxsize=1 << 14)  # pages repeat the same times (a story's, a manifest's) many times
def shown_time(value: str, zone: str = "UTC", pattern: str = "%Y-%m-%d %H:%M %Z") -> str:
    """An ISO 8601 date and time, or a bare date (that day), for readers: `pattern` in the time zone `zone`."""
    if len(value) == 10:
        return dt.date.fromisoformat(value).strftime(pattern)
    moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return moment.astimezone(zoneinfo.ZoneInfo(zone)).strftime(pattern)


@functools.lru_cache(maxsize=1 << 16)  # lists and feeds compare the same stories' dates many times
def moment(value: str) -> dt.datetime:
    """An ISO 8601 date or date and time as an aware datetime: a bare date is its first moment, in UTC, so that
    days and times compare."""
    if len(value) == 10:
        return dt.datetime.fromisoformat(value).replace(tzinfo=dt.timezone.utc)
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))


def iso_z(moment: dt.datetime) -> str:
    """UTC, second precision, with a Z: 2026-10-20T12:51:00Z."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def local_day(moment: dt.datetime, zone: str) -> str:
    """The day (YYYY-MM-DD) a moment falls on in the site's time zone."""
    return moment.astimezone(zoneinfo.ZoneInfo(zone)).date().isoformat()


def edition_time(edition: str) -> str:
    """An edition's start as a datetime attribute: 2026-11-27T10 -> 2026-11-27T10:00Z; a day stays a day."""
    return f"{edition}:00Z" if len(edition) == 13 else edition


def unbroken(label: str) -> Markup:
    """A date for a heading: each of its words kept whole (a line may end between "Wednesday" and "25", never
    inside "2026-11-25" or "14:00")."""
    return Markup(" ").join(Markup('<span class="nobr">%s</span>') % escape(word) for word in str(label).split())


class ReaderDates:
    """The `human_time` and `human_day` filters of one site: a date and time, or a day, for readers."""

    def __init__(self, zone: str, time_pattern: str, day_pattern: str) -> None:
        self.zone, self.time_pattern, self.day_pattern = zone, time_pattern, day_pattern

    def time(self, value: str) -> str:
        """A date and time; a bare date (a correction dated by its day) is shown as a day."""
        return shown_time(value, self.zone, self.day_pattern if len(value) == 10 else self.time_pattern)

    def day(self, value: str) -> str:
        """The day of a date or of a date and time (in the site's time zone)."""
        return shown_time(value, self.zone, self.day_pattern)
