"""MinHash signatures and an LSH index over them, so that a large archive is never compared pair by pair:
two bodies become candidates when their signatures agree on a whole band."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

NUM_PERM = 128


RECALL = 0.999            # chance that a pair exactly at the threshold becomes a candidate (LP040)
NEAR_RUN = 64             # a band links a set to at most this many of the sets sharing it on either side (in order)


# The permutations' multipliers (two rows) and the bands' (one row), each in [1, 2**63): drawn once with
# numpy.random.default_rng (seed 1 for the permutations, 2 for the bands) and kept as drawn, so that a
# signature never depends on the installed numpy's random streams, and making one imports no numpy.random.
_DRAWN = np.fromfile(Path(__file__).with_name("minhash.u64"), dtype="<u8").astype(np.uint64).reshape(3, NUM_PERM)


_PERMUTATIONS = _DRAWN[:2]


_ODD = _PERMUTATIONS[0] | np.uint64(1)


_BIN_BITS = NUM_PERM.bit_length() - 1  # NUM_PERM is a power of two


_BAND_MIX = _DRAWN[2] | np.uint64(1)


def sketch(values: np.ndarray) -> np.ndarray:
    """The MinHash signature of a sorted shingle set by one-permutation hashing with densification: the
    hashes (already uniform) fall into NUM_PERM bins by their top bits, each bin keeps its least (found by
    binary search, the set being sorted), and an empty bin borrows from the next bin that is not empty."""
    if values.size == 0:
        return np.full(NUM_PERM, 0xFFFFFFFF, dtype=np.uint64)
    bins = np.arange(NUM_PERM, dtype=np.uint64)
    at = np.searchsorted(values, bins << np.uint64(64 - _BIN_BITS))
    least = values[np.minimum(at, values.size - 1)]
    full = np.flatnonzero((at < values.size) & ((least >> np.uint64(64 - _BIN_BITS)) == bins))
    donor = full[np.searchsorted(full, np.arange(NUM_PERM)) % full.size]
    distance = ((donor - np.arange(NUM_PERM)) % NUM_PERM).astype(np.uint64)
    return ((least[donor] * _ODD + distance * _PERMUTATIONS[1]) >> np.uint64(32)) & np.uint64(0xFFFFFFFF)


def estimate(a: np.ndarray, b: np.ndarray) -> float:
    """The Jaccard similarity two signatures estimate (their share of equal minimums)."""
    return float(np.count_nonzero(a == b)) / NUM_PERM


def bands(threshold: float, num_perm: int = NUM_PERM, recall: float = RECALL) -> tuple[int, int]:
    """LSH (bands, rows): the most rows per band (fewest false candidates) that still finds a pair
    exactly at the threshold with the given recall."""
    for rows in range(num_perm, 0, -1):
        count = num_perm // rows
        if 1 - (1 - threshold ** rows) ** count >= recall:
            return count, rows
    return num_perm, 1


class CandidateIndex:
    """MinHash LSH over signatures: each signature is cut into bands, and two sets whose signatures agree
    on a whole band become candidates. Sorting the band hashes finds every such pair without comparing
    all pairs; callers score candidates exactly (`jaccard`) or by their signatures (`estimate`). A band that
    many sets share (hundreds of near-identical templated stories) links each to the NEAR_RUN sets before and
    after it, in the order they were given (by publication), not all to all, which would take time and memory
    growing with the square of their number."""

    def __init__(self, sketches: Sequence[np.ndarray], empty: Sequence[bool], threshold: float,
                 recall: float = RECALL) -> None:
        self.count, self.rows = bands(threshold, NUM_PERM, recall)
        size = len(sketches)
        matrix = np.stack(sketches) if size else np.zeros((0, NUM_PERM), dtype=np.uint64)
        self.keys = self._band_keys(matrix, np.asarray(empty, dtype=bool), np.arange(size, dtype=np.uint64))
        self._near = _linked(self.keys)

    def _band_keys(self, matrix: np.ndarray, lonely: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """One hash per band per signature; an empty body gets keys of its own, so it shares no band."""
        rows = self.rows
        keys = np.stack([(matrix[:, band * rows: (band + 1) * rows] * _BAND_MIX[:rows]).sum(axis=1)
                         for band in range(self.count)], axis=1) if len(matrix) else np.zeros((0, self.count), np.uint64)
        keys[lonely] = ~positions[lonely, None]
        return keys

    def update(self, key: int, signature: np.ndarray, empty: bool) -> None:
        """Set `key`'s signature anew (a story edited in place): only its own pairs change, unless it leaves or
        joins a band that more than NEAR_RUN + 1 sets share (whose windows all shift: the index is linked anew)."""
        row = self._band_keys(signature[None, :], np.array([empty]), np.array([key], dtype=np.uint64))[0]
        was = self.keys[key].copy()
        self.keys[key] = row
        sharing = self.keys == row
        joined = sharing.sum(axis=0)  # per band, the sets holding its new key (itself included)
        left = (self.keys == was).sum(axis=0) + (was != row)  # and its old key, before it left
        if max(joined.max(), left.max()) > NEAR_RUN + 1:  # a band linked by windows, which all shift: link anew
            self._near = _linked(self.keys)
            return
        now = set(np.flatnonzero(sharing.any(axis=1)).tolist()) - {key}
        before = set(self._near[key])
        for other in before - now:
            self._near[other].remove(key)
        for other in now - before:
            bisect.insort(self._near[other], key)
        self._near[key] = sorted(now)

    def snapshot(self) -> dict:
        """The index as plain data (shared with it, not copied)."""
        return {"count": self.count, "rows": self.rows, "keys": self.keys, "near": self._near}

    @classmethod
    def restore(cls, data: dict) -> CandidateIndex:
        """The index snapshot() described; it takes `data` over (update() changes it in place)."""
        index = cls.__new__(cls)
        index.count, index.rows, index.keys, index._near = data["count"], data["rows"], data["keys"], data["near"]
        return index

    def near(self, key: int) -> list[int]:
        """Positions of the other sets that share a band with set `key`, in order."""
        return self._near[key]


def _linked(keys: np.ndarray) -> list[list[int]]:
    """Each set's candidates, in order: the sets it shares a band with, at most NEAR_RUN on either side of it
    in each band (all of them, in a band fewer share)."""
    near: list[set[int]] = [set() for _ in range(len(keys))]
    for column in keys.T:
        order = np.argsort(column, kind="stable")  # (equal keys keep the sets' order)
        for members in _runs(order, column[order]):
            for at, member in enumerate(members):
                near[member].update(members[max(0, at - NEAR_RUN): at + NEAR_RUN + 1])
    return [sorted(found - {key}) for key, found in enumerate(near)]


def _runs(order: np.ndarray, ordered: np.ndarray) -> Iterator[list[int]]:
    """The groups of two or more equal band keys (few: most stories share no band with any other)."""
    edges = np.diff(np.concatenate(([0], (ordered[1:] == ordered[:-1]).view(np.int8), [0])))
    for start, end in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        yield order[start: end + 1].tolist()
