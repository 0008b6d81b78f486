"""corrections/: every correction of every story, newest first (paginated like a list), and its Atom feed,
corrections/feed.xml: a reader following it learns of each correction as it is published."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from ..content.models import ManifestFile
from ..render.dates import iso_z, moment
from ..render.ledger_rows import manifest_path
from ..render.teaser import Teaser
from .feeds import FEED_SIZE
from .lists import Pager, paginate
from .moments import EPOCH, modified
from .outputs import SITE_TOML, Output, Site, output_file, producer

PATH = "/corrections/"


@dataclass(frozen=True)
class CorrectionEntry:
    """One correction and the story it corrects: `date` as ISO 8601 (a day or a UTC time), `moment` as a UTC
    time (a day is its first moment), `url` the correction on the story's page."""

    story: Teaser
    number: int
    anchor: str
    date: str
    moment: str
    text: str
    manifest_id: str | None
    manifest_title: str | None = None  # the title of the source record it names, when the site has it

    @property
    def url(self) -> str:
        return f"{self.story.url}#{self.anchor}"

    @property
    def manifest_path(self) -> str | None:
        """The page of the source record the correction is about (under base_path), if it names one."""
        return manifest_path(self.manifest_id) if self.manifest_id else None


@dataclass(frozen=True)
class CorrectionsPage:
    path: str
    entries: list[CorrectionEntry]
    pager: Pager


def corrections(stories: Sequence[Teaser], manifests: Mapping[str, ManifestFile]) -> list[CorrectionEntry]:
    """Every correction of these stories, newest first (the story's URL, then its number, break ties). Only
    the stories whose keys show a correction are read."""
    found = []
    for story in stories:
        if story.keys["corrections.date"]:
            for item in story.corrections:
                named = manifests.get(item.manifest_id) if item.manifest_id else None
                found.append(CorrectionEntry(story, item.number, item.anchor, item.date, iso_z(moment(item.date)),
                                             item.text, item.manifest_id,
                                             named.manifest.title if named is not None else None))
    return sorted(found, key=lambda entry: (entry.moment, entry.story.path, entry.number), reverse=True)


@producer()
def corrections_pages(site: Site) -> Iterator[Output]:
    """corrections/ (page/2/, … after page_size corrections) and corrections/feed.xml."""
    entries = corrections(site.stories, site.manifests)
    for path, chunk, pager in paginate(entries, PATH, site.config.page_size):
        yield Output(output_file(path), SITE_TOML, "corrections.html",
                     {"page": CorrectionsPage(path, chunk, pager)})
    newest = max((modified(story) for story in site.stories), default=EPOCH)
    updated = entries[0].moment if entries else newest
    yield Output(output_file(PATH, "feed.xml"), SITE_TOML, "corrections.xml",
                 {"entries": entries[:FEED_SIZE], "updated": updated})
