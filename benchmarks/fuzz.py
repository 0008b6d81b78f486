"""Fuzz ledgerpress for a while: the inputs of tests/test_fuzz.py (front matter, bodies, manifests, site.toml,
pages, templates, images with damaged EXIF or cut short, tables, dates and the build's time, the desk's stdio
frames; tests/fuzzing.py), round after round with fresh seeds until the time is spent.

    python benchmarks/fuzz.py --seconds 600                 # ten minutes over every kind of input
    python benchmarks/fuzz.py --seconds 120 --kinds body,manifest

Each example is a small site checked and built (or the desk's frames read) in a forked child with bounded
memory and CPU time (see tests/fuzzing.py); a traceback, a crash, a timeout, an example slower than its
bound, or an image check passes and the build refuses fails it, and
hypothesis then shrinks it to the smallest input that still does. Prints a Markdown table (examples run,
slowest, failures per kind) and each failure's smallest input; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from tests.fuzzing import INPUTS, SECONDS, run_example  # noqa: E402

ROUND = 25  # examples per kind per round: short rounds keep the kinds interleaved and the deadline close


class Tally:
    def __init__(self) -> None:
        self.examples, self.slowest, self.failures = 0, 0.0, []
        self.shrinking = False  # a failure was found: hypothesis may shrink it past the deadline


def fuzz_round(kind: str, tally: Tally, deadline: float) -> None:
    """One hypothesis run of ROUND examples of one kind (fewer if the deadline comes first)."""
    @settings(max_examples=ROUND, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(INPUTS[kind])
    def one(example: tuple) -> None:
        if time.monotonic() > deadline and not tally.shrinking:
            return
        outcome = run_example(kind, example)
        tally.examples += 1
        tally.slowest = max(tally.slowest, outcome.cpu)
        if outcome.kind != "ok" or outcome.cpu >= SECONDS:
            tally.shrinking = True
            raise AssertionError(repr(outcome))

    tally.shrinking = False
    try:
        one()
    except AssertionError as failure:
        tally.failures.append(str(failure))
    except Exception as failure:  # hypothesis itself (a flaky example, a strategy error)
        tally.failures.append(f"{type(failure).__name__}: {failure}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=300, help="time budget for the whole run")
    parser.add_argument("--kinds", default=",".join(INPUTS), help=f"comma-separated, of: {', '.join(INPUTS)}")
    options = parser.parse_args()
    kinds = [kind.strip() for kind in options.kinds.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in INPUTS]
    if unknown:
        parser.error(f"unknown kinds: {', '.join(unknown)}")
    tallies = {kind: Tally() for kind in kinds}
    started = time.monotonic()
    deadline = started + options.seconds
    while time.monotonic() < deadline:
        for kind in kinds:
            if time.monotonic() < deadline:
                fuzz_round(kind, tallies[kind], deadline)
    print("| kind | examples | slowest (s of CPU) | failures |\n|---|---|---|---|")
    for kind, tally in tallies.items():
        print(f"| {kind} | {tally.examples:,} | {tally.slowest:.2f} | {len(tally.failures)} |")
    print(f"\n{sum(t.examples for t in tallies.values()):,} examples in {time.monotonic() - started:.0f} s "
          f"(each within {SECONDS} s of CPU and 1 GiB of added memory)")
    failed = [(kind, failure) for kind, tally in tallies.items() for failure in tally.failures]
    for kind, failure in failed:
        print(f"\n## {kind}\n\n{failure}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
