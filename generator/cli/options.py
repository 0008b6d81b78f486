"""Options and printing shared by the commands."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..content.findings import counted, printable
from ..engine.report import os_reason

if TYPE_CHECKING:
    from ..content.config import SiteConfig
    from ..content.findings import Finding

ROOT = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                    show_default=True, help="Site root: the folder holding content/ (and optionally templates/).")

_LEVEL = "ledgerpress.verbosity"


def _set_level(step: int) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: int) -> None:
        ctx.meta[_LEVEL] = ctx.meta.get(_LEVEL, 0) + step * value

    return callback


def verbosity(command: Callable) -> Callable:
    """-q/--quiet and -v/--verbose: how much a command says besides its findings and its result."""
    quiet = click.option("-q", "--quiet", count=True, expose_value=False, callback=_set_level(-1),
                         help="Say less: only findings, errors and the command's result.")
    verbose = click.option("-v", "--verbose", count=True, expose_value=False, callback=_set_level(1),
                           help="Say more about each step (what it read, tried and decided).")
    return quiet(verbose(command))


def level() -> int:
    """-1 quiet, 0 normal, 1 or more verbose."""
    ctx = click.get_current_context(silent=True)
    return ctx.meta.get(_LEVEL, 0) if ctx is not None else 0


def echo(line: str, err: bool = False) -> None:
    """One line for a terminal: its control characters (from a file, a manifest, a server's answer) printed as
    escapes, so that no text can print a line that reads as another, or an escape the terminal obeys."""
    click.echo(printable(line), err=err)


def say(message: str) -> None:
    """A note for a person (a summary, a hint, what to do next) on stderr, one line; -q leaves it out."""
    if level() >= 0:
        echo(message, err=True)


def detail(message: str) -> None:
    """A step only -v shows, on stderr, one line."""
    if level() >= 1:
        echo(message, err=True)


def require_site(root: Path) -> None:
    """Stop (exit 1) with a plain sentence when root holds no site, before anything reads or writes there (a
    site.toml that is there but cannot be read is the engine's to report, at its place)."""
    if not os.path.lexists(root / "content" / "site.toml"):
        where = "this folder" if root == Path(".") else str(root)
        raise click.ClickException(f"no ledgerpress site in {where} (no content/site.toml): "
                                   f"run `ledgerpress init` to start one, or pass --root")


def site_config(root: Path) -> SiteConfig:
    """The site's site.toml, read; one that cannot be read stops the command (exit 1) with its findings."""
    from ..content.config import CONFIG_NAME, load_config

    require_site(root)
    config, findings = load_config(root / "content" / CONFIG_NAME, shown=f"content/{CONFIG_NAME}")
    if config is None:
        print_findings(findings, err=True)
        sys.exit(1)
    return config


def build_now(given: str | None = None) -> dt.datetime:
    """The build's time (`--now`, else SOURCE_DATE_EPOCH, else the clock); a value that cannot be read stops
    the command with what is expected."""
    from ..engine.clock import BadTime, build_time

    try:
        return build_time(given)
    except BadTime as err:
        raise click.BadParameter(str(err), param_hint="--now" if given is not None else "SOURCE_DATE_EPOCH") from None


@contextlib.contextmanager
def writing_files() -> Iterator[None]:
    """A file a command cannot write (a folder that is a file, a read-only disk) stops it with one line."""
    try:
        yield
    except OSError as err:
        raise click.ClickException(f"cannot write {os_reason(err, 'a file')}") from None


def print_findings(findings: list[Finding], err: bool = False) -> None:
    for finding in findings:
        click.echo(finding_line(finding), err=err)


def finding_line(finding: Finding) -> str:
    return f"{finding}{'' if finding.severity == 'error' else ' (warning)'}"


def findings_summary(findings: list[Finding]) -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    files = len({f.path for f in findings})
    return f"{counted(errors, 'error')}, {counted(warnings, 'warning')} in {counted(files, 'file')}"


