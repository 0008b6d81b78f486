"""The pipeline: load, parse, check, view, render; returns files as {path: bytes} and findings."""

from __future__ import annotations

import contextlib
import gc
import pickle
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from jinja2 import TemplateError

from .body import parse_body
from .cache import digest
from .checks import Report, SiteIndex, local_findings, run_checks
from .config import CONFIG_NAME
from .feeds import feed_outputs
from .load import Content, add_story, load_content, load_story, story_files
from .models import Finding, Story, StoryFile
from .related_stories import RelatedIndex, cited_ids
from .render import Renderer, template_dirs
from .search import search_index
from .similarity import Features, features
from .site import manifest_outputs, site_outputs, sitemap_outputs
from .view import SectionView, StoryView, related_views, story_sections, story_view
from .workers import Progress, Workers, workers


class Sink(Protocol):
    """Where a build may put outputs as they are rendered instead of holding them (write.Pending)."""

    def put(self, path: str, data: bytes, digest: str) -> bool: ...

    def read(self, path: str, written: bool) -> bytes: ...


@dataclass
class Checked:
    """A loaded site, its parsed bodies and the check report: what `check` prints and `build` renders."""

    content: Content
    index: SiteIndex | None
    report: Report

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings


@dataclass
class BuildResult:
    """The findings and the outputs: their bytes in `files`, or, when the build wrote them to a Pending
    sink, each output's digest in `digests` and the paths it had to write in `written`."""

    findings: list[Finding]
    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    stories: int = 0
    pages: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)


def check_site(root: Path, drafts: bool = True, base_url: str | None = None, jobs: int | None = 1,
               progress: Progress | None = None, sections: dict[str, bytes] | None = None) -> Checked:
    """Load everything and run every rule. Stories are read and parsed on `jobs` processes; when `sections`
    is a dict, their bodies are rendered there too (by path), so that building never parses a body twice."""
    with _no_cycle_collection():
        return _check_site(root, drafts, base_url, jobs, progress, sections)


def _check_site(root: Path, drafts: bool, base_url: str | None, jobs: int | None, progress: Progress | None,
                sections: dict[str, bytes] | None) -> Checked:
    content = load_content(root, drafts=drafts, base_url=base_url, stories=False)
    if content.config is None:
        return Checked(content, None, Report(sorted(content.findings), {}))
    cited: dict[str, frozenset[str]] = {}
    signatures: dict[str, Features] = {}
    files = story_files(root)
    _JOB.update(manifests=content.manifests, config=content.config, render=sections is not None)
    local: list[Finding] = []
    try:
        for done, prepared in enumerate(workers(jobs).map(prepare_story, files, len(files)), start=1):
            add_story(content, (prepared.story, prepared.findings), drafts)
            if drafts or not (isinstance(prepared.story, Story) and prepared.story.meta.draft):
                local.extend(prepared.local)
            if prepared.features is not None:
                cited[prepared.path], signatures[prepared.path] = prepared.cited, prepared.features
            if sections is not None and prepared.sections is not None:
                sections[prepared.path] = prepared.sections
            if progress:
                progress("read", done, len(files))
    finally:
        _JOB.clear()
    index = SiteIndex(content.config, content.manifests, content.stories, {}, content.broken, pages=content.pages,
                      config_path=f"content/{CONFIG_NAME}", root=root, features=signatures, cited=cited)
    return Checked(content, index, run_checks(index, content.findings, local))


@dataclass
class Prepared:
    """One story file read and checked by its local rules, with what the site-wide work needs of it:
    its similarity features, the manifests its body cites and (when building) its rendered sections."""

    path: str
    story: Story | StoryFile | None
    findings: list[Finding]
    local: list[Finding] = field(default_factory=list)
    features: Features | None = None
    cited: frozenset[str] = frozenset()
    sections: bytes | None = None  # the rendered body, packed: held for every story until rendering


def prepare_story(item: tuple[Path, str]) -> Prepared:
    """Read one story, parse its body once, run its local rules, and (when building) render its sections."""
    path, shown = item
    story, findings = load_story(path, shown)
    if story is None:
        return Prepared(shown, None, findings)
    body = parse_body(story.body, story.body_line)
    local = local_findings(story, body, _JOB["config"], _JOB["manifests"])
    if not isinstance(story, Story):
        return Prepared(shown, story, findings, local)
    sections = _packed(story_sections(story, body, _JOB["manifests"])) if _JOB.get("render") else None
    story.source = story.source.shallow()  # local rules are done; the rest need only top-level places
    return Prepared(shown, story, findings, local, features(story.body), cited_ids(body), sections)


def build_site(root: Path, drafts: bool = False, base_url: str | None = None, jobs: int | None = None,
               search: bool = True, progress: Progress | None = None, sink: Sink | None = None) -> BuildResult:
    """Check, then render every output, in memory or (with a sink) into pending files as they come;
    nothing is rendered if an error remains."""
    started = time.perf_counter()
    sections: dict[str, bytes] = {}
    with _no_cycle_collection():
        checked = check_site(root, drafts=drafts, base_url=base_url, jobs=jobs, progress=progress, sections=sections)
        result = BuildResult(checked.findings)
        if not result.ok or checked.index is None:
            return result
        try:
            _render(root, checked, sections, result, jobs, search, progress, sink)
        except TemplateError as err:
            result.files, result.digests, result.written = {}, {}, set()
            result.findings = [*result.findings, template_finding(root, err)]
    result.seconds = time.perf_counter() - started
    return result


@contextlib.contextmanager
def _no_cycle_collection():
    """A build makes millions of objects that live until it ends and few cycles: Python's cyclic collector
    would rescan them all again and again (a 20,000-story build spent a third of its time there)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _render(root: Path, checked: Checked, sections: dict[str, bytes], result: BuildResult,
            jobs: int | None, search: bool, progress: Progress | None, sink: Sink | None) -> None:
    index = checked.index
    config = index.config
    renderer = Renderer(root, config)
    stories = sorted(index.stories, key=lambda s: s.path)
    unset = [story for story in stories if story.meta.related is None]
    computed = RelatedIndex(index.stories, index.cited, known=index.features) if unset else None
    _JOB.update(root=root, index=index, report=checked.report, computed=computed, stories=stories, sections=sections,
                sink=sink, renderer=renderer)
    views: list[StoryView] = []
    sources: dict[str, str] = {}
    try:
        rendered = workers(jobs).map(render_story, range(len(stories)), len(stories))
        for done, (story, (view, outputs)) in enumerate(zip(stories, rendered), start=1):
            views.append(view)
            for path, data in outputs:
                _add(result, sources, path, data, story.path)
            if progress:
                progress("render", done, len(stories))
    finally:
        _JOB.clear()
    if progress:
        progress("pages", len(stories), len(stories))
    _JOB.update(root=root, index=index, views=views, pages=checked.content.pages, sink=sink, renderer=renderer)
    try:
        parallel = 1 if len(stories) >= Workers.MIN_PER_JOB * 8 else len(SITE_PARTS)  # else not worth a pool
        for outputs in workers(jobs).map(render_part, SITE_PARTS, len(SITE_PARTS), min_per_job=parallel):
            for path, data, source in outputs:
                _add(result, sources, path, data, source)
    finally:
        _JOB.clear()
    for path, data, source in sitemap_outputs(views, sources, renderer, config):
        _add(result, sources, path, _kept(path, _bytes(data), sink), source)
    if search:
        pages = {path: result.files[path] if sink is None else sink.read(path, path in result.written)
                 for path in sources if path.endswith(".html")}
        found = search_index(pages)
        for path, data in found.files.items():
            _add(result, sources, path, _kept(path, data, sink), "generator/search.py")
        result.findings = [*result.findings, *found.notes]
    result.stories = len(views)
    result.pages = sum(path.endswith(".html") for path in sources) - len(views)


# What forked render workers inherit from the parent: the checked site (read-only), set just before they start.
_JOB: dict = {}


def render_story(position: int) -> tuple[StoryView, list[tuple[str, bytes]]]:
    """One story's three variants, and its view without the body (all that list pages and feeds need)."""
    job = _JOB
    index, story = job["index"], job["stories"][position]
    view = _view(story, _unpacked(job["sections"][story.path]), index, job["report"], job["computed"])
    texts = job["renderer"].story(view)
    outputs = [(path, _kept(path, text.encode("utf-8"), job["sink"]))
               for path, text in ((f"stories/{story.key}/index.{suffix}", text) for suffix, text in texts.items())]
    return view.model_copy(update={"sections": []}), outputs


def _packed(sections: list[SectionView]) -> bytes:
    """Rendered sections compressed (a fifth of their size) while they wait in the parent for rendering."""
    return zlib.compress(pickle.dumps(sections, protocol=pickle.HIGHEST_PROTOCOL), 1)


def _unpacked(packed: bytes) -> list[SectionView]:
    return pickle.loads(zlib.decompress(packed))


SITE_PARTS = ("site", "manifests:0", "manifests:1")


def render_part(part: str) -> list[tuple[str, bytes, str]]:
    """One share of the site-wide pages, so that they too are rendered on every core: the front, list,
    feed and plain pages, or every other manifest page."""
    job = _JOB
    index, views, renderer = job["index"], job["views"], job["renderer"]
    if part == "site":
        found = [*site_outputs(views, job["pages"], renderer, index.config), *feed_outputs(views, renderer, index.config)]
    else:
        share = int(part.split(":")[1])
        chosen = {key: value for n, (key, value) in enumerate(sorted(index.manifests.items())) if n % 2 == share}
        found = list(manifest_outputs(chosen, views, renderer, index.config))
    return [(path, _kept(path, _bytes(data), job["sink"]), source) for path, data, source in found]


def _bytes(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def _kept(path: str, data: bytes, sink: Sink | None) -> bytes | Kept:
    """The output itself (in memory), or, with a sink, its digest once the sink has it."""
    if sink is None:
        return data
    code = digest(data)
    return Kept(code, sink.put(path, data, code))


@dataclass(frozen=True)
class Kept:
    digest: str
    written: bool


def _view(story: Story, sections: list[SectionView], index: SiteIndex, report: Report,
          computed: RelatedIndex | None) -> StoryView:
    """The story's view; `related` from its front matter, else the computed most similar earlier stories."""
    keys = story.meta.related
    if keys is None:
        keys = computed.related(story.key) if computed is not None else []
    related = related_views(keys, index.by_key, index.config)
    return story_view(story, sections, index.manifests, index.config, related, report.passed.get(story.path, []))


def _add(result: BuildResult, sources: dict[str, str], path: str, data: bytes | Kept, source: str) -> None:
    """Record one output; a second claim on a path is an LP011 against the later source."""
    if path in sources:
        url = "/" + path.removesuffix("index.html")
        result.findings = [*result.findings, Finding(source, 1, 1, "LP011", f"same URL {url} as {sources[path]}")]
        return
    sources[path] = source
    if isinstance(data, Kept):
        result.digests[path] = data.digest
        if data.written:
            result.written.add(path)
    else:
        result.files[path] = data


def template_finding(root: Path, err: TemplateError) -> Finding:
    """A broken template is bad input too: report the template line where it broke, not a traceback."""
    name, line = getattr(err, "filename", None), getattr(err, "lineno", None)
    if name is None:
        dirs = [str(path.resolve()) for path in template_dirs(root)]
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename.startswith(tuple(dirs))]
        name, line = (frames[-1].filename, frames[-1].lineno) if frames else ("templates", 1)
    try:
        shown = Path(name).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(name)
    return Finding(shown, line or 1, 1, "LP900", f"template error: {err.message or err}")
