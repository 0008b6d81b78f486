"""What a set of claims states, for LP031: each number by its unit and magnitude, each date, and the published
dates a date in prose may also be (a cited manifest's, the story's)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Iterable
from dataclasses import dataclass

from ..content.models import Story
from . import SiteIndex
from .figures import Figure, figures, parsed
from .resolve import Resolution

# A figure in prose is stated by a claim's number of the same magnitude in one of these units: a currency may
# go unsaid, points are often written bare, but a percent or a multiplier is never a plain number.
_ACCEPTS = {"": ("", "$", "€", "£", "pp"), "pp": ("pp", ""), "$": ("$",), "€": ("€",), "£": ("£",),
            "%": ("%",), "x": ("x",)}

Key = tuple


@dataclass(frozen=True)
class Stated:
    keys: frozenset[Key]
    claims: tuple[str, ...]  # the texts, for the hint a finding gives

    def supports(self, figure: Figure) -> bool:
        keys = self.keys
        if figure.date is not None:
            year, month, day = figure.date
            if year is None:
                return ("md", month, day) in keys
            return ("date", year, month, day) in keys or ("date", None, month, day) in keys
        magnitude = figure.magnitude
        return any((unit, magnitude) in keys for unit in _ACCEPTS[figure.unit])

    def unsupported(self, text: str) -> list[Figure]:
        return [figure for figure in figures(text) if not self.supports(figure)]

    def nearest(self, figure: Figure) -> str | None:
        """What a claim writes where the figure differs only in unit, scale or day: '$3.6 million' for '$3.6
        billion', '3.6 points' for '3.6%' (the closest in kind when several differ)."""
        candidates = []
        for text in self.claims:
            for stated in parsed(text):
                if figure.date is not None and stated.date is not None and stated.date[1] == figure.date[1]:
                    candidates.append((abs(stated.date[2] - figure.date[2]), stated.text))
                elif figure.date is None and stated.date is None and stated.core == figure.core:
                    candidates.append(((stated.unit != figure.unit) + (stated.scaled != figure.scaled), stated.text))
        return min(candidates)[1] if candidates else None


def stated_by(story: Story, found: Resolution, ids: Iterable[str], site: SiteIndex) -> Stated:
    """What the claims the ledger uses from these manifests state, with their published dates and the story's."""
    ids = tuple(dict.fromkeys(ids))
    return site.derive(("stated", story.path, ids), lambda: _stated(story, found, ids, site))


def _stated(story: Story, found: Resolution, ids: tuple[str, ...], site: SiteIndex) -> Stated:
    keys: set[Key] = set(_date_keys(story.meta.published))
    claims: list[str] = []
    for manifest_id in ids:
        keys.update(_claim_keys(tuple(claim.text for claim in found.used.get(manifest_id, ()))))
        if (record := site.manifests.get(manifest_id)) is not None:
            keys.update(_date_keys(record.manifest.published))
        claims.extend(claim.text for claim in found.used.get(manifest_id, ()))
    return Stated(frozenset(keys), tuple(claims))


@functools.lru_cache(maxsize=1 << 12)
def _claim_keys(texts: tuple[str, ...]) -> frozenset[Key]:
    """Claims are cited by many stories: what each set states is worked out once."""
    keys: set[Key] = set()
    for text in texts:
        for number in parsed(text):
            if number.date is not None:
                year, month, day = number.date
                keys.update({("md", month, day), ("date", year, month, day)})
            else:
                keys.add((number.unit, number.magnitude))
    return frozenset(keys)


@functools.lru_cache(maxsize=1 << 12)
def _date_keys(moment: dt.datetime) -> frozenset[Key]:
    """A published time as the dates a reader may give it: in its own zone, and in UTC."""
    days = {moment.date(), moment.astimezone(dt.timezone.utc).date()}
    return frozenset(key for day in days for key in (("md", day.month, day.day), ("date", day.year, day.month, day.day)))
