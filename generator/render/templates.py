"""The Jinja environment over the one template set (a site's own templates/ first, ours for the rest), its named
formatting filters, and the renderer every output goes through."""

from __future__ import annotations

import os
import re
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jinja2 import (
    BaseLoader,
    Environment,
    FileSystemBytecodeCache,
    StrictUndefined,
    TemplateError,
    TemplateNotFound,
    TemplateRuntimeError,
    TemplateSyntaxError,
    select_autoescape,
)
from markupsafe import Markup

from ..content.body import MD
from ..content.config import SiteConfig
from ..content.findings import Finding
from ..content.layout import is_utf8, key_of, template_dirs
from ..content.limits import MAX_INPUT_BYTES
from ..content.source import read_bounded
from .authors import name_separator
from .dates import ReaderDates, edition_time, unbroken
from .formats import (
    json_ld,
    md_cell,
    md_code,
    md_fence,
    md_text,
    month_day_time,
    to_json,
    uri,
    xml_escape,
    yaml_ids,
    yaml_scalar,
)
from .images import srcset
from .kinds import KINDS
from .links import absolute_urls
from .structured import news_article, profile_page, source_record, website


def byline_separator(loop: Any) -> str:
    """What goes before the name a loop over a byline's authors is at (see authors.name_separator)."""
    return name_separator(loop.index0, loop.length)


def pluralize(number: int, suffix: str = "s") -> str:
    """The suffix of a noun counted `number` times: `source{{ n | pluralize }}`, as in Django's templates. (Not
    `{{ "s" if n != 1 }}`: without an else, that prints an undefined value, which escaping first probes for
    `__html__` at the cost of an exception.)"""
    return "" if number == 1 else suffix


def inline_markdown(text: str) -> Markup:
    """One line of Markdown as written (a section's heading) as HTML, through the body's own renderer: its
    emphasis, code and links as the body's, everything else escaped."""
    return Markup(MD.renderInline(text, {}))


def index_by(items: Iterable[Any], attribute: str) -> dict[Any, Any]:
    """The items by the value of one attribute (the last of those that share one): `story.ledger |
    index_by("manifest_id")` finds a ledger row by its manifest id, as each paragraph's evidence needs."""
    return {getattr(item, attribute): item for item in items}


def current(canonical: str, url: str, section: bool = True) -> Markup:
    """The aria-current attribute of a navigation link to `url` on the page at `canonical`: "page" on the
    link to the page itself, "true" on the link to the section it is in (`section`), else none."""
    if canonical == url:
        return _PAGE
    return _SECTION if section and canonical.startswith(url) else _NONE


_PAGE, _SECTION, _NONE = Markup(' aria-current="page"'), Markup(' aria-current="true"'), Markup("")


class TemplateSet(BaseLoader):
    """Every template a build may use, read once when it starts (so that each output is made from the bytes
    whose digest it records, whichever process renders it): by name, the site's own first."""

    def __init__(self, root: Path) -> None:
        self.sources: dict[str, tuple[str, str]] = {}  # name -> (source, file)
        self._broken: dict[str, str] = {}  # name -> why it cannot be a template
        for folder in reversed(template_dirs(root)):
            for top, dirs, files in os.walk(folder):
                dirs.sort()
                for name in sorted(files):
                    path = os.path.join(top, name)
                    relative = os.path.relpath(path, folder).replace(os.sep, "/")
                    if not is_utf8(relative):  # no template can name it, nor a digest or a record hold it
                        raise TemplateSyntaxError("the file name is not UTF-8", 1, relative, path)
                    data, problems = read_bounded(path, relative, MAX_INPUT_BYTES)
                    if data is None:  # a link in a loop, a FIFO, a device: reported if a page uses it
                        self.sources[relative] = ("", path)
                        self._broken[relative] = f"the template {problems[0].message}"
                        continue
                    try:
                        self.sources[relative] = (data.decode("utf-8"), path)
                    except UnicodeDecodeError as err:  # reported if a page uses it (it may be an image)
                        self.sources[relative] = (data.decode("utf-8", "replace"), path)
                        self._broken[relative] = f"the template is not UTF-8 ({err.reason} at byte {err.start})"

    def get_source(self, environment: Environment, name: str) -> tuple[str, str, Any]:
        if name not in self.sources:
            raise TemplateNotFound(name)
        source, path = self.sources[name]
        if name in self._broken:
            raise TemplateSyntaxError(self._broken[name], 1, name, path)
        return source, path, lambda: True

    def list_templates(self) -> list[str]:
        return sorted(self.sources)


# Templates compiled by an earlier build, kept by Jinja in a folder of the system's temporary folder that only
# this user may write (Jinja checks that), each by its name, file and source: compiling the template set is
# a large part of building a small site. Jinja does not tell environments apart there, and the code it
# compiles depends on how the environment is set (its finalize, its whitespace options), so each setting has
# files of its own.
_ESCAPED = ("html", "xml")
_OPTIONS = {"undefined": StrictUndefined, "trim_blocks": True, "lstrip_blocks": True, "keep_trailing_newline": True,
            "autoescape": select_autoescape(enabled_extensions=_ESCAPED, default_for_string=False)}
_SHAPE = repr([(name, _ESCAPED if name == "autoescape" else getattr(value, "__name__", value))
               for name, value in sorted(_OPTIONS.items())])
_COMPILED = {xml: FileSystemBytecodeCache(pattern=f"__ledgerpress_{key_of(_SHAPE, str(xml))[:12]}_%s.cache")
             for xml in (False, True)}


MAX_RANGE = 1_000_000  # range() in a template: a loop a mistyped bound would make endless


def bounded_range(*args: int) -> range:
    """range() for templates, refusing more than MAX_RANGE items (as Jinja's sandbox does)."""
    found = range(*args)
    if len(found) > MAX_RANGE:
        raise OverflowError(f"range() of {len(found):,} items in a template (the limit is {MAX_RANGE:,})")
    return found


def make_environment(templates: TemplateSet, config: SiteConfig, nav: Any, xml: bool = False) -> Environment:
    """The environment for the templates of one kind: `xml` ones pass every value they print through
    formats.xml_escape, which also replaces what XML forbids (the others escape HTML, as Jinja does)."""
    env = Environment(loader=templates, bytecode_cache=_COMPILED[xml], finalize=xml_escape if xml else None,
                      auto_reload=False, **_OPTIONS)  # (the templates are read once, when the build starts)
    dates = ReaderDates(config.timezone, config.date_format, config.day_format)
    env.filters.update(current=current, byline_separator=byline_separator, index_by=index_by, pluralize=pluralize,
                       yaml=yaml_scalar, yaml_ids=yaml_ids, md_text=md_text, md_cell=md_cell, md_code=md_code,
                       md_fence=md_fence, uri=uri, month_day_time=month_day_time, human_time=dates.time,
                       human_day=dates.day, edition_time=edition_time, unbroken=unbroken, tojson_pretty=to_json,
                       json_ld=json_ld, absolute_urls=absolute_urls, as_text=str, srcset=srcset,
                       inline_markdown=inline_markdown,
                       news_article=lambda story: news_article(story, config),
                       profile_page=lambda about: profile_page(about, config),
                       source_record=lambda manifest: source_record(manifest, config),
                       website=lambda _: website(config))
    env.globals.update(site=config, base_path=config.base_path, nav=nav, kinds=KINDS,
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
    """Renders views through the one template set; a story variant is a template named story.<suffix>."""

    STORY_VARIANTS = ("html", "json", "md")

    def __init__(self, root: Path, config: SiteConfig, nav: Any) -> None:
        self.templates = TemplateSet(root)
        self.env = make_environment(self.templates, config, nav)
        self._envs = (self.env, make_environment(self.templates, config, nav, xml=True))
        self._digests: dict[tuple[str, ...], str] = {}
        self._dirs = tuple(str(path.resolve()) for path in template_dirs(root))

    def digest(self, *names: str) -> str:
        """A digest of these templates and of every template they extend, include or import (all of them, if
        one names another by an expression): an output made with them is stale when this changes."""
        if names not in self._digests:
            sources = self._with_references(names)
            self._digests[names] = key_of(*(f"{name}\0{source}" for name, source in sorted(sources.items())))
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
            sources[name] = self.templates.sources.get(name, ("", ""))[0]
            for found in referenced_templates(sources[name]):
                waiting.extend(self.templates.list_templates() if found is None else [found])
        return sources

    def compile(self, names: Iterable[str]) -> None:
        """Compile these templates before the build's workers fork, so that they inherit them compiled (a
        template that fails is left to the output that renders it, which reports it)."""
        for name in sorted(set(names)):
            try:
                self._envs[name.endswith(".xml")].get_template(name)
            except TemplateError:
                pass

    def source(self, name: str) -> str:
        """A template's text as it is (a stylesheet is copied, not rendered)."""
        return self.env.loader.get_source(self.env, name)[0]

    def render(self, name: str, **context: Any) -> str:
        """A template rendered; any error it raises is a TemplateError (reported as LP900, not a traceback)."""
        try:
            return self._envs[name.endswith(".xml")].get_template(name).render(**context)
        except TemplateError:
            raise
        except Exception as err:  # the template's own code failed (RecursionError and MemoryError included)
            raise _failed(err, self._dirs) from None


class TemplateFailed(TemplateRuntimeError):
    """A template that raised while it rendered ({{ 1/0 }}, an include of itself, a macro that calls itself
    without end): bad input like any other, reported as LP900 at the template's line (template_finding reads
    `filename` and `lineno`). It crosses from a build worker to the parent whole (pickled)."""

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None) -> None:
        super().__init__(message)
        self.filename, self.lineno = filename, lineno

    def __reduce__(self) -> tuple:
        return type(self), (self.message, self.filename, self.lineno)


def _innermost(err: BaseException, dirs: tuple[str, ...]) -> tuple[str | None, int | None]:
    """The innermost template file and line an error passed through, if any (Jinja rewrites a failing
    render's traceback so that template code shows as the template's own file and line)."""
    frames = [frame for frame in traceback.extract_tb(err.__traceback__) if frame.filename.startswith(dirs)]
    return (frames[-1].filename, frames[-1].lineno) if frames else (None, None)


def _failed(err: BaseException, dirs: tuple[str, ...]) -> TemplateFailed:
    """The error as a TemplateFailed at the innermost template line it passed through."""
    filename, lineno = _innermost(err, dirs)
    if isinstance(err, RecursionError):
        why = "it includes, extends or calls itself without end"
    else:
        why = f"{type(err).__name__}: {err}".rstrip(": ")
    return TemplateFailed(f"rendering failed: {why}", filename, lineno)


def template_finding(root: Path, err: TemplateError) -> Finding:
    """A broken template is bad input too: report the template line where it broke, not a traceback."""
    name, line = getattr(err, "filename", None), getattr(err, "lineno", None)
    if name is None:
        name, line = _innermost(err, tuple(str(path.resolve()) for path in template_dirs(root)))
        name = name or "templates"
    shown = str(name)
    for top in (root, root.resolve()):  # the template's own path: a link in templates/ is shown, not followed
        try:
            shown = Path(os.path.abspath(name)).relative_to(top).as_posix()
            break
        except ValueError:
            continue
    return Finding(shown, line or 1, 1, "LP900", f"template error: {err.message or err}")
