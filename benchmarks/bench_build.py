"""Time `ledgerpress build` as a user runs it: cold, no-op and one-edit rebuilds, whole process, median of runs.

    python benchmarks/bench_build.py 1000 4000 20000 --runs 5 [--jobs 2] [--work /tmp/lp-bench]
    python benchmarks/bench_build.py 4000 --check            # `ledgerpress check`: first, next, after an edit
    python benchmarks/bench_build.py 4000 --profile          # where the time goes (cProfile, one process)

Each N gets a deterministic corpus (benchmarks/corpus.py, ~1,200-word stories). A cold build starts with no
public/ and no .ledgerpress-cache/; a no-op build changes nothing; a one-edit build first rewrites one
sentence of one story (the first after a cold build also links every unchanged file into the output's
second tree), and the next one another story's. Every run goes through /usr/bin/time -v for the wall time
and the peak RSS of the largest single process, while a thread samples the Pss summed over the whole
process tree (workers and Pagefind included, pss.py). Without --search the builds run --no-search (the
default build, search included, is timed against Hugo + Pagefind by bench_others.py). With --check, the
same for `ledgerpress check`: the first check (no cache), the next (nothing changed), one after an edit.
Timings are printed, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import write_corpus  # noqa: E402
from pss import PeakPss  # noqa: E402

TIME = "/usr/bin/time"
LOOP = "x = 0\nfor i in range(5_000_000): x += i * i % 7"  # how fast this machine is just now: it drifts
REPO = Path(__file__).resolve().parent.parent


class Run(NamedTuple):
    """One timed run: wall seconds, peak RSS of its largest process in MB, the CPU seconds it and its
    children used, in user space and in the kernel (file creation shows there), and the peak Pss of its
    whole process tree in MB."""

    wall: float
    peak: int
    user: float
    system: float
    tree: float = 0.0


def timed(command: list[str], cwd: Path | None = None) -> Run:
    """One run of command (in folder cwd) under /usr/bin/time -v."""
    with PeakPss() as pss:
        done = subprocess.run([TIME, "-v", *command], capture_output=True, text=True, cwd=cwd)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    hours, minutes, seconds = (float(part) if part else 0.0 for part in wall.groups())
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)[1])
    user, system = (float(re.search(rf"{name} time \(seconds\): ([\d.]+)", done.stderr)[1])
                    for name in ("User", "System"))
    return Run(hours * 3600 + minutes * 60 + seconds, peak // 1024, user, system, pss.peak)


def corpus(work: Path, count: int) -> Path:
    site = work / f"site-{count}"
    if not (site / "content" / "site.toml").exists():
        write_corpus(site, count)
    return site


def fresh(site: Path) -> None:
    """Start the next build cold: no public/, no second tree and record beside it, no cache."""
    for folder in ("public", ".public.ledgerpress", ".ledgerpress-cache"):
        shutil.rmtree(site / folder, ignore_errors=True)


def calibration() -> float:
    """Seconds a fixed pure-Python loop takes in a new process (0.6 s to 1.1 s here, from one minute to the next)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", LOOP], check=True)
    return time.perf_counter() - start


def edit_one(site: Path, run: int) -> None:
    """Reword one sentence of one story (no new figures), never to the same words twice."""
    story = sorted((site / "content" / "stories").glob("*/*.md"))[run * 7 % 50]
    text = story.read_text(encoding="utf-8")
    stamp = f"(edit {_letters(time.time_ns())})"  # letters: a number here would be an unsupported figure
    edited = re.sub(r"\(edit [a-z0-9]+\)", stamp, text, count=1) if "(edit " in text else \
        text.replace("The record says that", f"The record {stamp} says that", 1)
    assert edited != text
    story.write_text(edited, encoding="utf-8")


def _letters(number: int) -> str:
    word = ""
    while number:
        number, digit = divmod(number, 26)
        word += chr(ord("a") + digit)
    return word


# Each step of a round after a cold start: its name, and the story edited before it (an offset into the
# oldest fifty), if any. The next edit is another story's: an editor's next save, the second tree in place.
BUILD_STEPS = (("cold build", None), ("no-op rebuild", None), ("one-story rebuild", 0), ("the next one", 25))
CHECK_STEPS = (("first check", None), ("the next", None), ("after one edit", 0))


def measure(site: Path, runs: int, command: list[str], steps: tuple) -> dict[str, tuple[float, int, float]]:
    """Each step's median wall time, and the largest peak RSS and tree Pss of its runs, by name."""
    rows: dict[str, list[Run]] = {name: [] for name, _ in steps}
    for run in range(runs):
        fresh(site)
        for name, edit in steps:
            if edit is not None:
                edit_one(site, run + edit)
            rows[name].append(timed(command))
    return {name: (statistics.median(run.wall for run in found), max(run.peak for run in found),
                   max(run.tree for run in found)) for name, found in rows.items()}


def profile(site: Path) -> None:
    """Where a cold build's time goes, in one process (the workers' work included, as jobs=1 does it all)."""
    from generator.engine import Memory, Options, build

    fresh(site)
    profiler = cProfile.Profile()
    profiler.runcall(build, site, Memory(), Options(jobs=1, search=False))
    pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", type=int, nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench"))
    parser.add_argument("--search", action="store_true", help="include the Pagefind index")
    parser.add_argument("--check", action="store_true", help="time `ledgerpress check` instead of build")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    # as after any install: the generator's bytecode is cached (this machine sets PYTHONDONTWRITEBYTECODE)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "generator")], check=True)
    if args.profile:
        for size in args.sizes:
            profile(corpus(args.work, size))
        return
    command = [sys.executable, "-m", "generator", "check" if args.check else "build"]
    command += [] if args.search or args.check else ["--no-search"]
    command += ["--jobs", str(args.jobs)] if args.jobs and not args.check else []
    steps = CHECK_STEPS if args.check else BUILD_STEPS
    print(f"| stories | {' | '.join(name for name, _ in steps)} | peak memory, largest process | peak Pss, tree "
          "| calibration |")
    print("|---:" * (len(steps) + 4) + "|")
    for size in args.sizes:
        site = corpus(args.work, size)
        before = calibration()
        found = measure(site, args.runs, [*command, "--root", str(site)], steps)
        peak = max(memory for _, memory, _ in found.values())
        tree = max(memory for _, _, memory in found.values())
        times = " | ".join(f"{found[name][0]:.2f} s" for name, _ in steps)
        print(f"| {size:,} | {times} | {peak} MB | {tree:,.0f} MB | {before:.2f} → {calibration():.2f} s |", flush=True)


if __name__ == "__main__":
    main()
