"""The pipeline: check (prepare.py), then view and render every output; returns the outputs and the findings.
Given the memo of the last good build, it renders again only the outputs whose inputs changed; the rest it
takes as they were."""

from __future__ import annotations

import dataclasses
import operator
import time
import traceback
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from jinja2 import TemplateError

from .analysis.related import RelatedIndex, related_all
from .cache import digest, key_of
from .content.body import parse_body
from .content.config import CONFIG_NAME, load_config
from .content.findings import Finding
from .content.models import ManifestFile, Story
from .content.stories import load_story
from .memo import Entry, Memo, ShardWriter
from .prepare import Checked, Spill, check_site, take, unpacked
from .render.formats import to_data
from .render.stored_view import StoredView
from .render.story_view import SectionView, related_views, story_sections, story_view
from .render.templates import COMPILED, Renderer, template_dirs
from .site.feeds import feed_plans
from .site.manifest_pages import manifest_plans
from .site.plans import Plan, site_plans
from .site.sitemaps import sitemap_plans
from .workers import Aside, Progress, no_cycle_collection, workers


class Sink(Protocol):
    """Where a build may put outputs as they are rendered instead of holding them (write.Pending)."""

    def put(self, path: str, data: bytes, digest: str) -> bool: ...

    def read(self, path: str, written: bool) -> bytes: ...


@dataclass
class BuildResult:
    """The findings and the outputs: their bytes in `files`, or, when the build wrote them to a Pending
    sink, each output's digest in `digests` and the paths it had to write in `written`; `memo` for the next
    build (when this one was given one and succeeded); `rendered`: outputs made, not taken from the memo."""

    findings: list[Finding]
    files: dict[str, bytes] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    written: set[str] = field(default_factory=set)
    stories: int = 0
    pages: int = 0
    seconds: float = 0.0
    memo: Memo | None = None
    rendered: int = 0

    @property
    def ok(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)


def build_site(root: Path, drafts: bool = False, base_url: str | None = None, jobs: int | None = None,
               search: bool = True, progress: Progress | None = None, sink: Sink | None = None,
               memo: Memo | None = None, reuse: Mapping[str, bytes] | None = None,
               stamps: Mapping[str, Sequence] | None = None, ahead: ShardWriter | None = None) -> BuildResult:
    """Check, then render every output, in memory or (with a sink) into pending files as they come; nothing
    is rendered if an error remains. With a memo (an empty one for a first build), the result carries the
    next one; outputs the memo shows unchanged are not rendered again: with a sink they are left where they
    are, in memory they are taken from `reuse` (the last build's files). `stamps`: see check_site. `ahead`:
    given every story's memo entry as soon as the stories are rendered (see memo.ShardWriter)."""
    started = time.perf_counter()
    compiling = _templates_aside(root, base_url, jobs, memo)
    sections = Spill(root)
    try:
        with no_cycle_collection():
            checked = check_site(root, drafts=drafts, base_url=base_url, jobs=jobs, progress=progress,
                                 sections=sections, memo=memo, stamps=stamps)
            if compiling is not None:
                COMPILED.adopt(compiling.result() or {})  # (None if it failed: then templates compile here)
            result = BuildResult(checked.findings)
            if not result.ok or checked.index is None:
                return result
            try:
                _Render(root, checked, sections, result, jobs, progress, sink, memo, reuse, ahead).run(search)
            except TemplateError as err:
                result.files, result.digests, result.written, result.memo = {}, {}, set(), None
                result.findings = [*result.findings, template_finding(root, err)]
    finally:
        sections.close()
        if compiling is not None:
            compiling.result()  # reaped, whatever happened (nothing to wait for once adopted)
    result.seconds = time.perf_counter() - started
    return result


def _templates_aside(root: Path, base_url: str | None, jobs: int | None, memo: Memo | None) -> Aside | None:
    """A first build's templates, compiled in a forked process while this one loads the manifests and then
    reads the stories: a core is idle while the manifests load, and compiling the template set (0.1 s) no
    longer falls in the steps between the pools, where this process works alone. Not when one process was
    asked for, nor when this process or the memo already holds compiled templates."""
    if workers(jobs).jobs < 2 or COMPILED.compiled() or (memo is not None and memo.compiled):
        return None
    return Aside(_compile_templates, root, base_url)


def _compile_templates(root: Path, base_url: str | None) -> dict[str, bytes]:
    config, _ = load_config(root / "content" / CONFIG_NAME, base_url)
    return Renderer(root, config).compile_all() if config is not None else {}


# What forked workers inherit from the parent: the checked site (read-only), set just before they start.
_JOB: dict = {}

PLANS_PER_JOB = 64  # site outputs are quick to render: fewer than this per process are not worth a pool


class _Render:
    """The rendering half of a build: story variants, then site pages, then sitemaps and search; each output
    either made or, when its inputs match the memo's, taken as it was."""

    def __init__(self, root: Path, checked: Checked, sections: Spill, result: BuildResult,
                 jobs: int | None, progress: Progress | None, sink: Sink | None, memo: Memo | None,
                 reuse: Mapping[str, bytes] | None, ahead: ShardWriter | None) -> None:
        self.root, self.checked, self.sections, self.result = root, checked, sections, result
        self.jobs, self.progress, self.sink, self.memo, self.reuse = jobs, progress, sink, memo, reuse
        self.ahead = ahead
        self.index = checked.index
        if memo is not None:
            COMPILED.adopt(memo.compiled)  # the last build's compiled templates: this process need not compile
        self.renderer = Renderer(root, self.index.config)
        self.sources: dict[str, str] = {}
        self.entries: dict[str, Entry | None] = {}  # None: new to the memo, until made() makes its entry
        self.pages: dict[str, tuple[str, str, str]] = {}

    def run(self, search: bool) -> None:
        views = self.stories()
        if self.ahead is not None and self.memo is not None:  # the entries are complete: their shards may be written
            self.ahead.start(self.entries, self.memo, workers(self.jobs).jobs)
        ordered = [views[path] for path in sorted(views)]
        if self.progress:
            self.progress("pages", len(views), len(views))
        site = self.site_key(ordered)
        if self.memo is not None and self.memo.site == site and self.reusable(
                [(path, code) for path, (_, code, _) in self.memo.pages.items()]):
            self.pages.update(self.memo.pages)  # no listed view, manifest or page moved
            for path, (_, code, source) in self.memo.pages.items():
                self.keep(path, code, source)
        else:
            mark, config = operator.attrgetter("mark"), self.index.config
            plans = [*site_plans(ordered, self.checked.content.pages, self.renderer, config, mark),
                     *feed_plans(ordered, self.renderer, config, mark),
                     *manifest_plans(self.index.manifests, ordered, self.renderer, config, mark)]
            files = dict.fromkeys([*self.sources, *(plan.path for plan in plans)])  # every output the site will have
            self.site([*plans, *sitemap_plans(ordered, files, self.renderer, config, mark)])  # sitemaps among them
        if search:
            self.search()
        self.result.stories = len(views)
        self.result.pages = sum(path.endswith(".html") for path in self.sources) - len(views)
        if self.memo is not None:
            current = set(self.index.digests.values())
            scores = {pair: score for pair, score in self.index.scores.items() if set(pair) <= current}
            self.result.memo = Memo(self.memo.key, self.memo.options, self.entries, self.related_index, self.pages,
                                    scores, site, self.checked.content.manifest_files, self.checked.manifests,
                                    self.index.repeats, self.templates, COMPILED.compiled(), self.memo.shards)

    def site_key(self, ordered: list[StoredView]) -> str:
        """A digest of everything the site's pages are made from besides the generator, options and site.toml:
        each story's view, each manifest, each plain page and the templates."""
        content = self.checked.content
        return key_of(*(f"{view.path}\t{view.mark}" for view in ordered), "",
                       *(f"{key}\t{found.digest}" for key, found in sorted(self.index.manifests.items())), "",
                       *(f"{page.path}\t{page.meta!r}\t{page.body}" for page in content.pages), "",
                       self.renderer.digest(*self.renderer.env.loader.list_templates()))

    def stories(self) -> dict[str, StoredView]:
        """Every story's view by path, rendering the stories whose view or templates changed."""
        index, memo = self.index, self.memo
        stories = sorted(index.stories, key=lambda s: s.path)
        found, computed = self.related(stories)
        self.templates = self.renderer.digest(*(f"story.{suffix}" for suffix in Renderer.STORY_VARIANTS))
        views: dict[str, StoredView] = {}
        todo: list[tuple[Story, list[str] | None]] = []
        fresh = self.checked.fresh_keys
        same_templates = memo is not None and memo.templates == self.templates
        for story in stories:
            keys = story.meta.related if story.meta.related is not None else found.get(story.key)
            before = memo.stories.get(story.path) if memo else None
            passed = self.checked.report.passed.get(story.path, [])
            if before is not None and story.path not in self.checked.fresh:
                unmoved = (same_templates and keys is not None and before.related == keys and before.passed == passed
                           and fresh.isdisjoint(keys))  # nothing its variants are made from moved
                if (unmoved and before.render and self.checked.prepared[story.path] is before.prepared
                        and self.reusable(before.outputs)):  # the memo's entry holds as it is (most of them)
                    self.entries[story.path], views[story.path] = before, before.view
                    for path, code in before.outputs:
                        self.keep(path, code, story.path)
                    continue
                entry = Entry(self.checked.prepared[story.path], before.deps)  # as the memo read it: a brief
                if unmoved:
                    entry.render = before.render
            elif before is None:  # new to the memo (every story of a first build): its entry is made as its
                self.entries[story.path] = None  # rendering comes back (made()), while the others render
                todo.append((story, keys))
                continue
            else:
                entry = self.fresh_entry(story)
            entry.related, entry.passed = keys, passed
            if keys is not None and memo is not None and not entry.render:
                entry.render = self.render_key(story, keys, passed)
            self.entries[story.path] = entry
            if before is not None and entry.render and before.render == entry.render and self.reusable(before.outputs):
                entry.view, entry.outputs = before.view, before.outputs
                if entry.same(before):
                    self.entries[story.path] = before  # the very entry the memo had: its shard need not be saved
                views[story.path] = before.view
                for path, code in before.outputs:
                    self.keep(path, code, story.path)
            else:
                todo.append((story, keys))
        if todo:
            self.renderer.load(f"story.{suffix}" for suffix in Renderer.STORY_VARIANTS)
        _JOB.update(root=self.root, index=index, report=self.checked.report, computed=computed, todo=todo,
                    sections=self.sections, sink=self.sink, renderer=self.renderer)
        try:
            rendered = workers(self.jobs).steps(render_story, range(len(todo)), len(todo))
            for done, ((story, _), (view, outputs, keys)) in enumerate(zip(todo, rendered), start=1):
                self.made(story, view, outputs, keys, found)
                views[story.path] = view
                if self.progress:
                    self.progress("render", done, len(todo))
        finally:
            _JOB.clear()
        if computed is not None:
            computed.results = found
        return views

    def fresh_entry(self, story: Story) -> Entry:
        """The memo entry of a story read this build: its reading without its sections, its story a brief."""
        prepared = self.checked.prepared[story.path]
        return Entry(dataclasses.replace(prepared, sections=None, story=story.brief()), self.checked.deps[story.path])

    def related(self, stories: list[Story]) -> tuple[dict[str, list[str]], RelatedIndex | None]:
        """The computed related stories known before rendering (all of them, after an edit, from the memo
        and what the edit reaches), or an index for the render workers to score each story (a first build)."""
        self.related_index: RelatedIndex | None = None
        if all(story.meta.related is not None for story in stories):
            return {}, None
        site, previous = self.index, take(self.memo, "related")
        changed = self.checked.fresh_keys
        if previous is not None and previous.update(site.stories, site.cited, site.features, changed):
            self.related_index = previous
            return previous.results, None
        self.related_index = RelatedIndex(site.stories, site.cited, site.features, previous=previous, changed=changed)
        if previous is None and (self.memo is None or not self.memo.stories):
            return {}, self.related_index  # a first build: the render workers score each story as they render it
        return related_all(self.related_index, previous, changed), None

    def render_key(self, story: Story, keys: list[str], passed: list[str]) -> str:
        """A digest of everything a story's three variants are rendered from: its file, the manifests it refers
        to, the titles and places of its related stories, the checks it passed and the story templates."""
        by_key = self.index.by_key
        related = [f"{key}\t{by_key[key].meta.title}" for key in keys if key in by_key]
        prepared = self.checked.prepared[story.path]
        return key_of(prepared.digest, self.checked.deps[story.path], *related, "", *passed, self.templates)

    def made(self, story: Story, view: StoredView, outputs: list[tuple[str, bytes | Kept]], keys: list[str],
             found: dict[str, list[str]]) -> None:
        entry = self.entries[story.path]
        if entry is None:  # new to the memo (see stories())
            entry = self.entries[story.path] = self.fresh_entry(story)
            entry.passed = self.checked.report.passed.get(story.path, [])
        by_key = self.index.by_key
        keys = [by_key[key].key if key in by_key else key for key in keys]  # this process's copies (from a worker):
        if story.meta.related is None:                                      # the memo then pickles each key once
            found[story.key] = keys
        if self.memo is not None and not entry.render:  # a first build learns related stories while rendering
            entry.render = self.render_key(story, keys, self.checked.report.passed.get(story.path, []))
        entry.related = keys
        entry.view = view
        view.unpack()  # now, while the workers render, rather than when the site's pages are planned
        entry.outputs = [(path, data.digest if isinstance(data, Kept) else "") for path, data in outputs]
        self.result.rendered += len(outputs)
        for path, data in outputs:
            self.add(path, data, story.path)

    def site(self, plans: list[Plan]) -> None:
        """Site outputs: each made again only if its inputs (or templates) moved since the memo."""
        todo: list[tuple[Plan, str]] = []
        for plan in plans:
            inputs = key_of(self.renderer.digest(plan.template) if plan.template else "", repr(plan.inputs))
            before = self.memo.pages.get(plan.path) if self.memo is not None else None
            if before is not None and before[0] == inputs and self.reusable([(plan.path, before[1])]):
                self.pages[plan.path] = before
                self.keep(plan.path, before[1], plan.source)
            else:
                todo.append((plan, inputs))
        self.renderer.load(plan.template for plan, _ in todo if plan.template and plan.rendered)
        _JOB.update(plans=[plan for plan, _ in todo], sink=self.sink)
        try:
            made = workers(self.jobs).steps(render_plan, range(len(todo)), len(todo), min_per_job=PLANS_PER_JOB)
            for (plan, inputs), data in zip(todo, made):
                self.pages[plan.path] = (inputs, data.digest if isinstance(data, Kept) else "", plan.source)
                self.result.rendered += 1
                self.add(plan.path, data, plan.source)
        finally:
            _JOB.clear()

    def search(self) -> None:
        result, sink = self.result, self.sink
        pages = {path: result.files[path] if sink is None else sink.read(path, path in result.written)
                 for path in self.sources if path.endswith(".html")}
        from .site.search import search_index

        found = search_index(pages)
        for path, data in found.files.items():
            self.add(path, _kept(path, data, sink), "generator/site/search.py")
        result.findings = [*result.findings, *found.notes]

    def reusable(self, outputs: list[tuple[str, str]]) -> bool:
        """Outputs can be taken as they were: left in place (a sink), or found among the last files."""
        if self.sink is not None:
            return all(code for _, code in outputs)
        return self.reuse is not None and all(path in self.reuse for path, _ in outputs)

    def keep(self, path: str, code: str, source: str) -> None:
        """Record one output taken as it was (as add() does, without making a Kept for it: thousands a build)."""
        if self.sink is None:
            self.add(path, self.reuse[path], source)
        elif path in self.sources:
            self.add(path, Kept(code, False), source)  # the LP011
        else:
            self.sources[path] = source
            self.result.digests[path] = code

    def add(self, path: str, data: bytes | Kept, source: str) -> None:
        """Record one output; a second claim on a path is an LP011 against the later source."""
        result = self.result
        if path in self.sources:
            url = "/" + path.removesuffix("index.html")
            result.findings = [*result.findings, Finding(source, 1, 1, "LP011", f"same URL {url} as {self.sources[path]}")]
            return
        self.sources[path] = source
        if isinstance(data, Kept):
            result.digests[path] = data.digest
            if data.written:
                result.written.add(path)
        else:
            result.files[path] = data


def render_story(position: int) -> Generator[None, None, tuple[StoredView, list[tuple[str, bytes | Kept]], list[str]]]:
    """One story's three variants, its view without the body (all that list pages and feeds need) and the
    keys of its related stories: in steps, which workers run for a batch of stories at a time (a template
    renders the whole batch before the next one starts; see workers.lockstep)."""
    job = _JOB
    story, keys = job["todo"][position]
    index = job["index"]
    if keys is None:
        keys = job["computed"].related(story.key)
    packed = job["sections"].get(story.path)  # rendered by the worker that read it
    if packed is not None:
        sections = unpacked(packed)
    else:  # the memo held the story unchanged (its brief), but its page must be rendered again
        story, sections = _read_again(job["root"], story.path, index.manifests)
    related = related_views(keys, index.by_key, index.config)
    view = story_view(story, sections, index.manifests, index.config, related, job["report"].passed.get(story.path, []))
    texts = {}
    for suffix in Renderer.STORY_VARIANTS:
        yield
        texts[suffix] = job["renderer"].render(f"story.{suffix}", story=view)
    yield
    outputs = [(path, _kept(path, text.encode("utf-8"), job["sink"]))
               for path, text in ((f"stories/{story.key}/index.{suffix}", text) for suffix, text in texts.items())]
    return StoredView(view, to_data(view)), outputs, keys  # the JSON variant's dump of the view, not another


def _read_again(root: Path, shown: str, manifests: dict[str, ManifestFile]) -> tuple[Story, list[SectionView]]:
    story, _ = load_story(root / shown, shown)
    return story, story_sections(story, parse_body(story.body, story.body_line), manifests)


def render_plan(position: int) -> Generator[None, None, bytes | Kept]:
    """One site output, made and then written: in two steps (see workers.lockstep)."""
    plan = _JOB["plans"][position]
    data = _bytes(plan.make())
    yield
    return _kept(plan.path, data, _JOB["sink"])


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
