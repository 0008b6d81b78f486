"""The build's time, which decides which stories are scheduled: `--now` when given, else the environment's
SOURCE_DATE_EPOCH (reproducible builds), else the clock. The standard library only: the command asks for it
before it imports the rest of the generator."""

from __future__ import annotations

import datetime as dt
import os


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
        return (moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)
    epoch = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        if not epoch.isdigit():
            raise BadTime(f"SOURCE_DATE_EPOCH '{epoch}' is not a whole number of seconds since 1970: expected e.g. "
                          "1795255800")
        try:
            return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise BadTime(f"SOURCE_DATE_EPOCH '{epoch}' is beyond the dates a build can use") from None
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
