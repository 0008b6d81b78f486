"""`ledgerpress manifest new` (write a source record with a fresh id) and `ledgerpress manifests pull` (fetch
the manifests stories cite from the service that holds them)."""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

import click

from ..content.findings import counted
from ..content.layout import utc_date
from .options import (
    ROOT,
    detail,
    echo,
    print_findings,
    require_site,
    say,
    site_config,
    verbosity,
    writing_files,
)

_URL = re.compile(r"^https?://\S+$")


@click.group(name="manifest")
def manifest_group() -> None:
    """Make a manifest: one source record with its claims."""


@manifest_group.command(name="new")
@click.option("--title", required=True, help="What the source is, e.g. 'Council minutes, November session'.")
@click.option("--source-url", required=True, help="Where the source is published (http or https).")
@click.option("--source-name", default=None, help="Short name of the source (default: the URL's host).")
@click.option("--published", default=None, metavar="ISO",
              help="When the source was published, ISO 8601 (default: now; no offset means UTC).")
@click.option("--brief", default=None, help="Optional one-paragraph summary of the source.")
@click.option("--claim", "claims", multiple=True, metavar="TEXT",
              help="A claim, as the source states it (repeat for several; each gets a fresh id unless --claim-id "
                   "names it).")
@click.option("--id", "given_id", default=None, metavar="ID",
              help="The manifest's id, as the source's own system gives it (default: a fresh one): 1-64 letters, "
                   "digits, '_' or '-'.")
@click.option("--claim-id", "claim_ids", multiple=True, metavar="ID",
              help="The id of a claim, in the order of --claim: the first names the first claim, and so on "
                   "(claims past the last get fresh ids).")
@ROOT
@verbosity
def new_manifest(title: str, source_url: str, source_name: str | None, published: str | None, brief: str | None,
                 claims: tuple[str, ...], given_id: str | None, claim_ids: tuple[str, ...],
                 root: Path) -> None:  # (click passes each option as a parameter)
    """Write content/manifests/<id>.json (a fresh id, or --id) and print its path."""
    from ..content.manifest_store import checked_text, manifest_text, mint_id, write_new

    require_site(root)
    data = _record(title, source_url, source_name, _moment(published), brief)
    folder = root / "content" / "manifests"
    taken = {path.stem for path in folder.glob("*.json")}
    manifest_id = _given_id(given_id, taken) if given_id is not None else mint_id(taken)
    data = {"id": manifest_id, **data, "claims": []}
    named = _claim_ids(claim_ids, len(claims))
    for index, text in enumerate(claims or ("",)):
        known = {manifest_id, *named, *(c["id"] for c in data["claims"])}
        data["claims"].append({"id": named[index] if index < len(named) else mint_id(known), "text": text.strip()})
    path = folder / f"{manifest_id}.json"
    text = manifest_text(data)
    with writing_files():
        write_new(path, text)
    echo(str(path))
    detail(f"claim ids: {', '.join(claim['id'] for claim in data['claims'])}")
    print_findings(checked_text(manifest_id, text, f"content/manifests/{manifest_id}.json"), err=True)
    if not claims:
        say(f"next: write the source's claims in {path} (the empty one is reported until then)")
    say(f"cite it in a story's ledger as manifest: \"{manifest_id}\"")


def _given_id(given: str, taken: set[str]) -> str:
    from ..content.models import ID_PATTERN  # (here: the command line imports pydantic only to run a command)

    if not re.fullmatch(ID_PATTERN, given):
        raise click.BadParameter(f"'{given}' is not an id: expected 1-64 letters, digits, '_' or '-', e.g. "
                                 "INV-2026-0042", param_hint="--id")
    if given in taken:
        raise click.BadParameter(f"content/manifests/{given}.json exists already: expected an id no manifest has, "
                                 "or edit that file", param_hint="--id")
    return given


def _claim_ids(given: tuple[str, ...], claims: int) -> list[str]:
    from ..content.models import ID_PATTERN

    if len(given) > claims:
        raise click.BadParameter(f"{len(given)} claim ids for {claims} --claim: expected at most one id a claim",
                                 param_hint="--claim-id")
    for claim_id in given:
        if not re.fullmatch(ID_PATTERN, claim_id):
            raise click.BadParameter(f"'{claim_id}' is not an id: expected 1-64 letters, digits, '_' or '-', e.g. "
                                     "item-3", param_hint="--claim-id")
    repeated = sorted({claim_id for claim_id in given if given.count(claim_id) > 1})
    if repeated:
        raise click.BadParameter(f"'{repeated[0]}' is given twice: expected one id a claim", param_hint="--claim-id")
    return list(given)


def _record(title: str, url: str, name: str | None, published: dt.datetime, brief: str | None) -> dict:
    """The manifest's fields from the options, each checked as the manifest schema would."""
    if not title.strip():
        raise click.BadParameter("the title is empty", param_hint="--title")
    if not _URL.fullmatch(url):
        raise click.BadParameter(f"'{url}' is not an http or https URL", param_hint="--source-url")
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # https://[::1/ : a bracket left open
        raise click.BadParameter(f"'{url}' is not an http or https URL", param_hint="--source-url") from None
    name = (name if name is not None else host).strip()
    if not name:
        raise click.BadParameter("the source name is empty", param_hint="--source-name")
    data = {"title": title.strip(), "source": {"name": name, "url": url},
            "published": published.isoformat().replace("+00:00", "Z")}
    if brief and brief.strip():
        data["brief"] = brief.strip()
    return data


def _moment(value: str | None) -> dt.datetime:
    if value is None:
        return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    try:
        moment = dt.datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"'{value}' is not an ISO 8601 date and time (2026-11-20T09:00:00Z)",
                                 param_hint="--published") from None
    moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.timezone.utc)
    try:
        utc_date(moment)  # as the manifest schema checks it
    except ValueError as err:
        raise click.BadParameter(f"'{value}' {err}", param_hint="--published") from None
    return moment


@click.group(name="manifests")
def manifests_group() -> None:
    """Work with the manifests in content/manifests/."""


@manifests_group.command(name="pull")
@click.argument("ids", nargs=-1, metavar="[ID]...")
@ROOT
@verbosity
def pull_manifests(ids: tuple[str, ...], root: Path) -> None:
    """Fetch manifests from [manifests] store (default: those stories cite that are missing), validated."""
    from ..checks import manifest_findings
    from ..content.load import load_content
    from ..content.manifest_pull import TOKEN_VARIABLE, StoreError, pull
    from ..content.manifest_store import missing_ids

    config = site_config(root)
    if config.manifests is None:
        raise click.ClickException('no manifest store: add `[manifests]` with `store = "https://…/{id}"` to '
                                   "content/site.toml")
    wanted = list(dict.fromkeys(ids)) or missing_ids(root, load_content(root))
    if not wanted:
        say("nothing to pull: every manifest the stories cite is in content/manifests/")
        return
    token = os.environ.get(TOKEN_VARIABLE) or None
    detail(f"pulling {counted(len(wanted), 'manifest')} from {config.manifests.store}"
           f"{' with the token from ' + TOKEN_VARIABLE if token else ' without a token'}")
    outcomes: dict[str, int] = {}
    try:
        for pulled in pull(root, config.manifests, wanted, token, lambda found: manifest_findings(found, config)):
            for line in pulled.tries:
                detail(f"  retried after {line}")
            _report(pulled)
            outcomes[pulled.outcome] = outcomes.get(pulled.outcome, 0) + 1
    except StoreError as err:
        raise click.ClickException(str(err)) from None
    say(", ".join(f"{outcomes.get(name, 0)} {name}" for name in ("written", "updated", "unchanged", "failed")))
    sys.exit(1 if outcomes.get("failed") else 0)


def _report(pulled) -> None:
    shown = f"content/manifests/{pulled.id}.json"
    print_findings(pulled.findings, err=True)
    if pulled.outcome in ("written", "updated"):
        echo(f"{pulled.outcome} {shown}")
    elif pulled.outcome == "unchanged":
        detail(f"unchanged {shown}")
    elif pulled.error:
        echo(f"error: {pulled.error}", err=True)
