"""The build's time, which decides which stories are scheduled: `--now` when given, else the environment's
SOURCE_DATE_EPOCH (reproducible builds), else the clock. The standard library only: the command asks for it
before it imports the rest of the generator."""

from __future__ import annotations

import datetime as dt
import os

_YEARS = (1000, 9999)  # as for every date a story or manifest may carry (content/layout.utc_date)


class BadTime(ValueError):
    """A build time that cannot be read: the message says which and what is expected."""


def build_time(now: str | None = None, environ: dict[str, str] | None = None) -> dt.datetime:
    """`now` (ISO 8601; without a time zone it is UTC), else SOURCE_DATE_EPOCH, else the clock; in UTC."""
    environ = os.environ if environ is None else environ
    if now is not None:
        try:
            moment = dt.datetime.fromisoformat(now.strip().replace("Z", "+00:00"))
        except ValueError:
            raise BadTime(f"--now '{now}' is not an ISO 8601 date and time: expected e.g. 2026-11-21T10:30:00Z") from None
        return _in_range(moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc), f"--now '{now}'")
    epoch = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        if not (epoch.isascii() and epoch.isdigit()):  # isdigit() alone passes '１２３', which int() reads as 123
            raise BadTime(f"SOURCE_DATE_EPOCH '{epoch}' is not a whole number of seconds since 1970: expected e.g. "
                          "1795255800")
        try:
            moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise BadTime(f"SOURCE_DATE_EPOCH '{epoch}' is beyond the dates a build can use") from None
        return _in_range(moment, f"SOURCE_DATE_EPOCH '{epoch}'")
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def _in_range(moment: dt.datetime, given: str) -> dt.datetime:
    """The moment in UTC, if it falls in the years a story may be published in (at the ends of the calendar a
    moment has no UTC time at all: 9999-12-31T23:59:59-14:00)."""
    try:
        utc = moment.astimezone(dt.timezone.utc)
    except OverflowError:
        utc = None
    if utc is None or not _YEARS[0] <= utc.year <= _YEARS[1]:
        raise BadTime(f"{given} is beyond the dates a build can use: expected a time in the years "
                      f"{_YEARS[0]} to {_YEARS[1]} (in UTC)")
    return utc
