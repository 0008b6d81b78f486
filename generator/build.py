"""The pipeline: load, parse, check, view, render; returns files as {path: bytes} and findings."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import TemplateError

from .body import Body, parse_body
from .checks import Report, SiteIndex, run_checks
from .config import CONFIG_NAME
from .load import Content, load_content
from .models import Finding, Story
from .render import Renderer, template_dirs
from .feeds import feed_outputs
from .search import search_index
from .similarity import related_keys
from .site import manifest_outputs, site_outputs, sitemap_outputs
from .view import StoryView, related_views, story_view


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
    findings: list[Finding]
    files: dict[str, bytes] = field(default_factory=dict)
    stories: int = 0
    pages: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)


def check_site(root: Path, drafts: bool = True, base_url: str | None = None) -> Checked:
    """Load everything and run every rule; no rendering."""
    content = load_content(root, drafts=drafts, base_url=base_url)
    if content.config is None:
        return Checked(content, None, Report(sorted(content.findings), {}))
    bodies: dict[str, Body] = {s.path: parse_body(s.body, s.body_line) for s in [*content.stories, *content.broken]}
    index = SiteIndex(content.config, content.manifests, content.stories, bodies, content.broken,
                      pages=content.pages, config_path=f"content/{CONFIG_NAME}", root=root)
    return Checked(content, index, run_checks(index, content.findings))


def build_site(root: Path, drafts: bool = False, base_url: str | None = None) -> BuildResult:
    """Check, then render every output in memory; nothing is rendered if an error remains."""
    started = time.perf_counter()
    checked = check_site(root, drafts=drafts, base_url=base_url)
    result = BuildResult(checked.findings)
    if not result.ok or checked.index is None:
        return result
    try:
        _render(root, checked, result)
    except TemplateError as err:
        result.files = {}
        result.findings = [*result.findings, template_finding(root, err)]
    result.seconds = time.perf_counter() - started
    return result


def _render(root: Path, checked: Checked, result: BuildResult) -> None:
    index = checked.index
    config = index.config
    renderer = Renderer(root, config)
    stories = sorted(index.stories, key=lambda s: s.path)
    unset = [story for story in stories if story.meta.related is None]
    computed = related_keys(index.stories, index.bodies) if unset else {}
    views = [_view(story, index, checked.report, computed) for story in stories]
    sources: dict[str, str] = {}
    for view, story in zip(views, stories):
        for suffix, text in renderer.story(view).items():
            _add(result, sources, f"stories/{story.key}/index.{suffix}", text, story.path)
    for path, data, source in [*site_outputs(views, checked.content.pages, renderer, config),
                               *feed_outputs(views, renderer, config)]:
        _add(result, sources, path, data, source)
    for path, data, source in manifest_outputs(index.manifests, views, renderer, config):
        _add(result, sources, path, data, source)
    for path, data, source in sitemap_outputs(views, result.files, renderer, config):
        _add(result, sources, path, data, source)
    search = search_index(result.files)
    for path, data in search.files.items():
        _add(result, sources, path, data, "generator/search.py")
    result.findings = [*result.findings, *search.notes]
    result.stories = len(views)
    result.pages = sum(path.endswith(".html") for path in result.files) - len(views)


def _view(story: Story, index: SiteIndex, report: Report, computed: dict[str, list[str]]) -> StoryView:
    """The story's view; `related` from its front matter, else the computed most similar earlier stories."""
    keys = story.meta.related if story.meta.related is not None else computed.get(story.key, [])
    related = related_views(keys, index.by_key, index.config)
    return story_view(story, index.bodies[story.path], index.manifests, index.config, related,
                      report.passed.get(story.path, []))


def _add(result: BuildResult, sources: dict[str, str], path: str, data: str | bytes, source: str) -> None:
    """Record one output; a second claim on a path is an LP011 against the later source."""
    if path in result.files:
        url = "/" + path.removesuffix("index.html")
        result.findings = [*result.findings, Finding(source, 1, 1, "LP011", f"same URL {url} as {sources[path]}")]
        return
    sources[path] = source
    result.files[path] = data.encode("utf-8") if isinstance(data, str) else data


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
