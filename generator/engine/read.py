"""Reading story files, on every core: each file parsed once, checked by its local rules, and (when building)
its body rendered into sections that wait in a scratch file for the story's pages."""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..analysis.similarity import features
from ..checks import local_findings
from ..content.body import parse_body
from ..content.cites import cited_ids
from ..content.config import SiteConfig
from ..content.findings import SourceMap
from ..content.layout import file_digest
from ..content.image_files import ImageFile
from ..content.limits import MAX_STORY_BYTES
from ..content.models import FrontMatter, ImageUse, ManifestFile, Story
from ..content.source import front_matter, read_bounded
from ..content.story_files import load_story
from ..render.sections import SectionView, section_rows, sections_of
from ..output.whole_files import write_all
from .records import StoryRecord
from .scratch import clear_leftovers


class Spilled(NamedTuple):
    """Where one story's rendered sections wait: a scratch file, an offset, a size."""

    name: str
    offset: int
    size: int


class Spill:
    """Rendered story bodies waiting for their pages, on disk (in the page cache), not in the build's memory:
    a large site's bodies are a gigabyte. Each process appends to a scratch file of its own in a folder of
    `top` (the output store's scratch folder, else the system's temporary folder); close() removes it, and a
    build removes those of builds that were killed."""

    PREFIX = "ledgerpress-spill-"

    def __init__(self, top: str | None = None) -> None:
        top = top or tempfile.gettempdir()
        clear_leftovers(top, self.PREFIX)
        self.folder = tempfile.mkdtemp(prefix=f"{self.PREFIX}{os.getpid()}-", dir=top)
        self._writer: tuple[int, str, int] | None = None  # (process id, file, descriptor) of this process

    def put(self, data: bytes) -> Spilled:
        if self._writer is None or self._writer[0] != os.getpid():  # a forked worker writes a file of its own
            name = os.path.join(self.folder, str(os.getpid()))
            self._writer = (os.getpid(), name, os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        _, name, descriptor = self._writer
        offset = os.lseek(descriptor, 0, os.SEEK_END)
        write_all(descriptor, data)
        return Spilled(name, offset, len(data))

    def get(self, spilled: Spilled) -> bytes:
        with open(spilled.name, "rb") as source:
            source.seek(spilled.offset)
            return source.read(spilled.size)

    def close(self) -> None:
        if self._writer is not None and self._writer[0] == os.getpid():
            os.close(self._writer[2])
        self._writer = None
        shutil.rmtree(self.folder, ignore_errors=True)


@dataclass(frozen=True)
class Reading:
    """What reading a story needs besides its file: the site's settings and manifests, and (when building) where
    to put its sections."""

    root: str
    config: SiteConfig
    manifests: Mapping[str, ManifestFile]
    spill: Spill | None
    images: Mapping[str, ImageFile] = field(default_factory=dict)  # by src: how the body shows each
    texts: Mapping[str, bytes] = field(default_factory=dict)  # story files' bytes given instead of read


class Read(NamedTuple):
    """One story as read, as a worker sends it: its record, its features as plain data (quicker to send than
    their arrays; the record takes them as Features in the parent) and where its sections wait."""

    record: StoryRecord
    features: tuple | None = None
    spilled: Spilled | None = None


def read_story(reading: Reading, shown: str) -> Read:
    """Read one story file, parse its body once, run its local rules, and (when building) render its sections.
    The body text is not kept: what needs it later has it in another form, or reads the file again."""
    data = reading.texts.get(shown)
    if data is None:
        data, refused = read_bounded(os.path.join(reading.root, shown), shown, MAX_STORY_BYTES)
        if data is None:
            return Read(StoryRecord(shown, "", {}, refused))
    code = file_digest(data)
    story, findings = load_story(os.path.join(reading.root, shown), shown, data, reading.config.edition)
    if story is None:
        return Read(StoryRecord(shown, code, {}, findings))
    body = parse_body(story.body, story.body_line)
    local = local_findings(story, body, reading.config, reading.manifests)
    if not isinstance(story, Story):
        return Read(StoryRecord(shown, code, {}, [*findings, *local], draft=_marked_draft(reading.root, shown, data)))
    cited = frozenset(cited_ids(story, body))
    refs = {i: manifest_digest(reading.manifests, i) for i in sorted(cited | {entry.manifest for entry in story.meta.ledger})}
    spilled = None
    if reading.spill is not None:
        rows = section_rows(story, body, reading.manifests, reading.images, reading.config)
        spilled = reading.spill.put(pickle.dumps((story.meta.model_dump_json(), rows), protocol=pickle.HIGHEST_PROTOCOL))
    shown_images = tuple(ImageUse(src, alt, None, False, line, col) for src, alt, line, col in body.images)
    record = StoryRecord(shown, code, refs, [*findings, *local], story.brief(shown_images), None, cited, story.meta.draft)
    return Read(record, features(story.body).plain(), spilled)


def _marked_draft(root: str, shown: str, data: bytes) -> bool:
    """Whether a story whose front matter does not validate says `draft: true` all the same."""
    parsed, _ = front_matter(Path(root, shown), shown, data)
    return parsed is not None and isinstance(parsed[0], dict) and parsed[0].get("draft") is True


def manifest_digest(manifests: Mapping[str, ManifestFile], manifest_id: str) -> str:
    """The digest of the manifest of this id as this build read it ("": none)."""
    found = manifests.get(manifest_id)
    return found.digest if found is not None else ""


def spilled_story(spill: Spill, spilled: Spilled, shown: str) -> tuple[Story, list[SectionView]]:
    """A story read this build, as its reading left it for its pages: its front matter and its sections."""
    meta, rows = pickle.loads(spill.get(spilled))
    folder, name = shown.rsplit("/", 2)[-2:]
    story = Story(shown, folder, name.removesuffix(".md"), FrontMatter.model_validate_json(meta), "", 0, SourceMap(shown))
    return story, sections_of(rows)


def sections_again(reading: Reading, shown: str, digest: str) -> tuple[Story, list[SectionView]]:
    """A story read again, with its sections: the memo held it unchanged, but its variants must be made again
    (from the bytes it was checked as, of this digest)."""
    path = os.path.join(reading.root, shown)
    data, _ = read_bounded(path, shown, MAX_STORY_BYTES)
    if data is None or file_digest(data) != digest:
        raise StoryChanged(shown)
    story, _ = load_story(path, shown, data, edition=reading.config.edition)
    if not isinstance(story, Story):
        raise StoryChanged(shown)
    body = parse_body(story.body, story.body_line)
    return story, sections_of(section_rows(story, body, reading.manifests, reading.images, reading.config))


class StoryChanged(Exception):
    """A story file changed while the site was being built, so that it no longer is what it was read as."""
