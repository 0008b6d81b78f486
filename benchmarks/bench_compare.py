"""Compare this working tree with another revision on the same corpus, runs interleaved.

    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 3          # cold builds
    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 7 --edit   # one-story rebuilds
    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 3 --search # the default build, index included
    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 3 --jobs 1 # the work alone, on one core
    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 3 --check  # `ledgerpress check`, no cache
    python benchmarks/bench_compare.py 12008a0 --stories 4000 --runs 7 --check --edit  # check after one edit

This machine's speed drifts by more than half within minutes (a fixed Python loop takes 0.6 s or 1.1 s
depending on when it runs), so figures taken minutes apart are hard to compare. Here each run of the
revision is followed at once by a run of the working tree, each on its own copy of the corpus, and the
ratio of the two medians is printed with them. The revision is checked out with `git worktree` into the
work folder and run from there (`python -m generator` in a folder takes that folder's package first).
Cold builds write to the corpus' own public/ (on disk, as a user's would); every other round the two go in
the other order (a drift steady over two rounds weighs on both alike). Printed: the medians of wall time and
of user and system CPU (the kernel's share is where file creation shows), never asserted.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import REPO, Run, corpus, edit_one, fresh, timed  # noqa: E402


def checkout(revision: str, work: Path) -> Path:
    folder = work / f"rev-{revision}"
    if not folder.exists():
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), revision], check=True,
                       capture_output=True)
    return folder


def copy_of(site: Path, name: str) -> Path:
    copy = site.with_name(f"{site.name}-{name}")
    if not copy.exists():
        shutil.copytree(site / "content", copy / "content")
    return copy


def run(code: Path, site: Path, search: bool = False, jobs: int | None = None, check: bool = False) -> Run:
    """One build (or check) of site by the generator in folder `code` (its own package comes first from there)."""
    if check:  # (its memo of the last check is in the cache folder, which `fresh` removes)
        return timed([sys.executable, "-m", "generator", "check", "--root", str(site)], cwd=code)
    command = [sys.executable, "-m", "generator", "build", "--root", str(site)]
    if jobs:
        command += ["--jobs", str(jobs)]
    return timed(command if search else [*command, "--no-search"], cwd=code)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("--stories", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--edit", action="store_true", help="time one-story rebuilds instead of cold builds")
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench"))
    parser.add_argument("--search", action="store_true", help="the default build, with the search index")
    parser.add_argument("--check", action="store_true", help="time `ledgerpress check` instead of builds")
    parser.add_argument("--jobs", type=int, help="worker processes of each build (default: all cores); with 1, "
                        "the ratio is of the work alone, without what running it on every core adds or saves")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    base = corpus(args.work, args.stories)
    codes = {"revision": checkout(args.revision, args.work), "working tree": REPO}
    sites = {name: copy_of(base, name.replace(" ", "-")) for name in codes}
    for code in codes.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "generator")], check=True)
    runs: dict[str, list[Run]] = {name: [] for name in codes}
    if args.edit:
        for name in codes:  # up to date, with a memo, before the timed edits
            run(codes[name], sites[name], args.search, args.jobs, args.check)
    for number in range(args.runs):
        for name in (list(codes) if number % 2 == 0 else list(codes)[::-1]):
            site = sites[name]
            if args.edit:
                edit_one(site, number + time.time_ns() % 40)
            else:
                fresh(site)
            runs[name].append(run(codes[name], site, args.search, args.jobs, args.check))
    kind = ("one-story " if args.edit else "cold ") + ("check" if args.check else "rebuild" if args.edit else "build")
    for name, found in runs.items():
        print(f"{name:13} {kind}: median {statistics.median(r.wall for r in found):.2f} s "
              f"({', '.join(f'{r.wall:.2f}' for r in found)}); CPU user {statistics.median(r.user for r in found):.2f} s, "
              f"system {statistics.median(r.system for r in found):.2f} s")
    ratio = statistics.median(r.wall for r in runs["working tree"]) / statistics.median(r.wall for r in runs["revision"])
    print(f"ratio working tree / revision: {ratio:.2f}")


if __name__ == "__main__":
    main()
