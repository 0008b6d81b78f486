"""LP040 at archive scale: time candidate finding (MinHash LSH) and exact scoring on N synthetic stories.

    python benchmarks/bench_repeats.py 1000 5000 20000 50000 --runs 3

Prints one row per N with the median seconds of each phase; timings never go into the test suite.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import statistics
import time

from generator.analysis.minhash import CandidateIndex, sketch
from generator.analysis.similarity import jaccard, shingles

START = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
WINDOW = dt.timedelta(days=7)
THRESHOLD = 0.6
PER_DAY = 200        # a busy wire: the window holds about 1,400 stories
COPY_RATE = 0.01     # share of stories that are lightly edited copies of a recent one


def corpus(count: int, seed: int = 7) -> tuple[list[dt.datetime], list[str], int]:
    """Stories of 250-500 words drawn from a Zipf-like vocabulary; about 1% are edited copies of recent ones."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(20_000)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    published, texts, copies = [], [], 0
    for i in range(count):
        published.append(START + dt.timedelta(days=i / PER_DAY))
        if i > 10 and rng.random() < COPY_RATE:
            words = texts[i - rng.randint(1, min(i, PER_DAY * 6))].split()
            for _ in range(len(words) // 40):  # reword about 2.5% of the words, scattered
                words[rng.randrange(len(words))] = rng.choice(vocabulary)
            copies += 1
        else:
            words = rng.choices(vocabulary, weights, k=rng.randint(250, 500))
        texts.append(" ".join(words) + " [cites: m1]")
    return published, texts, copies


def run(published: list[dt.datetime], texts: list[str]) -> dict[str, float]:
    """One pass of what the LP040 rule does, timed by phase."""
    began = time.perf_counter()
    sets = [shingles(text) for text in texts]
    shingled = time.perf_counter()
    index = CandidateIndex([sketch(values) for values in sets], [values.size == 0 for values in sets], THRESHOLD)
    indexed = time.perf_counter()
    candidates = found = 0
    for later in range(len(texts)):
        for earlier in index.near(later):
            if earlier < later and published[later] - published[earlier] <= WINDOW:
                candidates += 1
                found += jaccard(sets[later], sets[earlier]) >= THRESHOLD
    scored = time.perf_counter()
    return {"shingle": shingled - began, "index": indexed - shingled, "query+score": scored - indexed,
            "total": scored - began, "candidates": candidates, "found": found}


def window_pairs(published: list[dt.datetime]) -> int:
    """How many exact comparisons a windowed brute force would make."""
    pairs, first = 0, 0
    for later, moment in enumerate(published):
        while moment - published[first] > WINDOW:
            first += 1
        pairs += later - first
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[1000, 5000, 20000, 50000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print("| stories | copies | found | candidates | pairs in window | all pairs | shingle s | index s "
          "| query+score s | total s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in args.sizes:
        published, texts, copies = corpus(size)
        runs = [run(published, texts) for _ in range(args.runs)]
        median = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        print(f"| {size:,} | {copies:,} | {median['found']:,.0f} | {median['candidates']:,.0f} "
              f"| {window_pairs(published):,} | {size * (size - 1) // 2:,} | {median['shingle']:.2f} "
              f"| {median['index']:.2f} | {median['query+score']:.2f} | {median['total']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
