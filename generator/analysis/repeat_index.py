"""LP040's index: the pairs of stories published close together whose bodies are at least the threshold alike."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from .minhash import CandidateIndex
from .instants import EPOCH, instant
from .similarity import Features, features, jaccard, shingles


class Dated(NamedTuple):
    """A body to compare, with what names it and when it was published; `text` may be a function that reads
    it (only the few bodies with candidates are read), and `mark` a digest of it, under which its exact
    similarity to another marked body is remembered. (A named tuple: every build makes one per story.)"""

    key: str
    published: dt.datetime
    text: str | Callable[[], str]
    mark: str = ""

    def read(self) -> str:
        return self.text() if callable(self.text) else self.text


@dataclass(frozen=True)
class Repeat:
    later: str
    earlier: str
    score: float


class RepeatIndex:
    """The candidate pairs of a set of dated bodies (by publication, then key) at one threshold: built once,
    kept by a build for the next, which updates it in place when only texts changed (`update`)."""

    def __init__(self, items: Sequence[Dated], threshold: float, known: Mapping[str, Features] | None = None) -> None:
        self.threshold = threshold
        times = [instant(item.published) for item in items]  # sorted as integers: aware datetimes compare slowly
        order = sorted(range(len(items)), key=lambda n: (times[n], items[n].key))
        self.items = [items[n] for n in order]
        self.times = [times[n] for n in order]
        self.position = {item.key: i for i, item in enumerate(self.items)}
        found = [known[item.key] if known and item.key in known else features(item.read()) for item in self.items]
        self.candidates = CandidateIndex([f.sketch for f in found], [f.empty for f in found], threshold)

    def snapshot(self) -> dict:
        """The index as plain data (shared with it, not copied), for a later build to restore: update() needs
        each item's key and time, not its text."""
        return {"threshold": self.threshold, "keys": [item.key for item in self.items], "times": self.times,
                "candidates": self.candidates.snapshot()}

    @classmethod
    def restore(cls, data: dict) -> RepeatIndex:
        """The index snapshot() described, taking `data` over; its items carry no text until update() gives
        them theirs."""
        index = cls.__new__(cls)
        index.threshold, index.times = data["threshold"], data["times"]
        index.items = [Dated(key, EPOCH, "") for key in data["keys"]]
        index.position = {key: i for i, key in enumerate(data["keys"])}
        index.candidates = CandidateIndex.restore(data["candidates"])
        return index

    def update(self, items: Sequence[Dated], known: Mapping[str, Features], changed: Collection[str]) -> bool:
        """Take in these items, the same keys at the same times, of which only `changed` have new texts;
        False, and nothing done, when they are not the same keys at the same times."""
        if len(items) != len(self.items):
            return False
        placed: list[Dated | None] = [None] * len(items)
        for item in items:
            i = self.position.get(item.key)
            if i is None or self.times[i] != instant(item.published) or placed[i] is not None:
                return False
            placed[i] = item
        self.items = placed
        for key in changed:
            if key in self.position:
                found = known[key] if key in known else features(self.items[self.position[key]].read())
                self.candidates.update(self.position[key], found.sketch, found.empty)
        return True


def repeats(items: Sequence[Dated], threshold: float, window: dt.timedelta,
            known: Mapping[str, Features] | None = None,
            scores: dict[tuple[str, str], float] | None = None, index: RepeatIndex | None = None) -> list[Repeat]:
    """Every pair whose bodies are at least `threshold` alike, the earlier published at most `window`
    before the later (ties by key); the score is the exact Jaccard. `known`: features by key, if computed;
    `scores`: exact scores by the pair's marks, read and added to; `index`: these items' RepeatIndex."""
    index = index or RepeatIndex(items, threshold, known)
    order = index.items
    exact = functools.lru_cache(maxsize=256)(lambda position: shingles(order[position].read()))
    scores = {} if scores is None else scores
    result = []
    for later, item in enumerate(order):
        for earlier in index.candidates.near(later):
            if earlier < later and item.published - order[earlier].published <= window:
                pair = (item.mark, order[earlier].mark)
                score = scores.get(pair) if all(pair) else None
                if score is None:
                    score = jaccard(exact(later), exact(earlier))
                    if all(pair):
                        scores[pair] = score
                if score >= threshold:
                    result.append(Repeat(item.key, order[earlier].key, score))
    return result


@dataclass
class Earlier:
    """What an earlier run of LP040 leaves the next: its index (restored), the exact scores by the pair's marks
    (read and added to), and which stories' texts changed since (by key)."""

    index: RepeatIndex | None = None
    scores: dict[tuple[str, str], float] = field(default_factory=dict)
    changed: Collection[str] = ()


def site_repeats(bodies: Sequence[Dated], known: Mapping[str, Features], threshold: float, window: dt.timedelta,
                 earlier: Earlier) -> tuple[list[Repeat], RepeatIndex]:
    """The repeated stories of a site, and its index: the earlier one updated in place when only texts changed,
    else a new one."""
    index = earlier.index
    if index is None or index.threshold != threshold or not index.update(bodies, known, earlier.changed):
        index = RepeatIndex(bodies, threshold, known)
    return repeats(bodies, threshold, window, known, earlier.scores, index), index
