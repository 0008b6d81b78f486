"""The one StoryView: every derived field the three variants (and the JSON schema) share."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..checks import RULES
from ..checks.support import Evidence as Evidence_
from ..checks.support import evidence
from ..checks.waivers import reasons
from ..content.body import Body, render_block
from ..content.config import SiteConfig
from ..content.models import ManifestFile, Story
from .formats import sh_url, sh_word

VIEW_VERSION = "1"


class View(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Term(View):
    """A declared key with its display name (newsroom, beat, trust level)."""

    slug: str
    name: str
    url: str | None = None


class Links(View):
    """The three variants' URLs; `json` is a reserved name in pydantic, hence the alias."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, extra="forbid", frozen=True, defer_build=True)

    html: str
    json_: str = Field(alias="json")
    markdown: str


class Evidence(View):
    """The claims of one cited manifest that back a block, best match first (their texts are in the ledger)."""

    manifest_id: str
    claims: list[str]


class Paragraph(View):
    """A top-level block of the body: paragraph, list, table, quote, code or sub-heading."""

    kind: str
    markdown: str
    html: str
    cites: list[str]
    evidence: list[Evidence]


class SectionView(View):
    title: str | None
    anchor: str | None
    paragraphs: list[Paragraph]


class KeyFactView(View):
    text: str
    labels: list[str]
    cites: list[str]


class DecisionCardView(View):
    useful_for: list[str]
    not_for: list[str]
    compare_against: list[str]


class ClaimView(View):
    id: str
    text: str


class LedgerRow(View):
    manifest_id: str
    number: int
    title: str
    source_name: str
    source_url: str
    published: str
    claims: list[ClaimView]
    manifest_url: str
    manifest_path: str
    verify_url: str | None


class Verify(View):
    endpoint: str
    header: str | None
    urls: list[str]
    command: str


class RelatedView(View):
    key: str
    title: str
    url: str
    path: str


class Waiver(View):
    """A rule this story is exempt from, and the reason it publishes."""

    code: str
    rule: str
    reason: str


class Reuse(View):
    version: str
    text: str
    credit: str
    terms_url: str


class StoryView(View):
    """A story as every output sees it; index.json is exactly this, and its schema is this model's."""

    view_version: str
    title: str
    description: str
    slug: str
    path: str
    url: str
    canonical: str
    published: str
    updated: str
    last_updated: str
    edition: str
    newsroom: Term
    beat: Term
    trust: Term
    source_count: int
    cited_manifest_ids: list[str]
    byline: str
    key_facts: list[KeyFactView]
    sections: list[SectionView]
    unresolved: list[str]
    decision_card: DecisionCardView | None
    ledger: list[LedgerRow]
    verify: Verify | None
    related: list[RelatedView]
    links: Links
    checks: list[str]
    waivers: list[Waiver]
    checks_line: str
    reuse: Reuse


def iso_z(moment: dt.datetime) -> str:
    """UTC, second precision, with a Z: 2026-10-20T12:51:00Z."""
    return moment.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _updated(story: Story) -> tuple[str, str]:
    """(updated as ISO text, its date) — the published time when the story says nothing."""
    value = story.meta.updated
    if value is None:
        value = story.meta.published
    if isinstance(value, dt.datetime):
        return iso_z(value), value.astimezone(dt.timezone.utc).date().isoformat()
    return value.isoformat(), value.isoformat()


def _edition(story: Story) -> str:
    return story.meta.edition or story.published_utc.strftime("%Y-%m-%dT%H")


def ledger_rows(story: Story, manifests: dict[str, ManifestFile], config: SiteConfig) -> list[LedgerRow]:
    """The ledger in its front-matter order, each used claim with its text. A manifest or claim that does
    not exist is left out (its rule, LP022 or LP024, must have been turned off for the story to get here);
    the rows keep their ledger numbers, which the body's citations use."""
    rows = []
    for number, entry in enumerate(story.meta.ledger, start=1):
        found = manifests.get(entry.manifest)
        if found is None:
            continue
        fields, claims = _manifest_row(found, config)
        rows.append(LedgerRow(**fields, number=number,
                              claims=[claims[claim_id] for claim_id in entry.claims if claim_id in claims]))
    return rows


def _manifest_row(found: ManifestFile, config: SiteConfig) -> tuple[dict[str, Any], dict[str, ClaimView]]:
    """What every ledger row citing this manifest holds besides its number and claims, and its claims as
    views by id: made once a manifest (many stories cite each), known by its file's digest and the settings
    its URLs come from."""
    key = (found.manifest.id, found.digest, config.root_url, config.verify.endpoint if config.verify else None)
    made = _MANIFEST_ROWS.get(key)  # none is kept for a manifest without a digest
    if made is None:
        manifest = found.manifest
        made = ({"manifest_id": manifest.id, "title": manifest.title, "source_name": manifest.source.name,
                 "source_url": manifest.source.url, "published": iso_z(manifest.published),
                 "manifest_url": config.url(f"/manifests/{manifest.id}/"), "manifest_path": f"/manifests/{manifest.id}/",
                 "verify_url": config.verify.endpoint.replace("{id}", manifest.id) if config.verify else None},
                {claim.id: ClaimView(id=claim.id, text=claim.text) for claim in manifest.claims})
        if found.digest:
            if len(_MANIFEST_ROWS) >= 1 << 16:  # a preview server rebuilds for hours: keep it bounded
                _MANIFEST_ROWS.clear()
            _MANIFEST_ROWS[key] = made
    return made


_MANIFEST_ROWS: dict[tuple, tuple[dict[str, Any], dict[str, ClaimView]]] = {}


def story_sections(story: Story, body: Body, manifests: dict[str, ManifestFile]) -> list[SectionView]:
    """The body as rendered sections: cite markers numbered by ledger order, titled by their manifest."""
    return sections_of(section_rows(story, body, manifests))


SectionRow = tuple[str | None, str | None, list[tuple[str, str, str, list[str], Evidence_]]]


def section_rows(story: Story, body: Body, manifests: dict[str, ManifestFile]) -> list[SectionRow]:
    """story_sections as plain tuples, (title, anchor, [(kind, markdown, html, cites, evidence)]): what a build
    keeps between reading a story and rendering its page (quicker to make, pickle and load than the models)."""
    env = {"sources": {}}
    for number, entry in enumerate(story.meta.ledger, start=1):
        found = manifests.get(entry.manifest)
        env["sources"][entry.manifest] = (number, found.manifest.title if found else entry.manifest)
    backing = iter(evidence(story, body, manifests))
    return [(section.title, section.anchor,
             [(block.kind, block.markdown, render_block(block, env), block.cited_ids, next(backing))
              for block in section.blocks])
            for section in body.sections]


def sections_of(rows: list[SectionRow]) -> list[SectionView]:
    return [SectionView(title=title, anchor=anchor, paragraphs=[
                Paragraph(kind=kind, markdown=markdown, html=html, cites=cites,
                          evidence=[Evidence(manifest_id=manifest_id, claims=list(claims)) for manifest_id, claims in evidence])
                for kind, markdown, html, cites, evidence in paragraphs])
            for title, anchor, paragraphs in rows]


def _verify(config: SiteConfig, ids: list[str]) -> Verify | None:
    """The shell loop a reader pastes to fetch the cited manifests: every word quoted for the shell (ids,
    the header, the URL around "$id"), so nothing in site.toml runs on the reader's machine."""
    if config.verify is None:
        return None
    endpoint = config.verify.endpoint
    header = f"-H {sh_word(config.verify.header)} " if config.verify.header else ""
    command = (f"for id in {' '.join(sh_word(i) for i in ids)}; do\n"
               f"  curl -s {header}{sh_url(endpoint, '{id}', 'id')}\n"
               "done")
    return Verify(endpoint=endpoint, header=config.verify.header,
                  urls=[endpoint.replace("{id}", i) for i in ids], command=command)


def related_views(related: Iterable[tuple[str, str, str]], config: SiteConfig) -> list[RelatedView]:
    """The related stories, each given as (key, title, URL path)."""
    return [RelatedView(key=key, title=title, url=config.url(path), path=path) for key, title, path in related]


def checks_line(passed: list[str], waivers: list[Waiver] = ()) -> str:
    """One sentence naming only the checks that ran and passed for this story, and one per rule it waives."""
    phrases = [RULES[code].passes for code in sorted(passed) if code in RULES and RULES[code].passes]
    if not phrases:
        line = "Published without automated provenance checks."
    else:
        listed = phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + ", and " + phrases[-1]
        line = f"Published after build checks: {listed}."
    for waiver in waivers:
        line += f" Check {waiver.code} ({waiver.rule}) waived: {waiver.reason.rstrip('.')}."
    return line


def story_view(story: Story, sections: list[SectionView], manifests: dict[str, ManifestFile], config: SiteConfig,
               related: list[RelatedView], passed: list[str]) -> StoryView:
    """Every derived field of one story, computed once for all three variants."""
    meta = story.meta
    url = config.url(story.url_path)
    ledger = ledger_rows(story, manifests, config)
    updated, last_updated = _updated(story)
    # (a key site.toml does not declare is shown as written: LP010 must have been turned off)
    trust = Term(slug=meta.trust, name=config.trust.get(meta.trust, meta.trust))
    newsroom = Term(slug=meta.newsroom, name=config.newsrooms.get(meta.newsroom, meta.newsroom),
                    url=config.url(f"/newsrooms/{meta.newsroom}/"))
    sources = len(ledger)
    published = story.published_utc
    ids = [row.manifest_id for row in ledger]
    card = meta.decision_card
    waivers = [Waiver(code=code, rule=rule, reason=reason) for code, rule, reason in reasons(meta.waive)]
    return StoryView(
        view_version=VIEW_VERSION, title=meta.title, description=meta.description, slug=story.slug,
        path=story.url_path, url=url, canonical=url, published=iso_z(published), updated=updated,
        last_updated=last_updated, edition=_edition(story), newsroom=newsroom,
        beat=Term(slug=meta.beat, name=config.beats.get(meta.beat, meta.beat), url=config.url(f"/beats/{meta.beat}/")),
        trust=trust, source_count=sources, cited_manifest_ids=ids,
        byline=f"{trust.name} · {sources} source{'s' if sources != 1 else ''} · {newsroom.name} · "
               f"Published {published.strftime('%Y-%m-%d %H:%M')} UTC",
        key_facts=[KeyFactView(text=f.text, labels=f.labels, cites=f.cites) for f in meta.key_facts],
        sections=sections, unresolved=list(meta.unresolved),
        decision_card=DecisionCardView(**card.model_dump()) if card else None,
        ledger=ledger, verify=_verify(config, ids), related=related,
        links=Links(html=url, json=url + "index.json", markdown=url + "index.md"),
        checks=passed, waivers=waivers, checks_line=checks_line(passed, waivers),
        reuse=Reuse(version=config.reuse.version, text=config.reuse.text, credit=config.reuse.credit,
                    terms_url=config.url(config.reuse.terms_path)),
    )
