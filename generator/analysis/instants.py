"""Publication times as the indexes of the site keep them: whole microseconds since 1970."""

from __future__ import annotations

import datetime as dt

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_MICROSECOND = dt.timedelta(microseconds=1)


def instant(moment: dt.datetime) -> int:
    """A publication time as whole microseconds since 1970: what the kept indexes hold (and compare) instead
    of a datetime, which takes far longer to pickle and unpickle, and to sort."""
    return (moment - EPOCH) // _MICROSECOND
