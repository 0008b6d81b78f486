"""`ledgerpress build`: check, then write the site into public/."""

from __future__ import annotations

import contextlib
import datetime as dt
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from .. import __version__
from ..content.findings import counted
from ..content.layout import CACHE_DIR
from ..engine.state import (
    State,
    content_digests,
    load_state,
    memo_key,
    options_key,
    save_state,
    scan,
    settle,
)
from ..output.look import LiveLook
from ..render.dates import iso_z
from .cache import load_memo_kept
from .options import ROOT, build_now, echo, finding_line, findings_summary, os_reason, print_findings, require_site

if TYPE_CHECKING:
    from ..engine.build import Options


@click.command()
@ROOT
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Output folder (default: ROOT/public).")
@click.option("--drafts", is_flag=True, help="Include stories marked draft: true.")
@click.option("--jobs", type=click.IntRange(min=1), default=None, help="Worker processes (default: all cores).")
@click.option("--base-url", default=None, help="Override base_url from site.toml (e.g. for a preview host).")
@click.option("--no-search", is_flag=True,
              help="Do not index the site for search this time (the last build's index is kept only if it was made "
                   "from these very pages).")
@click.option("--now", "now_given", metavar="ISO", default=None,
              help="The build's time, which decides which stories are scheduled (default: SOURCE_DATE_EPOCH, "
                   "else the clock).")
@click.option("--force", is_flag=True, help="Read and render everything again, ignoring .ledgerpress-cache/.")
def build(root: Path, out: Path | None, drafts: bool, jobs: int | None, base_url: str | None, no_search: bool,
          now_given: str | None, force: bool) -> None:
    """Check every story, then write the site into public/ (or nothing, if an error remains). Only what
    changed since the last build is read and rendered again (--force: everything)."""
    started = time.perf_counter()
    root = root.resolve()  # one spelling of every input's path in the cache, whichever way the root is named
    require_site(root)
    now = build_now(now_given)
    target = (out or root / "public").resolve()
    chosen = options_key(__version__, drafts=drafts, base_url=base_url, out=target)
    state = None if force else load_state(root)
    scanned, inputs = scan(root, state)
    if state is not None and _up_to_date(state, chosen, inputs, target, not no_search, now):
        # Files hashed again, their bytes the same (touched by a checkout or a copy, or changed just before the
        # last scan): what the scan knew of them is kept, or every later build would hash them again.
        if any(seen is not state.inputs.get(path) and seen[3] != "unread" for path, seen in inputs.items()):
            with contextlib.suppress(OSError):
                save_state(root, State(state.options, scanned, settle(inputs), state.warnings, state.summary))
        for line in state.warnings:
            echo(line, err=True)
        echo(_built_line(state.summary, time.perf_counter() - started, target, up_to_date=True), err=True)
        return
    from ..engine.build import Options  # only now: a build with nothing to do stops before the engine is imported

    options = Options(drafts=drafts, base_url=base_url, jobs=jobs, search=not no_search, now=now)
    _build(root, target, State(chosen, scanned, inputs), options, force, started)


def _up_to_date(state: State, options: str, inputs: dict[str, list], target: Path, search: bool, now: dt.datetime) -> bool:
    """Nothing that shapes the site changed since the last build, whose output is in place as it left it (with
    the search index asked for: a build that could not make it is followed by one that tries again), and the
    build's time leaves the same stories scheduled (none fell due, none built is ahead of it)."""
    if state.options != options or (search and not state.summary.get("search")):
        return False
    return state.stale(inputs, target, int(now.timestamp())) is None


def _build(root: Path, target: Path, state: State, options: Options, force: bool, started: float) -> NoReturn:
    with LiveLook(target) as look:  # the live files' stats against the record, taken while the engine loads
        from ..engine.build import build_site
        from ..engine.memo import MemoDamaged, save_memo
        from ..output.folder import FolderStore
        from ..site.search import SHARDS

        digests = content_digests(root, state.inputs)
        key = memo_key(state.inputs, digests, state.options)
        memo = None if force else load_memo_kept(root, state.options, key)
        with _output_errors(target):
            store = FolderStore(target, root, state.build, look)
    with _output_errors(target):
        try:
            with Progress() as progress:
                try:
                    result = build_site(root, store, options, memo, digests, progress, (key, state.options))
                except MemoDamaged as err:  # found only when read, halfway through: nothing is published
                    raise click.ClickException(f"{err}; {target.name}/ left as it was") from None
            print_findings(result.findings, err=True)
            if not result.ok:
                echo(f"build refused: {findings_summary(result.findings)}; {target.name}/ left as it was", err=True)
                sys.exit(1)
            stats = store.commit(result.outputs)
        finally:
            store.abort()  # (the lock, if commit() has not let go of it)
    state.inputs = settle(state.inputs)  # what changed while the build ran is read again by the next one
    state.warnings = [finding_line(f) for f in result.findings]
    due = min([*([result.scheduled[0][2]] if result.scheduled else []), *filter(None, [result.correction_due])],
              default=None)  # a build after it publishes a story or a correction: never up to date past it
    state.summary = {"stories": result.stories, "pages": result.pages, "files": stats.files, "written": stats.written,
                     "skipped": stats.unchanged, "deleted": stats.deleted,
                     "search": int(options.search and SHARDS in result.outputs),  # asked for, and made
                     "next_due": int(due.timestamp()) if due else 0,
                     "newest": int(result.newest.timestamp()) if result.newest else 0}
    state.warnings = [*state.warnings, *([scheduled_line(result.scheduled)] if result.scheduled else [])]
    try:
        save_state(root, state)
        if result.memo is not None:
            save_memo(root, result.memo)
    except (OSError, MemoDamaged) as err:  # the site is built: only the next build's head start is lost
        why = err.path if isinstance(err, MemoDamaged) else os_reason(err, CACHE_DIR)
        echo(f"warning: the build cache could not be saved ({why}): the next build reads and renders "
             "everything again", err=True)
    if result.scheduled:
        echo(scheduled_line(result.scheduled), err=True)
    echo(_built_line(state.summary, time.perf_counter() - started, target), err=True)
    # Ended here, in this frame, rather than by returning: the memos and the result (a build's millions of
    # objects) then go with the process (cli._end) instead of being freed one by one on the way out.
    sys.exit(0)


@contextlib.contextmanager
def _output_errors(target: Path) -> Iterator[None]:
    """What stops a build at its output folder, as one line: a refusal, another build's lock, or a write the disk
    refused (the engine reports what it cannot read as findings; this is what it could not write)."""
    from ..output.folder import OutputRefused
    from ..output.lock import Locked

    try:
        yield
    except (OutputRefused, Locked) as err:
        raise click.ClickException(str(err)) from None
    except OSError as err:
        raise click.ClickException(f"cannot write {os_reason(err, target)}; {target.name}/ left as it was") from None


def scheduled_line(scheduled: list[tuple[str, str, dt.datetime]]) -> str:
    """How many stories wait for their time, and which is next: they go out with the first build after it."""
    path, _, when = scheduled[0]
    return (f"{counted(len(scheduled), 'story')} scheduled, not built yet; the next, {path}, is due at "
            f"{iso_z(when)} (a build at or after that time publishes it)")


def _built_line(summary: dict[str, int], seconds: float, target: Path, up_to_date: bool = False) -> str:
    """The closing summary: stories, pages, files written and skipped, time; of the last build, when this one
    found nothing to do (`up_to_date`)."""
    counts = {name: summary.get(name, 0) for name in ("stories", "pages", "files", "written", "skipped", "deleted")}
    prefix = "up to date: " if up_to_date else "built "
    written = "nothing written" if up_to_date else (
        f"{counts['written']:,} written, {counts['skipped']:,} unchanged, {counts['deleted']:,} deleted")
    stories, pages, files = counts["stories"], counts["pages"], counts["files"]
    return (f"{prefix}{counted(stories, 'story')}, {counted(pages, 'page')}, {counted(files, 'file')} in {target} "
            f"({written}) in {seconds:.2f} s")


class Progress:
    """A progress bar on a terminal for long builds; on anything else, a plain line now and then."""

    STAGES = {"read": "reading and checking", "render": "rendering"}

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

