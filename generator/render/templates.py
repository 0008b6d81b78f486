"""The Jinja environment: template fallback, named formatting filters, view -> html, json, md strings."""

from __future__ import annotations

import contextlib
import hashlib
import re
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from jinja2 import (
    BytecodeCache,
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    StrictUndefined,
    Template,
    TemplateError,
    TemplateNotFound,
    TemplateRuntimeError,
    TemplateSyntaxError,
    select_autoescape,
)
from jinja2.bccache import Bucket
from markupsafe import Markup, escape

from ..content.config import SiteConfig
from .formats import (
    human_time,
    json_ld,
    md_cell,
    md_code,
    md_fence,
    md_text,
    month_day_time,
    news_article,
    sh_word,
    to_json,
    uri,
    xml_escape,
    yaml_ids,
    yaml_scalar,
)

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # the generator package


def builtin_templates() -> Path:
    """Our template set: packaged beside the code in a wheel, or the repository's templates/."""
    packaged = PACKAGE_DIR / "_templates"
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / "templates"


def template_dirs(root: Path) -> list[Path]:
    """The site's own templates/ first (if any), each missing template falling back to ours."""
    own = root / "templates"
    ours = builtin_templates()
    return [own, ours] if own.is_dir() and own.resolve() != ours.resolve() else [ours]


def current(canonical: str, url: str, section: bool = True) -> Markup:
    """The aria-current attribute of a navigation link to `url` on the page at `canonical`: "page" on the
    link to the page itself, "true" on the link to the section it is in (`section`), else none."""
    if canonical == url:
        return _PAGE
    return _SECTION if section and canonical.startswith(url) else _NONE


_PAGE, _SECTION, _NONE = Markup(' aria-current="page"'), Markup(' aria-current="true"'), Markup("")


class NavLink(NamedTuple):
    """A link of the site's navigation: its text, its href (under base_path) and its absolute URL (what
    `current` compares a page's canonical URL with)."""

    name: str
    href: str
    url: str


class Navigation(NamedTuple):
    """The sections every page links to, made once a build (templates read it as `nav`)."""

    latest: NavLink
    newsrooms: list[NavLink]
    editions: NavLink
    beats: list[NavLink]


def navigation(config: SiteConfig) -> Navigation:
    base = urlsplit(config.root_url).path

    def link(name: str, path: str) -> NavLink:
        return NavLink(name, base + path, config.url(path))

    return Navigation(link("Latest", "/"), [link(name, f"/newsrooms/{slug}/") for slug, name in config.newsrooms.items()],
                      link("Editions", "/editions/"), [link(name, f"/beats/{slug}/") for slug, name in config.beats.items()])


class CompiledTemplates(BytecodeCache):
    """Compiled templates kept for the life of the process (and its forked workers): each build makes a new
    environment, and compiling the template set costs more than rendering a small site. Jinja checks each
    entry against the template's source, so an edited template is compiled again. The build memo carries
    them from one `ledgerpress build` to the next (`compiled()`, `adopt()`): signed, like the rest of it."""

    def __init__(self) -> None:
        self._store: dict[str, bytes] = {}

    def compiled(self) -> dict[str, bytes]:
        return dict(self._store)

    def adopt(self, store: dict[str, bytes]) -> None:
        for key, code in store.items():
            self._store.setdefault(key, code)

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._store:
            bucket.bytecode_from_string(self._store[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._store[bucket.key] = bucket.bytecode_to_string()


COMPILED = CompiledTemplates()


try:  # MarkupSafe 3: escape() is Python around this C function
    from markupsafe import _escape_inner
except ImportError:  # pragma: no cover  (MarkupSafe 2: escape() itself is the C function)
    _escape_inner = None


def fast_escape(value: Any) -> str:
    """markupsafe.escape as compiled templates use it: only on what an output tag prints, which is then
    joined into the page (a captured block or a macro's result Jinja makes Markup itself, from the joined
    text). So a plain string comes back escaped as a plain string, without making a Markup of it (a page
    escapes hundreds of values, and the Markup constructor was most of the cost of each), Markup as it is
    (immutable, already safe), anything else as markupsafe.escape gives it."""
    if type(value) is str and _escape_inner is not None:
        return _escape_inner(value)
    if type(value) is Markup:  # already safe, and immutable: escape() would make an equal copy
        return value
    return escape(value)


class _Template(Template):
    """Our templates escape with fast_escape, and .xml templates with formats.xml_escape (each compiled
    template module imports Jinja's escape by name: this rebinds that name, for our environment's templates
    alone), and keep their globals (the
    environment's, set before any template loads) as a plain dict, where Jinja keeps a ChainMap over the
    environment's: each render copies them into a new context, 12 µs a page from the ChainMap, 3 µs from a dict."""

    @classmethod
    def from_code(cls, environment: Environment, code: Any, globals: Any, uptodate: Any = None) -> Template:
        template = super().from_code(environment, code, globals, uptodate)
        xml = (template.name or "").endswith(".xml")  # XML's own autoescape: it also drops what XML forbids
        template.root_render_func.__globals__["escape"] = xml_escape if xml else fast_escape
        template.globals = dict(template.globals)
        return template


class TemplateFailed(TemplateRuntimeError):
    """A template that raised while it rendered ({{ 1/0 }}, an include of itself, a macro that calls itself
    without end): bad input like any other, reported as LP900 at the template's line (build.template_finding
    reads `filename` and `lineno`). It crosses from a build worker to the parent whole (pickled)."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None) -> None:
        super().__init__(message)
        self.filename, self.lineno = filename, lineno

    def __reduce__(self) -> tuple:
        return type(self), (self.message, self.filename, self.lineno)


def _failed(err: BaseException, dirs: tuple[str, ...]) -> TemplateFailed:
    """The error as a TemplateFailed at the innermost template line it passed through (Jinja rewrites a
    failing render's traceback so that template code shows as the template's own file and line)."""
    frames = [frame for frame in traceback.extract_tb(err.__traceback__) if frame.filename.startswith(dirs)]
    filename, lineno = (frames[-1].filename, frames[-1].lineno) if frames else (None, None)
    if isinstance(err, RecursionError):
        why = "it includes, extends or calls itself without end"
    else:
        why = f"{type(err).__name__}: {err}".rstrip(": ")
    return TemplateFailed(f"rendering failed: {why}", filename, lineno)


class _Loader(FileSystemLoader):
    """A template file that is not UTF-8, or whose name is not, is a template error (LP900), not a
    UnicodeDecodeError (nor a name no digest or build record can hold)."""

    def list_templates(self) -> list[str]:
        names = super().list_templates()
        for name in names:
            if not name.isascii():
                try:
                    name.encode("utf-8")
                except UnicodeEncodeError:
                    found = [str(Path(top, name)) for top in self.searchpath if Path(top, name).exists()]
                    raise TemplateSyntaxError("the file name is not UTF-8", 1, name, found[0] if found else name) from None
        return names

    def get_source(self, environment: Environment, template: str) -> tuple:
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError as err:
            found = [path for path in (Path(top, template) for top in self.searchpath) if path.is_file()]
            raise TemplateSyntaxError(f"the template is not UTF-8 ({err.reason} at byte {err.start})", 1, template,
                                      str(found[0]) if found else template) from None


MAX_RANGE = 1_000_000  # range() in a template: a loop a mistyped bound would make endless


def bounded_range(*args: int) -> range:
    """range() for templates, refusing more than MAX_RANGE items (as Jinja's sandbox does)."""
    found = range(*args)
    if len(found) > MAX_RANGE:
        raise OverflowError(f"range() of {len(found):,} items in a template (the limit is {MAX_RANGE:,})")
    return found


def make_environment(root: Path, config: SiteConfig) -> Environment:
    env = Environment(
        loader=ChoiceLoader([_Loader(str(path)) for path in template_dirs(root)]), bytecode_cache=COMPILED,
        autoescape=select_autoescape(enabled_extensions=("html", "xml"), default_for_string=False),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        auto_reload=False,  # an environment lives for one build: templates are not edited under it
    )
    env.template_class = _Template
    env.filters.update(current=current, yaml=yaml_scalar, yaml_ids=yaml_ids, md_text=md_text, md_cell=md_cell,
                       md_code=md_code, md_fence=md_fence, uri=uri, sh=sh_word,
                       month_day_time=month_day_time, human_time=human_time, tojson_pretty=to_json,
                       json_ld=json_ld, news_article=lambda story: news_article(story, config))
    env.globals.update(site=config, base_path=urlsplit(config.root_url).path, nav=navigation(config),
                       range=bounded_range)
    return env


_REFERENCE = re.compile(r"\{%[-+]?\s*(?:extends|include|import|from)\s+(\S[^%]*?)\s*(?:\bas\b|\bimport\b|\bignore\b|"
                        r"\bwith\b|\bwithout\b|[-+]?%\})")


_QUOTED = re.compile(r"""(["'])([^"']+)\1""")


def referenced_templates(source: str) -> list[str | None]:
    """The templates a template extends, includes or imports (None for one named by an expression). A scan
    of its tags rather than Jinja's parser: a build asks this of every template, and parsing costs more."""
    found: list[str | None] = []
    for argument in _REFERENCE.findall(source):
        names = [name for _, name in _QUOTED.findall(argument)]
        literal = argument[:1] in "\"'[" and _QUOTED.sub("", argument).strip("[], ") == ""
        found.extend(names if literal and names else [None])
    return found


class Renderer:
    """Renders views through the one template set; a variant is a template named story.<suffix>."""

    STORY_VARIANTS = ("html", "json", "md")

    def __init__(self, root: Path, config: SiteConfig) -> None:
        self.env = make_environment(root, config)
        self._digests: dict[tuple[str, ...], str] = {}
        self._dirs = tuple(str(path.resolve()) for path in template_dirs(root))

    def digest(self, *names: str) -> str:
        """A digest of these templates and of every template they extend, include or import (all of them, if
        one names another by an expression): an output made with them is stale when this changes."""
        if names not in self._digests:
            sources = self._with_references(names)
            text = "\0".join(f"{name}\0{source}" for name, source in sorted(sources.items()))
            data = text.encode("utf-8", "surrogateescape")  # (a file name that is not UTF-8 is hashed as its bytes)
            self._digests[names] = hashlib.blake2b(data, digest_size=16).hexdigest()
        return self._digests[names]

    def _with_references(self, names: Iterable[str]) -> dict[str, str]:
        """These templates and every template they extend, include or import, by name: their sources ("" for
        one not found)."""
        sources: dict[str, str] = {}
        waiting = list(names)
        while waiting:
            name = waiting.pop()
            if name in sources:
                continue
            try:
                sources[name] = self.env.loader.get_source(self.env, name)[0]
            except TemplateNotFound:
                sources[name] = ""
                continue
            for found in referenced_templates(sources[name]):
                waiting.extend(self.env.loader.list_templates() if found is None else [found])
        return sources

    def load(self, names: Iterable[str]) -> None:
        """Compile these templates here, and those they extend, include or import, before the render workers
        fork: they inherit them (instead of each compiling its own) and the build memo keeps them for the
        next process."""
        wanted = set(names)
        for name, source in sorted(self._with_references(wanted).items()):
            if name in wanted:
                self.env.get_template(name)
            elif source:  # a template named by an expression brings in every one, style.css too: one of those
                with contextlib.suppress(TemplateError):  # that fails is reported by the page that renders it
                    self.env.get_template(name)

    def compile_all(self) -> dict[str, bytes]:
        """Compile every template (one that fails is left to the page that renders it, which reports it) and
        return what COMPILED then holds: a build's forked helper sends this back (see build._templates_aside)."""
        for name in self.env.loader.list_templates():
            with contextlib.suppress(TemplateError):
                self.env.get_template(name)
        return COMPILED.compiled()

    def render(self, name: str, **context: Any) -> str:
        """A template rendered; any error it raises is a TemplateError (reported as LP900, not a traceback)."""
        try:
            return self.env.get_template(name).render(**context)
        except TemplateError:
            raise
        except Exception as err:  # the template's own code failed (RecursionError and MemoryError included)
            raise _failed(err, self._dirs) from None
