"""The parent's serial part of a cold build: when each of its steps runs, and how many cores are busy meanwhile.

    python benchmarks/bench_serial.py 4000          # a cold `ledgerpress build` of the corpus of 4,000 stories

The build runs as a user runs it (a new process, all cores, output on disk), with the parent's steps wrapped
to note their wall time (the workers' own work is not wrapped: it is the parallel part). Meanwhile this
script reads /proc/stat every 0.1 s, so the table of steps can be read against how many of the machine's
cores were busy: a step during which only about one core is busy is time the other cores wait. Printed:
each step (start, end, seconds; `cli._build` spans the whole build after the scan), each process pool
(what it ran, on how many items, and the CPU its workers used, user and system, from getrusage of the
reaped children; a call too small for a pool runs in the parent, and its workers' CPU reads 0), the cores busy per half second, and the core-seconds left idle. Timings are printed,
never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import REPO, corpus  # noqa: E402
from bench_stages import timed  # noqa: E402

STEPS = {  # module: the parent's steps in it worth timing
    "cli": ["scan", "_build"],
    "cache": ["record"],
    "prepare": ["load_content", "run_checks"],
    "memo": ["save_memo"],
    "build": ["sitemap_plans"],
    "build._Render": ["related", "stories", "site", "site_key"],
    "render.Renderer": ["load"],
    "write.Pending": ["commit"],
}


def drive(site: Path, report: Path) -> None:
    """Run `ledgerpress build` in this process with the parent's steps timed; write them to `report`."""
    started, parent = time.perf_counter(), os.getpid()
    import importlib

    from generator import cli

    steps: list[tuple[float, float, str]] = []

    def note(label: str, begun: float, ended: float) -> None:
        if os.getpid() == parent:  # forked workers inherit the wrappers: only the parent's calls count
            steps.append((begun - started, ended - started, label))

    for path, names in STEPS.items():
        module_name, _, class_name = path.partition(".")
        owner = importlib.import_module(f"generator.{module_name}")
        owner = getattr(owner, class_name) if class_name else owner
        for name in names:
            timed(owner, name, f"{path}.{name}", note)
    steps.append((0.0, time.perf_counter() - started, "import the generator (here, to wrap its steps)"))
    pools = time_pools(started)
    leave = os._exit

    def finish(code: int = 0) -> None:  # the CLI ends with os._exit once all is written
        if os.getpid() == parent:
            report.write_text(json.dumps({"steps": sorted(steps), "pools": pools}))
        leave(code)

    os._exit = finish
    sys.argv = ["ledgerpress", "build", "--root", str(site), "--no-search"]
    cli.main()


def time_pools(started: float) -> list[tuple[str, int, float, float, float, float]]:
    """Wrap Workers.map and Workers.steps to note, per call, (function, items, start, end, workers' user and
    system CPU): the CPU of the children reaped while it ran, which are its pool's workers (the pool ends
    with the call)."""
    from generator import workers

    pools: list[tuple[str, int, float, float, float, float]] = []

    def wrapped(inner):
        def run(self, func, items, count, min_per_job=None):
            before, begun = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            try:
                yield from inner(self, func, items, count, min_per_job)
            finally:
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                pools.append((func.__name__, count, begun - started, time.perf_counter() - started,
                              after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
        return run

    workers.Workers.map = wrapped(workers.Workers.map)
    workers.Workers.steps = wrapped(workers.Workers.steps)
    return pools


def busy_cores() -> tuple[int, int]:
    with open("/proc/stat") as stat:
        values = [int(value) for value in stat.readline().split()[1:]]
    return sum(values), values[3] + values[4]  # all jiffies, idle + iowait


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("size", type=int, nargs="?", default=4000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench"))
    parser.add_argument("--drive", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--report", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.drive:
        drive(args.drive, args.report)
        return
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "generator")], check=True)
    site = corpus(args.work, args.size)
    shutil.rmtree(site / "public", ignore_errors=True)
    shutil.rmtree(site / ".ledgerpress-cache", ignore_errors=True)
    os.sync()
    time.sleep(1)
    cores = len(os.sched_getaffinity(0))
    samples: list[tuple[float, float]] = []
    stop = threading.Event()

    def sample(begun: float) -> None:
        last = busy_cores()
        while not stop.wait(0.1):
            now = busy_cores()
            total, idle = now[0] - last[0], now[1] - last[1]
            samples.append((time.perf_counter() - begun, cores * (1 - idle / total) if total else 0.0))
            last = now

    report = args.work / "serial-steps.json"
    begun = time.perf_counter()
    sampler = threading.Thread(target=sample, args=(begun,))
    sampler.start()
    try:
        done = subprocess.run([sys.executable, __file__, "--drive", str(site), "--report", str(report)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - begun
    finally:
        stop.set()
        sampler.join()
    if done.returncode:
        sys.exit(f"the build failed (exit {done.returncode}):\n{done.stderr}")
    print(done.stderr.strip().splitlines()[-1])
    print(f"cold build of {args.size:,} stories: {wall:.2f} s (whole process), {cores} cores")
    found = json.loads(report.read_text())
    print("| parent step | start | end | seconds |\n|---|---:|---:|---:|")
    for start, end, label in found["steps"]:
        print(f"| {label} | {start:.2f} | {end:.2f} | {end - start:.2f} |")
    print("\n| pool | items | start | end | workers' CPU: user | system | ms an item |\n|---|---:|---:|---:|---:|---:|---:|")
    for name, count, start, end, user, system in found["pools"]:
        each = f"{1000 * (user + system) / count:.2f}" if count else ""
        print(f"| {name} | {count:,} | {start:.2f} | {end:.2f} | {user:.2f} s | {system:.2f} s | {each} |")
    buckets: dict[int, list[float]] = {}
    for at, busy in samples:
        buckets.setdefault(int(at * 2), []).append(busy)
    print("cores busy per half second: " + " ".join(f"{sum(v) / len(v):.1f}" for _, v in sorted(buckets.items())))
    idle = sum(cores - busy for _, busy in samples) * 0.1
    print(f"core-seconds idle: {idle:.1f} of {cores * wall:.1f}")


if __name__ == "__main__":
    main()
