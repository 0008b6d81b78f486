"""`ledgerpress new`: start a story."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import click

from ..content.slugs import slugify
from .options import ROOT, print_findings


@click.command()
@click.argument("title")
@click.option("--newsroom", required=True, help="A newsroom key from site.toml.")
@click.option("--beat", required=True, help="A beat key from site.toml.")
@click.option("--trust", default=None, help="A trust level key (default: the first in site.toml).")
@ROOT
def new(title: str, newsroom: str, beat: str, trust: str | None, root: Path) -> None:
    """Start a story: content/stories/<today>/<slug>.md with its front matter filled in."""
    from ..content.config import CONFIG_NAME, load_config

    config, findings = load_config(root / "content" / CONFIG_NAME)
    if config is None:
        print_findings(findings, err=True)
        sys.exit(1)
    for field, value, known in (("newsroom", newsroom, config.newsrooms), ("beat", beat, config.beats)):
        if value not in known:
            raise click.BadParameter(f"'{value}' is not one of {', '.join(sorted(known))}", param_hint=f"--{field}")
    if not slugify(title):  # the file would be named `.md`: hidden, never read
        raise click.BadParameter("has no letter or digit to name the story's file after", param_hint="TITLE")
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
