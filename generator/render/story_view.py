"""The one StoryView: every derived field the three variants (and the JSON schema) share."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import ConfigDict, Field

from ..checks import RULES
from ..checks.alignment import front_alignment, place_rows
from ..checks.waivers import reasons
from ..content.config import SiteConfig
from ..content.findings import counted
from ..content.image_files import ImageFile
from ..content.models import Story
from .bylines import AuthorView, author_views, byline
from .correction_views import CorrectionView, correction_views, last_changed
from .dates import iso_z, local_day, shown_time
from .image_views import ImageView, image_view
from ..content.kinds import KINDS, KINDS_TABLE
from ..content.slugs import title_slug
from .ledger_rows import ClaimView, LedgerRow, Verify, ledger_rows, verify_view
from .sections import SectionView, SentenceView, sentence_views
from .story_job import StoryJob
from .view import View

__all__ = ["ClaimView", "LedgerRow", "Verify", "View", "iso_z", "ledger_rows"]  # (others import them from here)

VIEW_VERSION = "1"


class Term(View):
    """A term a story is filed under, with its display name (newsroom, beat, edition, trust level)."""

    slug: str
    name: str
    url: str | None = None


class Links(View):
    """The three variants' URLs; `json` is a reserved name in pydantic, hence the alias."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, extra="forbid", frozen=True, defer_build=True)

    html: str
    json_: str = Field(alias="json")
    markdown: str


class KeyFactView(View):
    text: str
    labels: list[str]
    cites: list[str]
    sentences: list[SentenceView]


class AlignedView(View):
    """A line of the story outside its body (the title, the description, a heading, the lead image's caption, a
    correction) and its sentences, each with the claims that state it."""

    place: str
    text: str
    sentences: list[SentenceView]


class DecisionCardView(View):
    useful_for: list[str]
    not_for: list[str]
    compare_against: list[str]


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

    model_config = ConfigDict(use_attribute_docstrings=True)  # each field's docstring describes it in the schema

    view_version: str
    """The version of this layout of fields."""
    title: str
    """The headline, as written in the front matter."""
    description: str
    """The standfirst: one or two sentences that say what the story is."""
    slug: str
    """The story's name in its address: the last part of `path`."""
    path: str
    """Where the story is on the site, from its root: /stories/<published date, UTC>/<slug>/."""
    url: str
    """The story's absolute address (base_url followed by `path`)."""
    canonical: str
    """The address search engines and feeds are given for the story: the same as `url`."""
    published: str
    """When the story was published, in UTC (ISO 8601: 2026-11-20T10:15:00Z)."""
    updated: str
    """When the story last changed: the latest of `published`, its `updated` and its corrections' dates, as
    ISO 8601 (a day, 2026-11-22, or a time in UTC)."""
    last_updated: str
    """The day (YYYY-MM-DD, in UTC) of `updated`."""
    edition: str
    """The edition the story is in: its own `edition`, else the day (in the site's time zone) or hour (UTC, as
    2026-11-20T10) it was published."""
    newsroom: Term
    """The newsroom that publishes it, with the address of the newsroom's page."""
    beat: Term
    """Its beat, with the address of the beat's page."""
    trust: Term
    """How much weight the story can bear: a key of site.toml's [trust], with its name."""
    terms: dict[str, list[Term]] = Field(default_factory=dict, exclude_if=lambda terms: not terms)
    """Its terms of the kinds that have no field of their own here (tags, series), by kind, each with the
    address of its page; absent when it has none."""
    source_count: int
    """How many manifests its ledger lists."""
    cited_manifest_ids: list[str]
    """The ids of the manifests its ledger lists, in ledger order."""
    authors: list[AuthorView]
    """Who wrote it, in the order the front matter names them."""
    byline: str
    """The authors as one line for readers ("By Mara Okafor and Jun Park"); empty without authors."""
    trust_line: str
    """One line for readers: trust level, number of sources, newsroom and when it was published (in the site's
    time zone and date format)."""
    image: ImageView | None
    """The lead image, if the front matter names one and its file can be read."""
    images: list[ImageView]
    """Every image the story shows, the lead image first, each once."""
    corrections: list[CorrectionView]
    """Its corrections, oldest first."""
    key_facts: list[KeyFactView]
    """The short facts shown above the story, each with the manifests it comes from and its sentences with the
    claims that state them."""
    alignment: list[AlignedView]
    """The title, description, headings, the lead image's caption and the corrections, each sentence with the
    claims of the story's ledger that state it (a body paragraph's are in `sections`, a key fact's in
    `key_facts`)."""
    sections: list[SectionView]
    """The body in sections: each `## ` (or `# `) heading opens one, with its title and anchor; what comes
    before the first heading, if anything, is a section without a title."""
    unresolved: list[str]
    """What the story could not establish yet."""
    decision_card: DecisionCardView | None
    """For readers deciding what to do with the story: who it is useful for, not for, and what to compare."""
    ledger: list[LedgerRow]
    """Its provenance ledger: each manifest it cites, numbered, with the claims the story uses from it."""
    verify: Verify | None
    """How a reader fetches the cited records themselves (site.toml's [verify]), if the site says."""
    related: list[RelatedView]
    """Stories of this site related to it (sharing distinctive words, manifests or passages), those of the same
    newsroom first."""
    links: Links
    """The addresses of the story's three variants: HTML, JSON (this file) and Markdown."""
    checks: list[str]
    """The codes of the checks that ran on the story and passed."""
    waivers: list[Waiver]
    """The rules the story is exempt from, each with the reason it publishes anyway."""
    checks_line: str
    """One sentence for readers naming the checks that passed, and each rule waived."""
    reuse: Reuse
    """The terms on which others may republish the story (site.toml's [reuse])."""


def filed_terms(story: Story, config: SiteConfig) -> dict[str, list[Term]]:
    """The story's terms of each kind whose row (content/kinds.py) has the view hold them under `terms`: named as
    site.toml declares them, else as the story writes them (and given a slug of their letters)."""
    found = {}
    for kind in KINDS_TABLE:
        if kind.front is None or not kind.field.startswith("terms."):
            continue
        given = getattr(story.meta, kind.front)
        table = getattr(config, kind.declared) if kind.declared else None
        terms: dict[str, Term] = {}
        for value in given if kind.many else [] if given is None else [given]:
            slug = value if table is not None else title_slug(value)
            if slug and slug not in terms:
                terms[slug] = Term(slug=slug, name=table.get(value, value) if table is not None else value,
                                   url=config.url(kind.path(slug)) if kind.pages else None)
        if terms:
            found[kind.name] = list(terms.values())
    return found


def edition_of(story: Story, config: SiteConfig) -> str:
    """The story's edition: its own, else the hour (UTC) or the day (in the site's time zone) it was published."""
    if story.meta.edition:
        return story.meta.edition
    if config.edition == "day":
        return local_day(story.meta.published, config.timezone)
    return story.published_utc.strftime("%Y-%m-%dT%H")


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


def story_view(story: Story, sections: list[SectionView], job: StoryJob, config: SiteConfig) -> StoryView:
    """Every derived field of one story, computed once for all three variants, from its file (`story`, its
    body rendered as `sections`), what its job resolved, and site.toml."""
    meta = story.meta
    url = config.url(story.url_path)
    manifests = job.manifests_by_id()
    ledger = ledger_rows(story, manifests, config)
    passed = list(job.passed)
    updated, last_updated = last_changed(story, job.corrections)
    # (a key site.toml does not declare is shown as written: LP010 must have been turned off)
    trust = Term(slug=meta.trust, name=config.trust.get(meta.trust, meta.trust))
    newsroom = Term(slug=meta.newsroom, name=config.newsrooms.get(meta.newsroom, meta.newsroom),
                    url=config.url(KINDS["newsroom"].path(meta.newsroom)))
    sources = len(ledger)
    published = story.published_utc
    ids = [row.manifest_id for row in ledger]
    card = meta.decision_card
    waivers = [Waiver(code=code, rule=rule, reason=reason) for code, rule, reason in reasons(meta.waive)]
    writers = author_views(meta.authors, {author.slug: author for author in job.authors}, config)
    lead, pictures = _images(story, job.images_by_src(), [(image.src, alt) for image, alt in job.images], config)
    front, claims = front_alignment(story, manifests, [section.title for section in sections if section.title])
    facts = [place for place in front if place.kind == "key fact"]
    return StoryView(
        view_version=VIEW_VERSION, title=meta.title, description=meta.description, slug=story.slug,
        path=story.url_path, url=url, canonical=url, published=iso_z(published), updated=updated,
        last_updated=last_updated, edition=edition_of(story, config), newsroom=newsroom,
        beat=Term(slug=meta.beat, name=config.beats.get(meta.beat, meta.beat),
                  url=config.url(KINDS["beat"].path(meta.beat))),
        trust=trust, terms=filed_terms(story, config), source_count=sources, cited_manifest_ids=ids, authors=writers, byline=byline(writers),
        trust_line=f"{trust.name} · {counted(sources, 'source')} · {newsroom.name} · "
                   f"Published {shown_time(iso_z(published), config.timezone, config.date_format)}",
        image=lead, images=pictures, corrections=correction_views(story, job.corrections),
        key_facts=[KeyFactView(text=f.text, labels=f.labels, cites=f.cites, sentences=sentence_views(place_rows(place, claims)))
                   for f, place in zip(meta.key_facts, facts)],
        alignment=[AlignedView(place=place.kind, text=place.text, sentences=sentence_views(place_rows(place, claims)))
                   for place in front if place.kind != "key fact"],
        sections=sections, unresolved=list(meta.unresolved),
        decision_card=DecisionCardView(**card.model_dump()) if card else None,
        ledger=ledger, verify=verify_view(config, ids), related=related_views(job.related, config),
        links=Links(html=url, json=url + "index.json", markdown=url + "index.md"),
        checks=passed, waivers=waivers, checks_line=checks_line(passed, waivers),
        reuse=Reuse(version=config.reuse.version, text=config.reuse.text, credit=config.reuse.credit,
                    terms_url=config.url(config.reuse.terms_path)),
    )


def _images(story: Story, images: Mapping[str, ImageFile], shown: Iterable[tuple[str, str]],
            config: SiteConfig) -> tuple[ImageView | None, list[ImageView]]:
    """The lead image, and every image the story shows (the lead image first, each once); an image whose file
    is missing or unreadable is left out (LP070 reports it)."""
    given = story.meta.image
    lead = None
    if given is not None and given.src in images:
        lead = image_view(images[given.src], given.alt, given.caption, given.credit, config)
    views = [lead] if lead else []
    seen = {given.src} if given else set()
    for src, alt in shown:
        if src in images and src not in seen:
            seen.add(src)
            views.append(image_view(images[src], alt, None, None, config))
    return lead, views
