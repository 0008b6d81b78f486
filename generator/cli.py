"""Click commands: each calls one function, prints findings, and sets the exit code."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import click

from . import __version__
from .build import build_site, check_site
from .checks import RULES
from .config import CONFIG_NAME, load_config
from .models import Finding
from .slugs import slugify
from .write import write_site

ROOT = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                    show_default=True, help="Site root holding content/ (and optionally templates/).")


def _print_findings(findings: list[Finding], err: bool = False) -> None:
    for finding in findings:
        level = "" if finding.severity == "error" else " (warning)"
        click.echo(f"{finding}{level}", err=err)


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
def build(root: Path, out: Path | None, drafts: bool, jobs: int | None, base_url: str | None) -> None:
    """Check every story, then write the site into public/ (or nothing, if an error remains)."""
    result = build_site(root, drafts=drafts, base_url=base_url)
    _print_findings(result.findings, err=True)
    if not result.ok:
        click.echo(f"build refused: {_summary(result.findings)}; public/ left as it was", err=True)
        sys.exit(1)
    target = out or root / "public"
    stats = write_site(target, sorted(result.files.items()))
    click.echo(f"built {result.stories} stories, {result.pages} pages: {stats.files} files, "
               f"{stats.bytes:,} bytes in {target} ({result.seconds:.2f} s)", err=True)


@cli.command()
@ROOT
@click.option("--format", "form", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(root: Path, form: str) -> None:
    """Run every rule on content/ and print the findings; exit 1 if any error remains."""
    findings = check_site(root, drafts=True).findings
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


@cli.command(name="rules")
def list_rules() -> None:
    """List every rule code and what it checks."""
    for code in sorted(RULES):
        click.echo(f"{code}  {RULES[code].summary}")


def main() -> None:
    cli(prog_name="ledgerpress")
