"""Click commands: each calls one function, prints findings, and sets the exit code."""

from __future__ import annotations

import datetime as dt
import gc
import json
import os
import sys
import time
from pathlib import Path

from typing import TYPE_CHECKING

import click

# A build's parallelism is its processes (--jobs): the BLAS threads numpy starts on import would only spin
# beside them (numpy's vector work here is elementwise, never BLAS). Set before anything imports numpy.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# pydantic looks for plugins (observability hooks) among the entry points of every installed distribution
# when it builds its first validator: 30 ms of each run here, a twentieth of a one-story rebuild, for hooks a
# site build has no use for. Whoever wants them sets PYDANTIC_DISABLE_PLUGINS themselves (e.g. to "none").
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

from . import __version__
from .cache import load_state, options_key, scan, unchanged
from .slugs import slugify

if TYPE_CHECKING:  # the commands import what they run, so `build` of an unchanged site starts in a blink
    from .models import Finding
    from .serve import Rebuilt

ROOT = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                    show_default=True, help="Site root holding content/ (and optionally templates/).")


def _print_findings(findings: list[Finding], err: bool = False) -> None:
    for finding in findings:
        click.echo(_finding_line(finding), err=err)


def _finding_line(finding: Finding) -> str:
    return f"{finding}{'' if finding.severity == 'error' else ' (warning)'}"


def _summary(findings: list[Finding]) -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    files = len({f.path for f in findings})
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} in {files} file{'s' * (files != 1)}"


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ledgerpress")
def cli() -> None:
    """ledgerpress: build a provenance-checked news site from content/."""


@cli.command()
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
    from .build import build_site
    from .cache import record, same_output, settle, shown_stamps
    from .memo import DamagedMemo, ShardWriter, load_memo, new_memo, save_memo
    from .workers import no_cycle_collection
    from .write import Pending

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
        _print_findings(result.findings, err=True)
        if not result.ok:
            pending.abort()
            ahead.close()
            click.echo(f"build refused: {_summary(result.findings)}; {target.name}/ left as it was", err=True)
            sys.exit(1)
        stats = pending.commit(result.digests, result.written)
        summary = {"stories": result.stories, "pages": result.pages, "files": len(result.digests),
                   "written": stats.files, "skipped": stats.skipped, "deleted": stats.deleted}
        warnings = [_finding_line(f) for f in result.findings]
        if any(not found[2] for found in inputs.values()):  # a first build: stories hashed as they were read
            settle(root, inputs, {path: (entry.prepared.stamp, entry.prepared.digest)
                                  for path, entry in (result.memo.stories.items() if result.memo else ())})
        record(root, target, key, result.digests, warnings, summary, inputs)
        if result.memo is not None:
            save_memo(root, result.memo, ahead)
        ahead.close()  # (nothing to wait for, unless the build made no memo)
        gc.freeze()  # what the build made is left to the process's end, not scanned once more as we leave
        _BUILT[:] = [(result, memo, pending)]  # nor freed as this returns (70 ms of a 4,000-story build)
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


@cli.command()
@ROOT
@click.option("--format", "form", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(root: Path, form: str) -> None:
    """Run every rule on content/ and print the findings; exit 1 if any error remains."""
    from .prepare import check_site

    findings = check_site(root, drafts=True, jobs=None).findings
    if form == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    else:
        _print_findings(findings)
        click.echo(_summary(findings), err=True)
    sys.exit(1 if any(f.severity == "error" for f in findings) else 0)


@cli.command()
@click.argument("title")
@click.option("--newsroom", required=True, help="A newsroom key from site.toml.")
@click.option("--beat", required=True, help="A beat key from site.toml.")
@click.option("--trust", default=None, help="A trust level key (default: the first in site.toml).")
@ROOT
def new(title: str, newsroom: str, beat: str, trust: str | None, root: Path) -> None:
    """Start a story: content/stories/<today>/<slug>.md with its front matter filled in."""
    from .config import CONFIG_NAME, load_config

    config, findings = load_config(root / "content" / CONFIG_NAME)
    if config is None:
        _print_findings(findings, err=True)
        sys.exit(1)
    for field, value, known in (("newsroom", newsroom, config.newsrooms), ("beat", beat, config.beats)):
        if value not in known:
            raise click.BadParameter(f"'{value}' is not one of {', '.join(sorted(known))}", param_hint=f"--{field}")
    now = dt.datetime.now(dt.timezone.utc).replace(second=0, microsecond=0)
    path = root / "content" / "stories" / now.date().isoformat() / f"{slugify(title)}.md"
    if path.exists():
        raise click.ClickException(f"{path} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_skeleton(title, newsroom, beat, trust or next(iter(config.trust)), now), encoding="utf-8")
    click.echo(str(path))


def _skeleton(title: str, newsroom: str, beat: str, trust: str, now: dt.datetime) -> str:
    quoted = json.dumps(title, ensure_ascii=False)
    return (f"---\ntitle: {quoted}\ndescription: \"One or two sentences that say what happened.\"\n"
            f"published: {now.strftime('%Y-%m-%dT%H:%M:%SZ')}\nnewsroom: {newsroom}\nbeat: {beat}\ntrust: {trust}\n"
            "ledger:\n  - manifest: \"MANIFEST-ID\"\n    claims: [\"CLAIM-ID\"]\n---\n\n"
            "## What happened\n\nWrite each paragraph from the claims it cites. [cites: MANIFEST-ID]\n")


@cli.command(name="serve")
@ROOT
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on (0.0.0.0: your network).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="0 picks a free port.")
@click.option("--drafts", is_flag=True, help="Include stories marked draft: true.")
def serve_command(root: Path, host: str, port: int, drafts: bool) -> None:
    """Preview the site: built in memory, rebuilt on every save, open pages reload; public/ is not touched."""
    from .serve import Preview

    try:
        preview = Preview(root, host, port, drafts=drafts, on_build=_print_rebuild)
    except OSError as err:
        raise click.ClickException(f"cannot listen on {host}:{port}: {err.strerror or err}") from None
    click.echo(f"Serving {root.resolve()} at {preview.url}/ (Ctrl-C to stop)", err=True)
    preview.run()
    click.echo("Stopped.", err=True)


def _print_rebuild(rebuilt: Rebuilt) -> None:
    snapshot = rebuilt.snapshot
    if rebuilt.error is not None:  # a bug in ledgerpress, not in the content: show where it broke
        import traceback

        click.echo("".join(traceback.format_exception(rebuilt.error)).rstrip(), err=True)
    _print_findings(list(snapshot.findings), err=True)
    cause = f" after {', '.join(rebuilt.sources[:3])}{' …' * (len(rebuilt.sources) > 3)}" if rebuilt.sources else ""
    if rebuilt.ok:
        click.echo(f"built in {rebuilt.seconds:.2f} s{cause}: {len(rebuilt.changed)} files changed", err=True)
    else:
        click.echo(f"build failed in {rebuilt.seconds:.2f} s{cause}: {_summary(list(snapshot.findings))}; "
                   f"{'showing the last good build' if snapshot.files else 'no good build yet'}", err=True)


@cli.command(name="publish")
@click.argument("dest")
@ROOT
@click.option("--dry-run", is_flag=True, help="Print what would be uploaded and deleted; change nothing.")
@click.option("--endpoint-url", default=None, help="S3-compatible endpoint for s3:// (credentials: the AWS ways).")
def publish_command(dest: str, root: Path, dry_run: bool, endpoint_url: str | None) -> None:
    """Publish ROOT/public/ to DEST, a folder or s3://bucket/prefix: changed files only, pages after their assets."""
    from .prepare import check_site
    from .publish import PublishError, public_files, publish_site

    try:
        files = public_files(root / "public")
    except PublishError as err:
        raise click.ClickException(f"publish refused: {err}") from None
    findings = check_site(root, drafts=False).findings
    if any(f.severity == "error" for f in findings):
        _print_findings(findings, err=True)
        raise click.ClickException(f"publish refused: {_summary(findings)}; fix them, then `ledgerpress build`")
    try:
        plan = publish_site(root / "public", files, dest, endpoint_url=endpoint_url, dry_run=dry_run)
    except (PublishError, OSError) as err:
        raise click.ClickException(f"publish failed: {err}") from None
    if dry_run:
        for line in plan.lines():
            click.echo(line)
    click.echo(plan.summary() + (" (dry run: nothing changed)" if dry_run else ""))


@cli.command(name="rules")
def list_rules() -> None:
    """List every rule code and what it checks."""
    from .checks import RULES

    for code in sorted(RULES):
        click.echo(f"{code}  {RULES[code].summary}")


def main() -> None:
    try:
        cli(prog_name="ledgerpress")
    except KeyboardInterrupt:
        click.echo("interrupted: the output folder holds the last completed build", err=True)
        sys.exit(130)
    except SystemExit as done:
        if _BUILT and isinstance(done.code, int | None):
            _leave(done.code or 0)
        raise


_BUILT: list[tuple] = []  # what the last build that wrote its output made: the process may end at once


def _leave(code: int) -> None:
    """End a build's process without freeing, one by one, the millions of objects it made (tearing the
    interpreter down took longer than the checks of a one-story rebuild). Everything is written and
    flushed by then, and a build leaves no process or file behind to clean up."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
