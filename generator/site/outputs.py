"""The registry of the site's outputs besides the stories' own: each producer is a small function that says,
from the site's stories (as teasers), manifests and pages, which outputs it makes and from what. The engine
renders each output and makes it again only when what it is made from changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..content.author_files import Author
from ..content.config import SiteConfig
from ..content.image_files import ImageFile
from ..content.models import ManifestFile, Page
from ..render.story_terms import Declared, declared_terms
from ..render.teaser import Teaser

SITE_TOML = "content/site.toml"  # what a site-wide output's findings point at


def output_file(url_path: str, name: str = "index.html") -> str:
    """The output file `name` in the folder served at `url_path`: /newsrooms/city/ -> newsrooms/city/index.html,
    (/newsrooms/city/, feed.xml) -> newsrooms/city/feed.xml."""
    return url_path.lstrip("/") + name


@dataclass(frozen=True)
class Output:
    """One file of the site: where it goes, the source its findings point at, and how it is made: `template`
    rendered with `context`, or with what `view(config, **context)` makes of it, or (`raw`) copied as it is;
    or, without a template, `make(config, **context)` (text, or bytes: an image). `context` is all it is made
    from besides the templates, site.toml and `reads`: the engine makes the output again exactly when the
    context's fingerprint moves. `reads` names story outputs it is made from too (a feed: its stories'
    index.json): their digests count in its fingerprint, and `view` is given their bytes as `read`."""

    path: str
    source: str
    template: str | None
    context: dict[str, Any] = field(default_factory=dict)
    make: Callable[..., str | bytes] | None = None
    view: Callable[..., dict[str, Any]] | None = None
    raw: bool = False
    reads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Site:
    """All that producers read: site.toml, the site's stories (as teasers, by path), manifests (by id), plain
    pages, authors (by slug) and images (by src), and `paths`: the story variants' outputs, and for the
    producers that run last (sitemaps) every output the others made too. The engine takes the fingerprint of
    this value whole: a field added here is counted with no other change."""

    config: SiteConfig
    stories: Sequence[Teaser]
    manifests: Mapping[str, ManifestFile]
    pages: Sequence[Page]
    paths: Sequence[str] = ()
    authors: Mapping[str, Author] = field(default_factory=dict)
    images: Mapping[str, ImageFile] = field(default_factory=dict)

    @property
    def declared(self) -> Declared:
        return declared_terms(self.config, self.authors)


Producer = Callable[[Site], Iterable[Output]]
PRODUCERS: list[Producer] = []
LAST: list[Producer] = []


def producer(last: bool = False) -> Callable[[Producer], Producer]:
    """Register a producer; `last` ones run once every other output is known (they list them all)."""

    def register(make: Producer) -> Producer:
        (LAST if last else PRODUCERS).append(make)
        return make

    return register
