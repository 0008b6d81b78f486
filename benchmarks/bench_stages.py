"""Where a build's time goes, stage by stage (wall time around each stage, in one process).

    python benchmarks/bench_stages.py cold 1000     # per story: reading, parsing, rules, rendering, writing
    python benchmarks/bench_stages.py edit 4000     # a one-story rebuild as `ledgerpress build` runs it

`cold` builds the corpus of N stories (benchmarks/corpus.py) on one process into a scratch folder and
prints milliseconds per story for each stage. `edit` first builds the corpus with `ledgerpress build` (a no-op when it
is up to date; it leaves the memo), rewords one sentence of one story, then does what the CLI does (load the memo,
build, commit, record the state, save the memo), timing each step. Figures go in README.md.
"""

from __future__ import annotations

import argparse
import gc
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_build import corpus, edit_one  # noqa: E402

TIMES: dict[str, float] = defaultdict(float)


def timed(owner: object, name: str, label: str | None = None, note=None) -> None:
    """Wrap owner.name so that its wall time adds up under label (or goes to note(label, start, end))."""
    inner = getattr(owner, name)
    label = label or name

    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            if note is None:
                TIMES[label] += time.perf_counter() - started
            else:
                note(label, started, time.perf_counter())

    setattr(owner, name, wrapper)


def timed_steps(owner: object, name: str) -> None:
    """Wrap the step function owner.name (a generator, run in lockstep with others) so that the wall time of
    its steps adds up under its name."""
    inner = getattr(owner, name)

    def wrapper(*args):
        steps = inner(*args)
        while True:
            started = time.perf_counter()
            try:
                next(steps)
            except StopIteration as done:
                TIMES[name] += time.perf_counter() - started
                return done.value
            TIMES[name] += time.perf_counter() - started
            yield

    setattr(owner, name, wrapper)


def timed_story_templates(renderer: type) -> None:
    """Wrap renderer.render so that each story template's time adds up under its own name."""
    inner = renderer.render

    def render(self, name: str, **context):
        if not name.startswith("story."):
            return inner(self, name, **context)
        started = time.perf_counter()
        try:
            return inner(self, name, **context)
        finally:
            TIMES[f"  {name}"] += time.perf_counter() - started
            TIMES["templates (3 variants)"] += time.perf_counter() - started

    renderer.render = render


def cold(site: Path) -> None:
    from generator import body, build, prepare, related_stories, render
    from generator.memo import new_memo
    from generator.write import Pending

    for owner, names in ((prepare, ("load_story", "parse_body", "local_findings", "features", "section_rows")),
                         (build, ("story_view", "StoredView", "_kept", "unpacked"))):
        for name in names:
            timed(owner, name)
    for owner, name in ((prepare, "prepare_story"), (build, "render_story"), (build, "render_plan")):
        timed_steps(owner, name)
    timed(body.MD, "parse", "markdown-it parse")
    timed(related_stories.RelatedIndex, "related", "related stories")
    timed_story_templates(render.Renderer)
    out = Path("/tmp/lp-bench/stages-out")
    pending = Pending(out, None)
    started = time.perf_counter()
    result = build.build_site(site, search=False, jobs=1, sink=pending, memo=new_memo(site, "stages"))
    total = time.perf_counter() - started
    pending.abort()
    print(f"{result.stories} stories, {total:.2f} s, {1000 * total / result.stories:.2f} ms a story")
    for name, seconds in sorted(TIMES.items(), key=lambda item: -item[1]):
        print(f"  {name:24} {1000 * seconds / result.stories:6.2f} ms a story")


def edit(site: Path) -> None:
    # up to date, or built now (with its memo), so that what follows is a one-edit rebuild
    subprocess.run([sys.executable, "-m", "generator", "build", "--root", str(site), "--no-search"], check=True,
                   capture_output=True)
    started = time.perf_counter()
    from generator import __version__, build, cache, memo, prepare
    from generator.write import Pending
    TIMES["imports"] = time.perf_counter() - started
    for owner, names in ((prepare, ("load_content", "run_checks")), (build, ("build_site",)),
                         (memo, ("load_memo", "save_memo")), (cache, ("record", "load_state", "scan"))):
        for name in names:
            timed(owner, name)
    timed(build._Render, "related", "related stories")
    edit_one(site, int(time.time()) % 50)
    target = (site / "public").resolve()
    key = cache.options_key(__version__, drafts=False, base_url=None, out=target, search=False)
    state = cache.load_state(site)
    inputs = cache.scan(site, state)
    assert not cache.unchanged(target, key, state, inputs)
    loaded = memo.load_memo(site, memo.new_memo(site, key))
    if loaded is None:
        raise SystemExit("no memo for these options: run `ledgerpress build --no-search` in the site first")
    pending = Pending(target, state.outputs)
    result = build.build_site(site, search=False, sink=pending, memo=loaded, stamps=cache.shown_stamps(site, inputs))
    pending.commit(result.digests, result.written)
    cache.record(site, target, key, result.digests, [], {}, inputs)
    memo.save_memo(site, result.memo)
    print(f"one edit: {time.perf_counter() - started:.2f} s after start, {result.rendered} outputs rendered, "
          f"{len(result.written)} written")
    for name, seconds in sorted(TIMES.items(), key=lambda item: -item[1]):
        print(f"  {name:24} {seconds:6.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["cold", "edit"])
    parser.add_argument("size", type=int)
    parser.add_argument("--work", type=Path, default=Path("/tmp/lp-bench"))
    args = parser.parse_args()
    gc.disable()  # as the build itself does
    (cold if args.mode == "cold" else edit)(corpus(args.work, args.size))


if __name__ == "__main__":
    main()
