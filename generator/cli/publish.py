"""`ledgerpress publish`: ship public/ to a folder or a bucket."""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..content.findings import shown_name
from ..content.layout import PACKAGE
from ..engine.state import State, key_options, libraries, load_state, scan
from ..engine.run import check as site_checked
from .options import ROOT, build_now, detail, echo, findings_summary, print_findings, require_site, verbosity


@click.command(name="publish")
@click.argument("dest")
@ROOT
@click.option("--dry-run", is_flag=True, help="Print what would be uploaded and deleted; change nothing.")
@click.option("--endpoint-url", default=None, help="S3-compatible endpoint for s3:// (credentials: the AWS ways).")
@verbosity
def publish_command(dest: str, root: Path, dry_run: bool, endpoint_url: str | None) -> None:
    """Publish ROOT/public/ to DEST, a folder or s3://bucket/prefix: changed files only, pages after their assets."""
    from ..publish import PublishError, public_files, publish_site

    require_site(root)
    try:
        public_files(root / "public")
    except PublishError as err:
        raise click.ClickException(f"publish refused: {err}") from None
    findings = site_checked(root, now=build_now()).findings
    if any(f.severity == "error" for f in findings):
        print_findings(findings, err=True)
        raise click.ClickException(f"publish refused: {findings_summary(findings)}; fix them, then `ledgerpress build`")
    state = load_state(root.resolve())
    stale = _stale(root.resolve(), (root / "public").resolve(), state)
    if stale:
        raise click.ClickException(f"publish refused: {stale}; run `ledgerpress build`, then publish")
    if not state.summary.get("search"):  # a choice (--no-search), so not refused
        click.echo("warning: public/ was built without its search index (--no-search, or Pagefind could not run): "
                   "its search page does not find what changed since; run `ledgerpress build` to index it", err=True)
    try:
        plan = publish_site(root / "public", dest, endpoint_url=endpoint_url, dry_run=dry_run)
    except (PublishError, OSError) as err:
        raise click.ClickException(f"publish failed: {err}") from None
    for line in plan.lines():  # (what a dry run is for; a real one says it with -v)
        if dry_run:
            echo(line)
        else:
            detail(line)
    echo(plan.summary() + (" (dry run: nothing changed)" if dry_run else ""))


def _stale(root: Path, public: Path, state: State | None) -> str | None:
    """Why public/ is not what `ledgerpress build` would make of the site now, in words a user can act on; None
    when it is. A site is published as it was checked: not an older build, one with drafts, or one made for a
    later time (whose scheduled stories are not due yet). `state`: the last build's, as load_state gives it."""
    if state is None:
        return f"no build of this site is on record (.ledgerpress-cache/ is missing), so {public.name}/ may be stale"
    options = key_options(state.options)
    if options.get("out") != str(public):
        return f"the last build wrote to {options.get('out', 'another folder')}, not {public.name}/"
    if options.get("drafts") == "True":
        return f"{public.name}/ holds drafts (it was built with --drafts)"
    if options.get("libraries") != libraries():
        return f"the libraries ledgerpress runs on were installed anew since {public.name}/ was built"
    _, inputs = scan(root, state)
    stale = state.stale(inputs, public, int(build_now().timestamp()))
    if stale is None:
        return None
    why, paths = stale
    if why == "inputs":
        code = f"{PACKAGE}{os.sep}"
        changed = sorted(paths, key=lambda path: (path.startswith(code), path))  # the site's own files named first
        shown = "ledgerpress itself" if changed[0].startswith(code) else shown_name(os.path.relpath(changed[0], root))
        more = f" and {len(changed) - 1} more files" if len(changed) > 1 else ""
        return f"{shown}{more} changed since {public.name}/ was built"
    return {"ahead": f"{public.name}/ was built for a later time (--now): it holds stories that are not due yet",
            "due": f"a scheduled story fell due since {public.name}/ was built",
            "files": f"files of {public.name}/ were changed or removed after its build"}[why]
