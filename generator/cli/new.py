"""`ledgerpress new`: start a story, as a draft whose placeholders `check` points at until they are filled."""

from __future__ import annotations

from pathlib import Path

import click

from ..content.new_story import StoryAsked, StoryRefused, plan_story, write_story
from .options import ROOT, detail, echo, say, site_config, verbosity, writing_files


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
        authors: tuple[str, ...], root: Path) -> None:  # (click passes each option as a parameter)
    """Start a story: writes content/stories/<date>/<slug>.md and prints its path."""
    config = site_config(root)
    try:
        story = plan_story(root, config, StoryAsked(title, newsroom, beat, trust, draft, date, slug, authors))
    except StoryRefused as err:
        hint = "TITLE" if err.given == "title" else f"--{err.given}"
        raise click.BadParameter(err.message + (f": give --{err.instead}" if err.instead else ""),
                                 param_hint=hint) from None
    with writing_files():
        try:
            write_story(story)
        except FileExistsError as err:
            if Path(err.filename or "") != story.path:  # (a file where its folder goes)
                raise
            raise click.ClickException(f"{story.path} already exists: choose another --slug") from None
    echo(str(story.path))
    detail(f"slug {story.slug}, published {story.published.isoformat()}, "
           f"{'a draft' if story.draft else 'not a draft'}")
    say("next: fill in the description and the ledger (`ledgerpress manifest new` makes a manifest), "
        "write the story, then `ledgerpress check`")
