"""schema.org structured data (JSON-LD) for each kind of page, as search engines and link previews read it: a
story is a NewsArticle, the front page a WebSite published by an Organization, an author's page a
ProfilePage about a Person, a manifest's page a source record (a CreativeWork of Claims)."""

from __future__ import annotations

from typing import Any

from ..content.config import SiteConfig

CONTEXT = "https://schema.org"
SEARCH_PATH = "/search/"  # the search page, which the front page's structured data names as the way to search


def organization(config: SiteConfig) -> dict[str, Any]:
    return {"@type": "NewsMediaOrganization", "@id": config.url("/#organization"), "name": config.title,
            "url": config.url("/"), "logo": {"@type": "ImageObject", "url": config.url("/favicon.svg")}}


def person(author: Any) -> dict[str, Any]:
    """An author as a Person: their page here is the url, their own address (if any) is sameAs."""
    found = {"@type": "Person", "name": author.name, "url": author.url}
    if author.role:
        found["jobTitle"] = author.role
    if author.profile:
        found["sameAs"] = [author.profile]
    return found


def image_object(image: Any) -> dict[str, Any]:
    found = {"@type": "ImageObject", "url": image.url, "contentUrl": image.url, "width": image.width,
             "height": image.height, "encodingFormat": image.type, "description": image.alt}
    if image.caption:
        found["caption"] = image.caption
    if image.credit:
        found["creditText"] = image.credit
    return found


def news_article(story: Any, config: SiteConfig) -> dict[str, Any]:
    """schema.org NewsArticle for a story view: its authors (else the organization), its images, a citation per
    manifest, and its corrections."""
    publisher = organization(config)  # the front page's organization, by the same @id
    found = {
        "@context": CONTEXT, "@type": "NewsArticle", "headline": story.title,
        "description": story.description, "url": story.url, "mainEntityOfPage": story.canonical,
        "datePublished": story.published, "dateModified": story.updated, "inLanguage": config.language,
        "articleSection": [story.newsroom.name, story.beat.name],
        "author": [person(author) for author in story.authors] or publisher, "publisher": publisher,
        "citation": [{"@type": "CreativeWork", "name": row.title, "url": row.source_url,
                      "datePublished": row.published, "identifier": row.manifest_id} for row in story.ledger],
    }
    if story.images:
        found["image"] = [image_object(image) for image in story.images]
    if story.corrections:
        found["correction"] = [{"@type": "CorrectionComment", "text": correction.text,
                                "datePublished": correction.date, "url": f"{story.url}#{correction.anchor}"}
                               for correction in story.corrections]
    return found


def website(config: SiteConfig) -> dict[str, Any]:
    """The front page: the site, its publisher, and how to search it."""
    site = {"@type": "WebSite", "@id": config.url("/#website"), "name": config.title, "url": config.url("/"),
            "inLanguage": config.language, "publisher": {"@id": config.url("/#organization")},
            "potentialAction": {"@type": "SearchAction",
                                "target": {"@type": "EntryPoint",
                                           "urlTemplate": config.url(SEARCH_PATH) + "?q={query}"},
                                "query-input": "required name=query"}}
    if config.description:
        site["description"] = config.description
    return {"@context": CONTEXT, "@graph": [site, organization(config)]}


def profile_page(about: Any, config: SiteConfig) -> dict[str, Any]:
    """An author's page: a ProfilePage about the Person."""
    return {"@context": CONTEXT, "@type": "ProfilePage", "url": about.author.url, "mainEntity": person(about.author),
            "isPartOf": {"@type": "WebSite", "name": config.title, "url": config.url("/")}}


def source_record(manifest: Any, config: SiteConfig) -> dict[str, Any]:
    """A manifest's page: the record as a citable CreativeWork, based on its source and made of its Claims."""
    found = {
        "@context": CONTEXT, "@type": "CreativeWork", "name": manifest.title, "identifier": manifest.id, "url": manifest.url, "datePublished": manifest.published,
        "isBasedOn": manifest.source_url, "sourceOrganization": {"@type": "Organization", "name": manifest.source_name},
        "isPartOf": {"@type": "WebSite", "name": config.title, "url": config.url("/")},
        "hasPart": [{"@type": "Claim", "identifier": claim.id, "text": claim.text} for claim in manifest.claims],
    }
    if manifest.brief:
        found["abstract"] = manifest.brief
    if manifest.retracted:
        found["creativeWorkStatus"] = "Retracted"
    return found
