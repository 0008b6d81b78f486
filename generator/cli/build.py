"""`ledgerpress build`: check, then write the site into public/."""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

import click

from .. import __version__
from ..cache import load_state, options_key, scan, unchanged
from .options import ROOT, finding_line, findings_summary, print_findings


@click.command()
@ROOT
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ROOT/public).")
@click.option("--drafts", is_flag=True, help="Include stories marked draft: true.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("--base-url", default=None, help="Override base_url from site.toml (e.g. for a preview host).")
@click.option("--no-search", is_flag=True, help="Skip the Pagefind search index (it re-indexes every page).")
@click.option("--force", is_flag=True, help="Read and render everything again, ignoring .ledgerpress-cache/.")
def build(root: Path, out: Path | None, drafts: bool, jobs: int | None, base_url: str | None, no_search: bool,
          force: bool) -> None:
    """Check every story, then write the site into public/ (or nothing, if an error remains). Only what
    changed since the last build is read and rendered again (--force: everything)."""
    started = time.perf_counter()
    root = root.resolve()  # one spelling of every input's path in the cache, whichever way the root is named
    target = (out or root / "public").resolve()
    key = options_key(__version__, drafts=drafts, base_url=base_url, out=target, search=not no_search)
    state = None if force else load_state(root)
    inputs = scan(root, state, read_later=state is None)
    if unchanged(target, key, state, inputs):
        for line in state.warnings:
            click.echo(line, err=True)
        click.echo(_built_line(state.summary, time.perf_counter() - started, target, "up to date: "), err=True)
        return
    enabled = gc.isenabled()
    gc.disable()  # importing the generator makes some hundred thousand objects and no garbage to collect
    try:
        _build(root, target, key, state, inputs, drafts, jobs, base_url, not no_search, started)
    finally:
        if enabled:
            gc.enable()


def _build(root: Path, target: Path, key: str, state, inputs: dict[str, list], drafts: bool, jobs: int | None,
           base_url: str | None, search: bool, started: float) -> None:
    from ..build import build_site
    from ..cache import record, same_output, settle, shown_stamps
    from ..memo import DamagedMemo, ShardWriter, load_memo, new_memo, save_memo
    from ..workers import no_cycle_collection
    from ..write import Pending

    previous = state.outputs if state is not None and state.key == key else None
    with no_cycle_collection():  # loading and saving the memo make many objects, and few cycles
        empty = new_memo(root, key)
        memo = (load_memo(root, empty) if previous is not None and same_output(target, state) else None) or empty
        stamps = shown_stamps(root, inputs)
        ahead = ShardWriter(root, empty.options)
        while True:
            pending = Pending(target, previous)
            try:
                with Progress() as progress:
                    result = build_site(root, drafts=drafts, base_url=base_url, jobs=jobs, search=search,
                                        progress=progress, sink=pending, memo=memo, stamps=stamps, ahead=ahead)
                break
            except DamagedMemo as err:  # a file of the memo went missing or changed during the build
                pending.abort()
                click.echo(f"{err}: building again without the cache", err=True)
                memo = new_memo(root, key)
            except BaseException:
                pending.abort()
                ahead.close()
                raise
        print_findings(result.findings, err=True)
        if not result.ok:
            pending.abort()
            ahead.close()
            click.echo(f"build refused: {findings_summary(result.findings)}; {target.name}/ left as it was", err=True)
            sys.exit(1)
        stats = pending.commit(result.digests, result.written)
        summary = {"stories": result.stories, "pages": result.pages, "files": len(result.digests),
                   "written": stats.files, "skipped": stats.skipped, "deleted": stats.deleted}
        warnings = [finding_line(f) for f in result.findings]
        if any(not found[2] for found in inputs.values()):  # a first build: stories hashed as they were read
            settle(root, inputs, {path: (entry.prepared.stamp, entry.prepared.digest)
                                  for path, entry in (result.memo.stories.items() if result.memo else ())})
        record(root, target, key, result.digests, warnings, summary, inputs)
        if result.memo is not None:
            save_memo(root, result.memo, ahead)
        ahead.close()  # (nothing to wait for, unless the build made no memo)
        gc.freeze()  # what the build made is left to the process's end, not scanned once more as we leave
        BUILT[:] = [(result, memo, pending)]  # nor freed as this returns (70 ms of a 4,000-story build)
    click.echo(_built_line(summary, time.perf_counter() - started, target), err=True)


def _built_line(summary: dict[str, int], seconds: float, target: Path, prefix: str = "built ") -> str:
    """The closing summary: stories, pages, files written and skipped, time."""
    counts = {name: summary.get(name, 0) for name in ("stories", "pages", "files", "written", "skipped", "deleted")}
    written = "nothing written" if prefix.startswith("up to date") else (
        f"{counts['written']:,} written, {counts['skipped']:,} unchanged, {counts['deleted']:,} deleted")
    return (f"{prefix}{counts['stories']:,} stories, {counts['pages']:,} pages, {counts['files']:,} files in "
            f"{target} ({written}) in {seconds:.2f} s")


class Progress:
    """A progress bar on a terminal for long builds; on anything else, a plain line now and then."""

    STAGES = {"read": "reading and checking", "render": "rendering", "pages": "lists, feeds, manifests"}

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.shown: dict[str, int] = {}

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tty and self.shown:
            click.echo("\r\033[K", err=True, nl=False)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total < 200:
            return
        name = self.STAGES.get(stage, stage)
        if self.tty:
            if done == total or done % max(total // 100, 1) == 0:
                filled = done * 30 // total
                click.echo(f"\r\033[K{name:<21} [{'#' * filled}{'.' * (30 - filled)}] {done:,}/{total:,} stories",
                           err=True, nl=False)
                self.shown[stage] = done
        elif done * 4 // total > self.shown.get(stage, 0) * 4 // total or done == total and stage not in self.shown:
            click.echo(f"{name}: {done:,}/{total:,} stories", err=True)
            self.shown[stage] = done


BUILT: list[tuple] = []  # what the last build that wrote its output made: the process may end at once
