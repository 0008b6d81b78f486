"""LP10x: each manifest file is named by its id and lists each claim once."""

from __future__ import annotations

from collections.abc import Iterator

from ..content.findings import Finding
from ..content.models import ManifestFile
from . import SiteIndex, rule


@rule("LP101", "manifest", "a manifest's id differs from its file name")
def id_is_name(found: ManifestFile, site: SiteIndex) -> Iterator[Finding]:
    if found.plain or found.manifest.id == found.name:
        return
    first = site.manifests.get(found.manifest.id)
    if first is not None and first.path != found.path:  # citations of this id reach the other file, not this one
        yield found.source.finding(("id",), "LP101", f"manifest id '{found.manifest.id}' is the id of {first.path} "
                                   f"already: expected \"id\": \"{found.name}\", an id of its own")
        return
    yield found.source.finding(("id",), "LP101",
                               f"manifest id '{found.manifest.id}' differs from its file name '{found.name}.json': "
                               f"expected \"id\": \"{found.name}\", or the file renamed {found.manifest.id}.json")


@rule("LP102", "manifest", "a manifest lists a claim id twice")
def claims_once(found: ManifestFile, site: SiteIndex) -> Iterator[Finding]:
    if found.plain:  # checked when it was read
        return
    seen: set[str] = set()
    for i, claim in enumerate(found.manifest.claims):
        if claim.id in seen:
            yield found.source.finding(("claims", i, "id"), "LP102", f"claim id '{claim.id}' is listed twice: "
                                       "expected each claim with an id of its own")
        seen.add(claim.id)
