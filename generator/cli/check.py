"""`ledgerpress check`: every rule over content/, the findings, the stories a retraction reaches."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..content.findings import counted, printable
from ..render.dates import iso_z
from ..engine.run import check as site_checked
from .options import ROOT, build_now, detail, echo, print_findings, say, verbosity

if TYPE_CHECKING:
    from ..content.findings import Finding
    from ..engine.inputs import SiteInputs


@click.command()
@ROOT
@click.option("--format", "form", type=click.Choice(["text", "json", "sarif"]), default="text", show_default=True,
              help="text: one `path:line:col: CODE message` a line; json: a JSON array; sarif: SARIF 2.1.0.")
@click.option("--force", is_flag=True, help="Read every file again, ignoring .ledgerpress-cache/.")
@click.option("--explain", "place", metavar="PATH:LINE",
              help="Show how the paragraph, list item, table row, key fact, heading or front-matter line at PATH:LINE "
                   "reads against its sources: each sentence, the claims it rests on, and its findings.")
@verbosity
def check(root: Path, form: str, force: bool, place: str | None) -> None:
    """Run every rule on the site and print the findings; exit 1 if an error remains (drafts only warn). Only
    the files changed since the last check are read again (--force: every file)."""
    started = time.perf_counter()
    checked = site_checked(root, force, build_now())
    findings = checked.findings
    if place is not None:
        sys.exit(_explain(root.resolve(), place, findings))
    drafts = {path for path, record in checked.records.items() if record.draft}
    if form == "json":
        click.echo(json.dumps([f.as_dict() for f in findings], indent=2, ensure_ascii=False))
    elif form == "sarif":
        from .sarif import sarif_log

        click.echo(json.dumps(sarif_log(findings, root), indent=2, ensure_ascii=False))
    else:
        print_findings(findings)
        for line in retraction_lines(checked):
            echo(line, err=True)
        say(_summary(checked, findings, len(drafts)))
        for hint in _hints(root, checked, findings):
            say(hint)
    for path in sorted(drafts):
        detail(f"draft (not built without --drafts): {path}")
    for story in sorted(checked.scheduled, key=lambda s: (s.published, s.path)):
        detail(f"scheduled (built from {iso_z(story.published)}): {story.path}")
    detail(f"checked in {time.perf_counter() - started:.2f} s")
    sys.exit(1 if any(f.severity == "error" for f in findings) else 0)


def _explain(root: Path, place: str, findings: list[Finding]) -> int:
    """Print how one unit of a story reads against its claims; 2 when PATH:LINE names none."""
    from ..engine.explain import Explained, explain

    shown, _, line = place.rpartition(":")
    if not shown or not line.isdigit():
        click.echo(f"--explain {printable(place)}: expected PATH:LINE, e.g. content/stories/2026-11-21/a-story.md:43",
                   err=True)
        return 2
    found = explain(root, shown, int(line))
    if not isinstance(found, Explained):
        click.echo(printable(found), err=True)
        return 2
    against = ("read against every manifest of the ledger" if found.kind in ("title", "description", "heading", "caption")
               else f"citing {', '.join(found.cited) or 'nothing'}")
    click.echo(f"{shown}:{found.lines.start}: {found.kind}, {against}")
    for number, (text, claims) in enumerate(found.sentences, start=1):
        click.echo(f"  {number}. {printable(text)}")
        if not claims:
            click.echo("     rests on no one claim: the reporter's own words, from the sources the unit cites")
        for ref in claims:
            listed = "" if ref.listed else " (not in the ledger)"
            click.echo(f"     - {ref.manifest_id}/{ref.claim_id}{listed} '{printable(ref.title)}': "
                       f"\"{printable(ref.text)}\"")
    here = [finding for finding in findings if found.holds(finding, shown)]
    click.echo("  findings: none" if not here else "  findings:")
    for finding in here:
        click.echo(f"     {finding}")
    return 1 if any(f.severity == "error" for f in here) else 0


def _summary(checked: SiteInputs, findings: list[Finding], drafts: int) -> str:
    """'0 errors, 1 warning; 16 stories (1 draft, 1 scheduled), 24 manifests, 2 pages checked': what was looked at."""
    errors = sum(f.severity == "error" for f in findings)
    aside = [counted(drafts, "draft")] * bool(drafts) + [f"{len(checked.scheduled)} scheduled"] * bool(checked.scheduled)
    drafted = f" ({', '.join(aside)})" if aside else ""
    return (f"{counted(errors, 'error')}, {counted(len(findings) - errors, 'warning')}; "
            f"{counted(len(checked.records), 'story')}{drafted}, {counted(len(checked.manifest_records), 'manifest')}, "
            f"{counted(len(checked.pages), 'page')} checked")


def _hints(root: Path, checked: SiteInputs, findings: list[Finding]) -> list[str]:
    """What to do next, when the findings say it plainly: start a site, or pull the missing manifests."""
    config = checked.config
    if config is None and not (root / "content" / "site.toml").exists():
        return ["no site here: `ledgerpress init` starts one (or pass --root)"]
    if config is not None and config.manifests is not None and any(f.code == "LP022" for f in findings):
        return ["cited manifests are missing from content/manifests (LP022): "
                "`ledgerpress manifests pull` fetches them from the [manifests] store"]
    return []


def retraction_lines(checked: SiteInputs) -> list[str]:
    """Each retracted manifest (or claim) and the stories that cite it, corrected or not (LP026)."""
    from ..checks.retractions import affected

    lines = []
    for item in affected([*checked.stories, *checked.scheduled], checked.manifests) if checked.config is not None else []:
        lines.append(f"retraction: manifest '{item.manifest_id}' ({item.what}) is cited by "
                     f"{counted(len(item.stories), 'story')}:")
        lines += [f"  {path}: {'corrected' if corrected else 'no correction yet (LP026)'}" for path, corrected in item.stories]
    return lines
