"""The one call that builds a site, for every caller (the command line, the preview, the agent desk, the tests):
`build(root, into, options) -> Report`, into an output folder (`Folder`) or into memory (`Memory`), each of
which keeps between builds what the next one starts from (engine/destinations.py); and the check of a site
with the check's own memo (`check`, for `ledgerpress check` and `publish`).
A build with nothing to do answers from the saved state before the rest of the engine is imported: this
module and those it imports at the top use the standard library and orjson only."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..output.folder import OutputRefused
from ..output.lock import Locked
from ..output.store import CommitStats
from .build_options import Options
from .clock import BadTime, build_time
from .destinations import Destination
from .report import Counts, Report, Scheduled, os_reason
from .state import State, content_digests, load_state, memo_key, options_key, scan

if TYPE_CHECKING:
    from .inputs import SiteInputs
    from .pipeline import BuildResult

Progress = Callable[[str, int, int], None]  # (stage, done, total): told as stories are read and rendered


class Refused(Exception):
    """What stops a build at its output, as the one line its report gives."""


def build(root: Path, into: Destination, options: Options = Options(), progress: Progress | None = None) -> Report:
    """Check the site at `root`, then make what changed into `into`; nothing is made if an error remains, and
    `into` keeps the last good build whole. Whatever stops the build is in the report, never raised."""
    started = time.perf_counter()
    root = root.resolve()  # one spelling of every input's path in the cache, whichever way the root is named
    try:
        options = dataclasses.replace(options, now=options.now or build_time())
    except BadTime as err:
        return Report(into.name, refused=str(err))
    key = options_key(__version__, drafts=options.drafts, base_url=options.base_url, out=into.name)
    last = None if options.force else into.last(root)
    state = into.scan(root, last, key)
    if last is not None and into.skips and _up_to_date(last, state, into, options):
        into.unchanged(root, last, state)
        return _last_report(last, into.name, started)
    report = Report(into.name)
    try:
        with into.open(root, state):
            result, stats = _built(root, into, state, options, progress)
    except (Refused, OutputRefused, Locked) as err:
        report.refused = str(err)
        return report
    except OSError as err:
        report.refused = f"cannot write {os_reason(err, into.name)}; {Path(into.name).name}/ left as it was"
        return report
    report.findings, report.learned = result.findings, result.memo
    report.scheduled = [Scheduled(*due) for due in result.scheduled]
    if stats is not None:
        _record(state, result, stats)
        report.counts, report.changed, report.search = _counts(state.summary), stats.paths, result.searched
        report.notes = into.keep(root, state, result)
    report.seconds = time.perf_counter() - started
    return report


def _up_to_date(last: State, now: State, into: Destination, options: Options) -> bool:
    """Nothing that shapes the site changed since the last build, whose output is in place as it left it (with
    the search index asked for: a build that could not make it is followed by one that tries again), and the
    build's time leaves the same stories scheduled (none fell due, none built is ahead of it)."""
    if last.options != now.options or (options.search and not last.summary.get("search")):
        return False
    return last.stale(now.inputs, into.out, int(options.now.timestamp())) is None


def _last_report(last: State, out: str, started: float) -> Report:
    scheduled = [Scheduled(path, url_path, dt.datetime.fromtimestamp(due, dt.timezone.utc))
                 for path, url_path, due in last.scheduled]
    return Report(out, list(last.findings), up_to_date=True, counts=_counts(last.summary), scheduled=scheduled,
                  search=bool(last.summary.get("search")), seconds=time.perf_counter() - started)


def _built(root: Path, into: Destination, state: State, options: Options,
           progress: Progress | None) -> tuple[BuildResult, CommitStats | None]:
    """The pipeline's result, and the store's commit stats when it succeeded (None: nothing was committed)."""
    from .inputs import Prior, Run  # only now: a build with nothing to do stops before the engine is imported
    from .memo import MemoDamaged
    from .pipeline import build_site

    digests = content_digests(root, state.inputs)
    key = memo_key(state.inputs, digests, state.options)
    try:
        memo = None if options.force else into.memo(root, key, state.options)
        store = into.store(root, state)
        try:
            result = build_site(Run(root, options, Prior(memo, digests, (key, state.options)), progress=progress), store)
            return result, store.commit(result.outputs) if result.ok else None
        finally:
            store.abort()  # (the lock, if commit() has not let go of it)
    except MemoDamaged as err:  # found only when read, halfway through: nothing is published
        raise Refused(f"{err}; {Path(into.name).name}/ left as it was") from None


def _record(state: State, result: BuildResult, stats: CommitStats) -> None:
    """What the next build's state says of this one: its findings, the stories it left scheduled, its counts."""
    due = min([*([result.scheduled[0][2]] if result.scheduled else []), *filter(None, [result.correction_due])],
              default=None)  # a build after it publishes a story or a correction: never up to date past it
    state.findings = list(result.findings)
    state.scheduled = [(path, url_path, int(when.timestamp())) for path, url_path, when in result.scheduled]
    state.summary = {"stories": result.stories, "pages": result.pages, "files": stats.files, "written": stats.written,
                     "skipped": stats.unchanged, "deleted": stats.deleted, "search": int(result.searched),
                     "next_due": int(due.timestamp()) if due else 0,
                     "newest": int(result.newest.timestamp()) if result.newest else 0}


def _counts(summary: dict[str, int]) -> Counts:
    return Counts(summary.get("stories", 0), summary.get("pages", 0), summary.get("files", 0),
                  summary.get("written", 0), summary.get("skipped", 0), summary.get("deleted", 0))


def check(root: Path, force: bool = False, now: dt.datetime | None = None) -> SiteInputs:
    """Every rule over the site as a build sees it (`check`, `publish`), with the memo of the last check: a
    file whose bytes it read (against the same manifests, site.toml and generator) is not read again. The
    memo is kept apart from the builds' (it holds no outputs); one that cannot be saved costs only the next
    check's head start."""
    from .site_check import check_key, check_site, learned
    from .inputs import Prior, Run
    from .memo import MemoDamaged, load_memo, save_memo

    root = root.resolve()
    _, inputs = scan(root, None if force else load_state(root))  # the build's stamps spare reading unchanged files
    digests = content_digests(root, inputs)
    key, options = check_key(inputs, digests, drafts=False)
    memo = None if force else load_memo(root, options, key)
    prior = Prior(memo, digests, (key, options))
    checked = check_site(Run(root, Options(now=now or build_time()), prior))
    if checked.config is not None:
        with contextlib.suppress(OSError, MemoDamaged):
            save_memo(root, learned(checked, checked.records, prior))
    return checked
