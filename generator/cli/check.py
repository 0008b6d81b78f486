"""`ledgerpress check` and `ledgerpress rules`."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .options import ROOT, counted, detail, print_findings, say, verbosity

if TYPE_CHECKING:
    from ..content.findings import Finding
    from ..prepare import Checked


@click.command()
@ROOT
@click.option("--format", "form", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True,
              help="text: one `path:line:col: CODE message` a line; json: a JSON array; sarif: SARIF 2.1.0.")
@verbosity
def check(root: Path, form: str) -> None:
    """Run every rule on the site and print the findings; exit 1 if an error remains (drafts only warn)."""
    from ..prepare import check_site

    started = time.perf_counter()
    checked = check_site(root, drafts=False, jobs=None)  # as build and publish see the site
    extra, drafts = _drafts_checked(root, checked)
    findings = _with_drafts(checked, extra, drafts)
    if form == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    elif form == "sarif":
        from .sarif import sarif_log

        click.echo(json.dumps(sarif_log(findings, root), indent=2, ensure_ascii=False))
    else:
        print_findings(findings)
        say(_summary(root, checked, findings, len(drafts)))
        for hint in _hints(checked, findings):
            say(hint)
    for path in sorted(drafts):
        detail(f"draft (not built without --drafts): {path}")
    detail(f"checked in {time.perf_counter() - started:.2f} s")
    sys.exit(1 if any(f.severity == "error" for f in findings) else 0)


def _drafts_checked(root: Path, checked: Checked) -> tuple[list[Finding], set[str]]:
    """The drafts that check_site(drafts=False) leaves out, checked by every rule about the story itself (not
    the site-wide comparisons, which count published stories only), and the paths of every draft."""
    from ..checks import local_findings, severities
    from ..content.body import parse_body
    from ..content.drafts import draft_paths
    from ..content.models import Story
    from ..content.stories import load_story, story_files

    content = checked.content
    if content.config is None:
        return [], set()
    seen = {item.path for item in (*content.stories, *content.broken)} | {f.path for f in content.findings}
    stories = [story for path, shown in story_files(root) if shown not in seen
               and isinstance(story := load_story(path, shown)[0], Story) and story.meta.draft]
    found: list[Finding] = []
    for story in stories:
        found.extend(local_findings(story, parse_body(story.body, story.body_line), content.config, content.manifests))
    return severities(found, content.config.checks), draft_paths(root, stories, content.broken)


def _with_drafts(checked: Checked, extra: list[Finding], drafts: set[str]) -> list[Finding]:
    from ..content.drafts import drafts_as_warnings

    return sorted(set(drafts_as_warnings([*checked.findings, *extra], drafts)))


def _summary(root: Path, checked: Checked, findings: list[Finding], drafts: int) -> str:
    """'0 errors, 1 warning; 16 stories (1 draft), 24 manifests, 2 pages checked': what was looked at."""
    from ..content.stories import story_files

    errors = sum(f.severity == "error" for f in findings)
    content = checked.content
    stories = len(story_files(root)) if content.config is not None else 0
    pages = len(list((root / "content" / "pages").glob("**/*.md"))) if content.config is not None else 0
    drafted = f" ({counted(drafts, 'draft')})" if drafts else ""
    return (f"{counted(errors, 'error')}, {counted(len(findings) - errors, 'warning')}; {counted(stories, 'story')}"
            f"{drafted}, {counted(len(content.manifest_files), 'manifest')}, {counted(pages, 'page')} checked")


def _hints(checked: Checked, findings: list[Finding]) -> list[str]:
    """What to do next, when the findings say it plainly: start a site, or pull the missing manifests."""
    config = checked.content.config
    if config is None and not (checked.content.root / "content" / "site.toml").exists():
        return ["no site here: `ledgerpress init` starts one (or pass --root)"]
    if config is not None and config.manifests is not None and any(f.code == "LP022" for f in findings):
        return ["cited manifests are missing from content/manifests (LP022): "
                "`ledgerpress manifests pull` fetches them from the [manifests] store"]
    return []


@click.command(name="rules")
def list_rules() -> None:
    """List every rule code and what it checks."""
    from ..checks import RULES

    for code in sorted(RULES):
        click.echo(f"{code}  {RULES[code].summary}")
