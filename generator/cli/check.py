"""`ledgerpress check`: every rule over content/, the findings, the stories a retraction reaches."""

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
    from ..prepare import check_site

    checked = check_site(root, drafts=True, jobs=None)
    findings = checked.findings
    if form == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    else:
        print_findings(findings)
        for line in retraction_lines(checked.index):
            click.echo(line, err=True)
        click.echo(findings_summary(findings), err=True)
    sys.exit(1 if any(f.severity == "error" for f in findings) else 0)


def retraction_lines(index) -> list[str]:
    """Each retracted manifest (or claim) and the stories that cite it, corrected or not (LP026)."""
    from ..checks.retractions import affected

    lines = []
    for item in affected(index) if index is not None else []:
        lines.append(f"retraction: manifest '{item.manifest_id}' ({item.what}) is cited by {len(item.stories)} "
                     f"stor{'y' if len(item.stories) == 1 else 'ies'}:")
        lines += [f"  {path}: {'corrected' if corrected else 'no correction yet (LP026)'}" for path, corrected in item.stories]
    return lines
