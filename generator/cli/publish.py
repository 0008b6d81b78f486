"""`ledgerpress publish`: ship public/ to a folder or a bucket."""

from __future__ import annotations

from pathlib import Path

import click

from .cache import site_checked
from .options import ROOT, findings_summary, print_findings, require_site


@click.command(name="publish")
@click.argument("dest")
@ROOT
@click.option("--dry-run", is_flag=True, help="Print what would be uploaded and deleted; change nothing.")
@click.option("--endpoint-url", default=None, help="S3-compatible endpoint for s3:// (credentials: the AWS ways).")
def publish_command(dest: str, root: Path, dry_run: bool, endpoint_url: str | None) -> None:
    """Publish ROOT/public/ to DEST, a folder or s3://bucket/prefix: changed files only, pages after their assets."""
    from ..publish import PublishError, public_files, publish_site

    require_site(root)
    try:
        public_files(root / "public")
    except PublishError as err:
        raise click.ClickException(f"publish refused: {err}") from None
    findings = site_checked(root.resolve()).findings
    if any(f.severity == "error" for f in findings):
        print_findings(findings, err=True)
        raise click.ClickException(f"publish refused: {findings_summary(findings)}; fix them, then `ledgerpress build`")
    try:
        plan = publish_site(root / "public", dest, endpoint_url=endpoint_url, dry_run=dry_run)
    except (PublishError, OSError) as err:
        raise click.ClickException(f"publish failed: {err}") from None
    if dry_run:
        for line in plan.lines():
            click.echo(line)
    click.echo(plan.summary() + (" (dry run: nothing changed)" if dry_run else ""))
