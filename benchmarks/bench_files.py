"""What creating a site's folders and files costs on this disk, just after the last ones were deleted.

    python benchmarks/bench_files.py --stories 4000 [--work /tmp/lp-bench/files] [--rounds 2]

Makes the shape of a 4,000-story output (a folder a day, 40 story folders a day, three files of 12 KB in
each) the way write.Pending does (one os.open, write, close a file; each folder once), then deletes it and
makes it again at once, as a cold build after `rm -rf public` does: twice plain, twice with the top folder
and its top-level folders marked as write.spread() marks them (chattr +T). Each round prints the wall time
and the system CPU of making the tree (getrusage of this process), fresh and right after a delete.

ext4 without a journal (this machine's /) avoids reusing an inode freed less than a minute ago: for each
new file or folder it passes over every such inode of the block group it picked, and it picks the first
group with room in the parent folder's flex group: where the deleted tree was. Spread, the folders of days
go to groups with room and few folders across the disk. Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from generator.write import spread  # noqa: E402

DATA = b"x" * 12_000
PER_DAY = 40


def make(root: Path, stories: int, spreading: bool) -> None:
    root.mkdir(parents=True)
    if spreading:
        spread(root)
    top = root / "stories"
    top.mkdir()
    if spreading:
        spread(top)
    for n in range(stories):
        folder = os.path.join(top, f"day-{n // PER_DAY:05d}", f"story-{n:06d}")
        os.makedirs(folder)
        for suffix in ("html", "json", "md"):
            descriptor = os.open(os.path.join(folder, f"index.{suffix}"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
            os.write(descriptor, DATA)
            os.close(descriptor)


def timed(label: str, func) -> None:
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    func()
    wall, after = time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF)
    print(f"  {label:32} wall {wall:6.2f} s   system CPU {after.ru_stime - before.ru_stime:6.2f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=4000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench/files"))
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    args.work.mkdir(parents=True)
    probe = args.work / "probe"
    probe.mkdir()
    print(f"{args.stories:,} story folders, {3 * args.stories:,} files under {args.work}; "
          f"the top-of-tree mark {'takes' if spread(probe) else 'is refused'} here")
    for round_ in range(args.rounds):
        for spreading in (False, True):
            name = "spread" if spreading else "plain"
            tree = args.work / f"{name}-{round_}"
            print(f"{name}, round {round_ + 1}:")
            timed("made", lambda: make(tree, args.stories, spreading))
            timed("deleted", lambda: shutil.rmtree(tree))
            timed("made again at once", lambda: make(tree, args.stories, spreading))
            shutil.rmtree(tree)


if __name__ == "__main__":
    main()
