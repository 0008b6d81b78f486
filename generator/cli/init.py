"""`ledgerpress init`: a new site that checks clean and builds, with one newsroom, one manifest and one story."""

from __future__ import annotations

import datetime as dt
import json
import tomllib
import unicodedata
from importlib import resources
from pathlib import Path
from string import Template

import click

from ..render.dates import iso_z
from .options import detail, say, verbosity, writing_files


@click.command(name="init")
@click.argument("directory", default=".", type=click.Path(file_okay=False, path_type=Path), metavar="[DIR]")
@click.option("--title", default=None, help="The site's name (default: made from the folder's name).")
@click.option("--base-url", default="https://example.org", show_default=True,
              help="The address the site will be published at; every canonical URL starts with it.")
@click.option("--force", is_flag=True, help="Start the site in a folder that already has files (none is replaced).")
@verbosity
def init(directory: Path, title: str | None, base_url: str, force: bool) -> None:
    """Start a new site in DIR (default: here): site.toml, a manifest, a story and two pages."""
    from ..content.manifest_store import mint_id, write_new

    title = " ".join((title if title is not None else _folder_title(directory)).split())
    if not title:
        raise click.BadParameter("the title is empty", param_hint="--title")
    if any(unicodedata.category(char) == "Cc" for char in title):
        raise click.BadParameter("the title has a control character", param_hint="--title")
    _refuse_unless_empty(directory, force)
    files = starter_files(title, base_url.rstrip("/"), dt.datetime.now(dt.timezone.utc), mint_id)
    _refuse_what_check_would(files["content/site.toml"])
    ignore = files.pop(".gitignore")
    existing = sorted(str(directory / name) for name in files if (directory / name).exists())
    if existing:
        raise click.ClickException(f"init never replaces a file, and these exist: {', '.join(existing)}")
    with writing_files():
        for name, text in files.items():
            write_new(directory / name, text)
            detail(f"wrote {directory / name}")
        _ignore(directory / ".gitignore", ignore)
    where = "" if directory == Path(".") else f"cd {directory} && "
    say(f"Started '{title}' in {directory.resolve()}.")
    say(f"next: {where}ledgerpress serve --open   (a preview that rebuilds on every save)")
    say(f"      {where}ledgerpress new \"Your first headline\" --newsroom news --beat general")


def _refuse_what_check_would(site_toml: str) -> None:
    """The site.toml init would write, read as `check` reads it: a title or base URL it would refuse stops init
    before anything is written, so that the site it starts checks clean."""
    from pydantic import ValidationError

    from ..content.config import SiteConfig

    try:
        SiteConfig.model_validate(tomllib.loads(site_toml))
    except ValidationError as err:
        error = err.errors()[0]
        field = str(error["loc"][0])
        if field == "base_url":
            raise click.BadParameter(f"'{error['input']}' is not an absolute http or https URL (a host name, then "
                                     "an optional path)", param_hint="--base-url") from None
        why = "it is longer than 200 characters" if error["type"] == "too_long" else error["msg"]
        raise click.BadParameter(f"the title cannot be a site's title: {why}", param_hint="--title") from None


def _ignore(path: Path, wanted: str) -> None:
    """Write .gitignore, or add to the one there the lines it lacks (a `git init` made it, say)."""
    from ..content.manifest_store import write_new, write_replacing

    try:
        before = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        write_new(path, wanted)
        detail(f"wrote {path}")
        return
    kept = set(before.splitlines())
    lacking = [line for line in wanted.splitlines() if line.startswith("/") and line not in kept]
    if lacking:
        write_replacing(path, before + ("" if before.endswith("\n") or not before else "\n") + "\n".join(lacking) + "\n")
        detail(f"added {', '.join(lacking)} to {path}")


def _folder_title(directory: Path) -> str:
    name = directory.resolve().name.replace("-", " ").replace("_", " ").strip()
    return name[:1].upper() + name[1:] if name else "News"


def _refuse_unless_empty(directory: Path, force: bool) -> None:
    """A folder with anything but hidden entries (.git, .venv) in it needs --force."""
    if directory.exists() and not directory.is_dir():
        raise click.ClickException(f"{directory} is a file, not a folder")
    visible = sorted(entry.name for entry in directory.iterdir() if not entry.name.startswith(".")) \
        if directory.is_dir() else []
    if visible and not force:
        shown = ", ".join(visible[:5]) + (", …" if len(visible) > 5 else "")
        raise click.ClickException(f"{directory} is not empty ({shown}): choose an empty folder, or pass --force "
                                   "to add the site beside what is there")


def starter_files(title: str, base_url: str, now: dt.datetime, mint) -> dict[str, str]:
    """The starter site's files by path, filled in: fresh ids, the story published now, its source an hour
    before (a cited manifest must not be newer than the story)."""
    now = now.replace(second=0, microsecond=0)
    manifest_id = mint()
    claims = [mint({manifest_id}) for _ in range(3)]
    while len(set(claims)) < 3:
        claims = [mint({manifest_id}) for _ in range(3)]
    values = {"title_string": json.dumps(title, ensure_ascii=False), "base_url_string": json.dumps(base_url),
              "about_url_string": json.dumps(f"{base_url}/about/"), "manifest_id": manifest_id,
              "claim_cites": claims[0], "claim_checked": claims[1], "claim_pages": claims[2],
              "story_published": iso_z(now), "manifest_published": iso_z(now - dt.timedelta(hours=1))}
    starter = resources.files(__package__).joinpath("starter")
    day = now.date().isoformat()
    names = {"content/site.toml": "content/site.toml",
             f"content/manifests/{manifest_id}.json": "content/manifests/manifest.json",
             f"content/stories/{day}/welcome.md": "content/stories/story.md",
             "content/pages/about.md": "content/pages/about.md",
             "content/pages/terms/reuse.md": "content/pages/terms/reuse.md",
             ".gitignore": "gitignore"}
    return {target: Template(starter.joinpath(source).read_text(encoding="utf-8")).substitute(values)
            for target, source in names.items()}


