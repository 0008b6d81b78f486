"""`ledgerpress new`: start a story, as a draft whose placeholders `check` points at until they are filled."""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from pathlib import Path

import click

from .options import ROOT, detail, print_findings, require_site, say, verbosity

SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_SLUG = 70
# Placeholders that fail validation on purpose, so that `check` names each one until it is replaced.
MANIFEST_PLACEHOLDER = "REPLACE with a manifest id: run `ledgerpress manifest new` or `ledgerpress manifests pull`"
CLAIM_PLACEHOLDER = "REPLACE with the ids of the claims you use from that manifest"
BODY_PLACEHOLDER = "REPLACE with the manifest id"


def title_slug(title: str) -> str:
    """A URL slug that keeps the letters of any language: 'Café' -> 'cafe', 'Straße' -> 'strasse'."""
    from slugify import slugify

    return slugify(title, max_length=MAX_SLUG, word_boundary=True, replacements=[["'", ""], ["\u2019", ""]])


def published_at(value: str | None, now: dt.datetime) -> dt.datetime:
    """--date: an ISO 8601 date (at the current time of day) or date and time (UTC when it has no offset)."""
    if value is None:
        return now
    try:
        if len(value) == 10:
            day = dt.date.fromisoformat(value)
            return dt.datetime.combine(day, now.timetz())
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"'{value}' is not an ISO 8601 date (2026-11-20) or date and time "
                                 "(2026-11-20T14:30:00+01:00)", param_hint="--date") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)


@click.command()
@click.argument("title")
@click.option("--newsroom", required=True, help="Newsroom key from [newsrooms] in site.toml.")
@click.option("--beat", required=True, help="Beat key from [beats] in site.toml.")
@click.option("--trust", default=None, help="Trust level key from [trust] in site.toml (default: the first one).")
@click.option("--draft/--no-draft", default=True, show_default=True,
              help="Start it as a draft (checked, warned about, built only with --drafts).")
@click.option("--date", "date", default=None, metavar="ISO",
              help="Publication date or date and time, ISO 8601 (default: now; no offset means UTC).")
@click.option("--slug", default=None, help="URL slug, a-z, 0-9 and '-' (default: made from the title).")
@click.option("--author", "authors", multiple=True, metavar="SLUG",
              help="Author slug, a file content/authors/SLUG.md (repeat for several).")
@ROOT
@verbosity
def new(title: str, newsroom: str, beat: str, trust: str | None, draft: bool, date: str | None, slug: str | None,
        authors: tuple[str, ...], root: Path) -> None:
    """Start a story: writes content/stories/<date>/<slug>.md and prints its path."""
    from ..content.config import CONFIG_NAME, load_config

    require_site(root)
    config, findings = load_config(root / "content" / CONFIG_NAME, shown=f"content/{CONFIG_NAME}")
    if config is None:
        print_findings(findings, err=True)
        sys.exit(1)
    title = _title(title)
    _check_keys(config, newsroom=newsroom, beat=beat, trust=trust)
    slug = _slug(slug, title)
    _check_authors(root, authors)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    published = published_at(date, now)
    day = published.astimezone(dt.timezone.utc).date().isoformat()
    path = root / "content" / "stories" / day / f"{slug}.md"
    if path.exists():
        raise click.ClickException(f"{path} already exists: choose another --slug")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = skeleton(title, slug, published, newsroom, beat, trust or next(iter(config.trust)), draft, authors)
    with open(path, "x", encoding="utf-8") as out:
        out.write(text)
    click.echo(str(path))
    detail(f"slug {slug}, published {published.isoformat()}, {'a draft' if draft else 'not a draft'}")
    say("next: fill in the description and the ledger (`ledgerpress manifest new` makes a manifest), "
        "write the story, then `ledgerpress check`")


def _title(title: str) -> str:
    title = " ".join(title.split())
    if not title:
        raise click.BadParameter("the title is empty", param_hint="TITLE")
    if len(title) > 200:
        raise click.BadParameter(f"the title is {len(title)} characters; at most 200", param_hint="TITLE")
    return title


def _check_keys(config, **given: str | None) -> None:
    """Each of newsroom, beat and trust must be a key its table in site.toml declares."""
    for option, value in given.items():
        known = getattr(config, "newsrooms" if option == "newsroom" else "beats" if option == "beat" else option)
        if value is not None and value not in known:
            raise click.BadParameter(f"'{value}' is not one of {', '.join(sorted(known))} (from site.toml)",
                                     param_hint=f"--{option}")


def _slug(given: str | None, title: str) -> str:
    if given is not None:
        if not SLUG.match(given) or len(given) > MAX_SLUG:
            raise click.BadParameter(f"'{given}' is not a slug: a-z, 0-9 and single '-' between them, at most "
                                     f"{MAX_SLUG} characters", param_hint="--slug")
        return given
    made = title_slug(title)
    if not made:
        raise click.BadParameter("the title has no letters or digits to make a slug from: give --slug",
                                 param_hint="TITLE")
    return made


def _check_authors(root: Path, authors: tuple[str, ...]) -> None:
    from ..content.models import FrontMatter

    if authors and "authors" not in FrontMatter.model_fields:
        raise click.BadParameter("this version of ledgerpress has no `authors` field yet", param_hint="--author")
    for author in authors:
        if not SLUG.match(author) or not (root / "content" / "authors" / f"{author}.md").is_file():
            raise click.BadParameter(f"no author '{author}': add content/authors/{author}.md first",
                                     param_hint="--author")


def yaml_string(text: str) -> str:
    """A YAML double-quoted scalar that reads back as text: JSON's escapes, and YAML's line breaks escaped too."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").replace("\x85", "\\x85")


def skeleton(title: str, slug: str, published: dt.datetime, newsroom: str, beat: str, trust: str, draft: bool,
             authors: tuple[str, ...] = ()) -> str:
    """The new story's text: every required field, its slug pinned, and placeholders that `check` reports."""
    lines = ["---", f"title: {yaml_string(title)}",
             f"slug: {slug}  # pinned: the URL stays when the title changes",
             'description: ""  # required: one or two sentences that say what happened',
             f"published: {published.isoformat().replace('+00:00', 'Z')}",
             f"newsroom: {newsroom}", f"beat: {beat}", f"trust: {trust}"]
    if authors:
        lines.append(f"authors: {json.dumps(list(authors))}")
    if draft:
        lines.append("draft: true  # checked, but built only with --drafts: delete this line to publish")
    lines += ["ledger:  # the manifests this story rests on, and the claims it uses from each",
              f"  - manifest: {json.dumps(MANIFEST_PLACEHOLDER)}",
              f"    claims: [{json.dumps(CLAIM_PLACEHOLDER)}]",
              "---", "", "## What happened", "",
              "Write each paragraph from the claims it cites, and end it with the id of the manifest they come "
              f"from. [cites: {BODY_PLACEHOLDER}]", ""]
    return "\n".join(lines)
