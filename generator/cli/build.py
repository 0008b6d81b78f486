"""`ledgerpress build`: check, then write the site into public/."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..engine.build_options import Options
from ..engine.destinations import Folder
from ..engine.run import build as build_site
from .options import ROOT, build_now, detail, echo, findings_summary, level, print_findings, require_site, say, verbosity


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
@verbosity
def build(root: Path, out: Path | None, drafts: bool, jobs: int | None, base_url: str | None, no_search: bool,
          now_given: str | None, force: bool) -> None:  # (click passes each option as a parameter)
    """Check every story, then write the site into public/ (or nothing, if an error remains). Only what
    changed since the last build is read and rendered again (--force: everything)."""
    require_site(root)
    options = Options(drafts=drafts, base_url=base_url, jobs=jobs, search=not no_search, now=build_now(now_given),
                      force=force)
    with Progress(quiet=level() < 0) as progress:
        report = build_site(root, Folder(out or root / "public"), options, progress)
    if report.refused is not None:
        raise click.ClickException(report.refused)
    print_findings(report.findings, err=True)
    if not report.ok:
        echo(f"build refused: {findings_summary(report.findings)}; {Path(report.out).name}/ left as it was", err=True)
        sys.exit(1)
    for note in report.notes:
        echo(f"warning: {note}", err=True)
    if report.scheduled:
        say(report.waiting())
    for path in report.changed:
        detail(f"changed: {path}")
    echo(report.summary(), err=True)
    # Ended here, in this frame, rather than by returning: what the build learned (its memo, a large build's
    # millions of objects), which the report holds, then goes with the process (cli._end) instead of being
    # freed one by one on the way out.
    sys.exit(0)


class Progress:
    """A progress bar on a terminal for long builds; on anything else, a plain line now and then."""

    STAGES = {"read": "reading and checking", "render": "rendering"}

    def __init__(self, quiet: bool = False) -> None:
        self.tty = sys.stderr.isatty()
        self.quiet = quiet  # (-q: no progress)
        self.shown: dict[str, int] = {}

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.tty and self.shown:
            click.echo("\r\033[K", err=True, nl=False)

    def __call__(self, stage: str, done: int, total: int) -> None:
        if total < 200 or self.quiet:
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

