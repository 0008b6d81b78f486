"""A story's distinctive words: its most frequent candidate words weighted by tf-idf over the whole site,
and sets of words as integer rows, so that one story's overlaps with many are counted at once."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import chain, repeat

import numpy as np

from .similarity import Features

TOP_TERMS = 24


class WordSets:
    """Sets of strings as a matrix of word numbers, one row per set, padded with -1, so that the overlaps of
    one set with many are counted in one go."""

    def __init__(self, items: list[frozenset[str]]) -> None:
        self.ids = {word: n for n, word in enumerate(sorted(set().union(*items)))}
        self.sizes = np.fromiter(map(len, items), dtype=np.int64, count=len(items))
        self.rows = np.full((len(items), int(self.sizes.max(initial=0)) or 1), -1, dtype=np.int64)
        self.rows[np.arange(self.rows.shape[1]) < self.sizes[:, None]] = np.fromiter(  # row by row, as chain runs
            map(self.ids.__getitem__, chain.from_iterable(items)), dtype=np.int64, count=int(self.sizes.sum()))
        self._held = np.zeros(len(self.ids) + 1, dtype=bool)  # the last stays False: it is where -1 points

    def snapshot(self) -> dict:
        """The sets as plain data (shared with them, not copied)."""
        return {"ids": self.ids, "sizes": self.sizes, "rows": self.rows}

    @classmethod
    def restore(cls, data: dict) -> WordSets:
        """The sets snapshot() described; they take `data` over (set() changes it in place)."""
        sets = cls.__new__(cls)
        sets.ids, sets.sizes, sets.rows = data["ids"], data["sizes"], data["rows"]
        sets._held = np.zeros(len(sets.ids) + 1, dtype=bool)
        return sets

    def set(self, i: int, item: frozenset[str]) -> None:
        for word in item:
            self.ids.setdefault(word, len(self.ids))
        if self._held.size < len(self.ids) + 1:
            self._held = np.zeros(len(self.ids) + 1, dtype=bool)
        if len(item) > self.rows.shape[1]:
            self.rows = np.pad(self.rows, ((0, 0), (0, len(item) - self.rows.shape[1])), constant_values=-1)
        self.rows[i] = -1
        self.rows[i, :len(item)] = [self.ids[word] for word in item]
        self.sizes[i] = len(item)

    def overlaps(self, i: int, chosen: np.ndarray) -> np.ndarray:
        """The Jaccard overlap of set i with each chosen set (0 when either is empty)."""
        mine = self.rows[i, :self.sizes[i]]
        self._held[mine] = True
        shared = self._held[self.rows[chosen]].sum(axis=1)
        self._held[mine] = False
        union = self.sizes[chosen] + self.sizes[i] - shared
        return np.divide(shared, union, out=np.zeros(chosen.size), where=union > 0)


def distinctive(found: Sequence[Features], size: int = TOP_TERMS,
                documents: Counter | None = None) -> list[frozenset[str]]:
    """Per story, the `size` candidate words of highest tf-idf over all the stories."""
    documents = documents if documents is not None else Counter(word for mine in found for word in mine.words)
    idf = idf_weights(documents, len(found))
    return all_top_words(found, idf, size)


def idf_weights(documents: Counter, total: int) -> dict[str, float]:
    return {word: math.log(total / df) for word, df in documents.items() if df < total}


def top_words(found: Features, idf: Mapping[str, float], size: int = TOP_TERMS) -> frozenset[str]:
    weighted = [(count * weight, word) for word, count in zip(found.words, found.numbers)
                if (weight := idf.get(word)) is not None]
    weighted.sort(reverse=True)  # what heapq.nlargest gives, quicker for a few dozen words
    return frozenset(word for _, word in weighted[:size])


def all_top_words(found: Sequence[Features], idf: Mapping[str, float], size: int = TOP_TERMS) -> list[frozenset[str]]:
    """top_words of every story in one go: the candidate words of all stories as a matrix of word numbers (numbered
    in sorted order, so that ties in weight fall to the greater word, as in top_words) and their weights, sorted
    row by row; a word without an idf weighs -inf and is left out."""
    if not found:
        return []
    ordered = sorted(idf)
    number = {word: n for n, word in enumerate(ordered)}
    weights = np.array([idf[word] for word in ordered] + [0.0])  # the last: where -1 (no idf) points
    words = [mine.words for mine in found]
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    width = int(lengths.max()) or 1
    held = np.arange(width) < lengths[:, None]  # row by row, as the flat lists run
    ids = np.full((len(found), width), -1, dtype=np.int64)
    total = int(lengths.sum())
    ids[held] = np.fromiter(map(number.get, chain.from_iterable(words), repeat(-1)), dtype=np.int64, count=total)
    counts = np.zeros((len(found), width))
    counts[held] = np.fromiter(chain.from_iterable(mine.numbers for mine in found), dtype=np.float64, count=total)
    weighted = np.where(ids >= 0, counts * weights[ids], -np.inf)  # count * idf, as top_words multiplies them
    order = np.lexsort((-ids, -weighted), axis=1)[:, :size]
    kept = (np.take_along_axis(weighted, order, axis=1) > -np.inf).sum(axis=1)  # those left out sort last
    names = np.array([*ordered, ""], dtype=object)[np.take_along_axis(ids, order, axis=1)]
    return [frozenset(row[:count]) for row, count in zip(names.tolist(), kept.tolist())]
