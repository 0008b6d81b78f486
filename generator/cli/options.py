"""Options and printing shared by the commands."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from ..content.findings import Finding

ROOT = click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
                    show_default=True, help="Site root holding content/ (and optionally templates/).")


def print_findings(findings: list[Finding], err: bool = False) -> None:
    for finding in findings:
        click.echo(finding_line(finding), err=err)


def finding_line(finding: Finding) -> str:
    return f"{finding}{'' if finding.severity == 'error' else ' (warning)'}"


def findings_summary(findings: list[Finding]) -> str:
    errors = sum(f.severity == "error" for f in findings)
    warnings = len(findings) - errors
    files = len({f.path for f in findings})
    return f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} in {files} file{'s' * (files != 1)}"
