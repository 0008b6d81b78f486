"""`ledgerpress check` and `ledgerpress rules`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .options import ROOT, findings_summary, print_findings


@click.command()
@ROOT
@click.option("--format", "form", type=click.Choice(["text", "json"]), default="text", show_default=True)
def check(root: Path, form: str) -> None:
    """Run every rule on content/ and print the findings; exit 1 if any error remains."""
    from ..engine.check import check_site
    from ..engine.pool import default_jobs

    findings = check_site(root, drafts=False, base_url=None, jobs=default_jobs()).findings
    if form == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    else:
        print_findings(findings)
        click.echo(findings_summary(findings), err=True)
    sys.exit(1 if any(f.severity == "error" for f in findings) else 0)


@click.command(name="rules")
def list_rules() -> None:
    """List every rule code and what it checks."""
    from ..checks import RULES

    for code in sorted(RULES):
        click.echo(f"{code}  {RULES[code].summary}")
