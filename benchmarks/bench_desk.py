"""The agent desk's check_story on a large site: the first check reads the whole site, each later one only
what changed (the warm memo), and a cold check_site from scratch for comparison.

    python benchmarks/bench_desk.py 2000 --edits 5

Prints the seconds of each; timings never go into the test suite.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from generator.desk.recheck import SiteChecks
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import write_corpus  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stories", type=int)
    parser.add_argument("--edits", type=int, default=5, help="checks of an edited story after the first")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_corpus(root, args.stories)
        newest_day = sorted((root / "content" / "stories").iterdir())[-1]
        shown = sorted(newest_day.glob("*.md"))[0].relative_to(root).as_posix()
        text = (root / shown).read_bytes()
        checks = SiteChecks(root)
        for edit in range(args.edits + 1):
            started = time.perf_counter()
            checks.check(False, {shown: text + f"\nAn edit, {edit}.\n".encode()})
            print(f"{'first' if edit == 0 else 'warm'} check_story: {time.perf_counter() - started:.3f} s")
        started = time.perf_counter()
        check_site(Run(root, Options(jobs=1), texts={shown: text}))  # (one process, as the desk checks)
        print(f"check_site from scratch: {time.perf_counter() - started:.3f} s")


if __name__ == "__main__":
    main()
