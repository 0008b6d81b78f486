"""The kinds of term a story is filed under (its edition, newsroom, beat, trust level, authors, tags, series), as
one table that every layer reads: the front matter and site.toml take the fields and tables it names
(content/models.py, content/config.py), the checks the declared terms (LP010) and the folders the build
writes (LP011), the views each story's terms and their links, and the site's producers the list pages, the
index page of each kind, the front page's lists, the navigation, the feeds and the sitemap's dates. A new kind
is a new row (with a template for its pages, and its documentation): nothing else names the kinds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Order = Literal["declared", "name", "latest"]  # declaration order; by name; the greatest key first (a date)


@dataclass(frozen=True)
class Kind:
    """One kind of term. A story names its terms in its front matter; its view holds them at `field`."""

    name: str                    # one term's kind, as templates name it (kinds.beat): its pages' CSS class
    plural: str                  # its folder on the site (/beats/), its site.toml table, the front page's heading
    label: str                   # the kicker above a term's page title ("Beat")
    field: str                   # where a story's view holds its terms, dotted ("beat.slug", "terms.tag.slug")
    front: str | None = None     # the front-matter field this table adds (None: the front matter's own, or none)
    many: bool = False           # a story may name several terms (a list)
    required: bool = True        # every story names one
    declared: str | None = None  # where its terms are declared (slug = name, in order): a site.toml table this
                                 # table adds, or "authors" (content/authors/); None: whatever the stories name
    pages: bool = True           # a page for each term, and an index page of them all
    title: str = "{name}"        # a term page's title ({name}: the term's name)
    description: str = "Every story filed under {name}, newest first."  # {name}, {site}, {count}, {stories}
    paginated: bool = True       # page_size stories a page, else all on one page
    feed: str | None = None      # each term's Atom and JSON feeds have this description ({name}, {site}); None: none
    teaser_kicker: str = "newsroom"  # the term a teaser names above its title on these pages: a view field
                                     # holding a term ("newsroom", "beat"), the name of the kind it links to
    template: str = "list.html"  # what renders a term's pages (given `listing`)
    oldest_first: bool = False   # a term's stories in the order they were published (a series' reading order)
    order: Order = "declared"    # the terms' order on the index page and the front page
    index: str = "terms.html"    # what renders the index page of its terms (given `index`)
    index_stories: bool = False  # the index page lists each term's stories too, not only their number
    names: Literal["edition"] | None = None  # an undeclared term's name: its time ("edition"); else as written
    nav: int | None = None       # the row of the navigation that links its declared terms (0: with Latest)
    front_page: bool = False     # the front page lists its terms, each with its number of stories
    folder: str | None = None    # where its pages are, if not in a folder named `plural` ("topics", "a/b")
    unused: bool = True          # a declared term no built story has gets its page too (an author's would show a
                                 # person whose only stories are drafts or scheduled)

    @property
    def prefix(self) -> str:
        """Where its pages are, below the site's base path: a term's at prefix + slug + "/"."""
        return f"/{self.folder or self.plural}/"

    @property
    def heading(self) -> str:
        """What its terms are called together ("Beats"): the index page's title, the front page's heading."""
        return self.plural[:1].upper() + self.plural[1:]

    @property
    def fingerprint(self) -> str:
        """A kind is code: its settings count in every output through the generator's own digest."""
        return self.name

    def path(self, slug: str) -> str:
        """Where a term's first page is (under base_path)."""
        return f"{self.prefix}{slug}/"

    def describe(self, name: str, site: str, count: int) -> str:
        return self.description.format(name=name, site=site, count=count, stories="story" if count == 1 else "stories")


KINDS_TABLE = (
    Kind("edition", "editions", "Edition", "edition", title="Edition of {name}",
         description="The {name} edition of {site}: {count} {stories}.", paginated=False, teaser_kicker="beat",
         template="edition.html", order="latest", index="editions.html", index_stories=True, names="edition"),
    Kind("newsroom", "newsrooms", "Newsroom", "newsroom.slug", front="newsroom", declared="newsrooms",
         description="Every story from the {name} newsroom, newest first.",
         feed="Stories from the {name} newsroom of {site}.", teaser_kicker="beat", nav=0, front_page=True),
    Kind("beat", "beats", "Beat", "beat.slug", front="beat", declared="beats",
         description="Every story on the {name} beat, newest first.", nav=1, front_page=True),
    Kind("trust", "trust", "Trust level", "trust.slug", front="trust", declared="trust", pages=False),
    Kind("author", "authors", "Author", "authors.slug", many=True, required=False, declared="authors",
         description="Every story by {name}, newest first.", feed="Stories by {name} in {site}.",
         template="author.html", front_page=True, unused=False),
    Kind("tag", "tags", "Tag", "terms.tag.slug", front="tags", many=True, required=False,
         description="Every story tagged {name}, newest first.", feed="Stories tagged {name} in {site}.",
         template="tag.html", order="name"),
    Kind("series", "series", "Series", "terms.series.slug", front="series", required=False, declared="series",
         title="{name}", description="The {name} series: its {count} {stories}, in the order to read them.",
         paginated=False, feed="The newest parts of the {name} series of {site}.", template="series.html",
         oldest_first=True),
)
KINDS = {kind.name: kind for kind in KINDS_TABLE}
PAGED = tuple(kind for kind in KINDS_TABLE if kind.pages)  # the kinds with pages

# What a build writes at the top of the output folder besides its kinds' folders and the plain pages: a page
# there would collide with it (tests/test_no_traceback.py holds these to a real build's output).
SITE_FILES = frozenset({"index.html", "404.html", "feed.xml", "feed.json", "sitemap.xml", "news-sitemap.xml",
                        "robots.txt", "stories.json", "style.css", "favicon.svg"})
SITE_FOLDERS = frozenset({"stories", "manifests", "schema", "search", "pagefind", "corrections", "images"})
GENERATED_FOLDERS = SITE_FOLDERS | {kind.prefix.split("/")[1] for kind in PAGED}


def site_tables() -> tuple[Kind, ...]:
    """The kinds whose terms are declared in a table of site.toml (which this table adds to SiteConfig)."""
    return tuple(kind for kind in KINDS_TABLE if kind.declared is not None and kind.declared != "authors")
