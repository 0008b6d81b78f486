"""The pipeline: read and check the site, then make every output whose inputs changed (all of them, without a
memo) into an output store; the store keeps the rest as they were. Nothing is made if an error remains."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from jinja2 import TemplateError

from ..content.config import SiteConfig
from ..content.findings import Finding
from ..content.image_files import ImageChanged, ImageFailed
from ..content.manifest_files import ManifestChanged
from ..output.store import OutputStore
from ..render.navigation import navigation
from ..render.story_job import StoryJob
from ..render.teaser import Teaser
from ..render.templates import Renderer, template_finding
from ..site import LAST, Output, Site
from ..site.search import SHARDS
from .site_check import check_site, learned
from .fingerprint import qualified_name
from .inputs import Run, SiteInputs
from .memo import Memo
from .site_outputs import (
    PageMaking,
    collisions,
    make_outputs,
    output_fingerprint,
    site_fingerprint,
    site_outputs,
    stale_outputs,
)
from .read import Spill, StoryChanged
from .records import PageRecord, Rendered, SearchRecord, StoryRecord
from .indexing import holds_all, made_from, make_search, search_plan
from .stories import (
    STORY_TEMPLATES,
    Making,
    make_stories,
    related_stories,
    stale_stories,
    story_jobs,
)


@dataclass
class BuildResult:
    """The findings; on success every output's digest by path (what the store must hold after commit), the
    counts for the summary, and the memo for the next build."""

    findings: list[Finding]
    outputs: dict[str, str] = field(default_factory=dict)
    stories: int = 0
    pages: int = 0
    memo: Memo | None = None
    scheduled: list[tuple[str, str, dt.datetime]] = field(default_factory=list)  # (path, URL path, time), soonest first
    newest: dt.datetime | None = None  # the latest time a story built was published or corrected (a build before
                                       # it differs)
    correction_due: dt.datetime | None = None  # when the next correction of a story built falls due
    searchable: tuple = ((), (), {})  # search_plan's arguments: the stories' records, the plain pages, page records
    searched: bool = False  # the search index was asked for, and made

    @property
    def ok(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)


def build_site(run: Run, store: OutputStore) -> BuildResult:
    """Check, then make the outputs the store does not hold already (the run's prior memo, made for the same
    key, and the scan's digests, telling which of its records still hold)."""
    run = dataclasses.replace(run, spill=Spill(store.scratch()))
    try:
        inputs = check_site(run)
        result = BuildResult(inputs.findings)
        result.scheduled = sorted(((story.path, story.url_path, story.published.astimezone(dt.timezone.utc))
                                   for story in inputs.scheduled), key=lambda item: (item[2], item[0]))
        times = [when for story in inputs.stories for when in story.corrections]  # a correction dates its story
        result.newest = max((when for when in (*(story.published for story in inputs.stories), *times)
                             if when <= inputs.now), default=None)
        result.correction_due = min((when for when in times if when > inputs.now), default=None)
        if result.ok and inputs.config is not None:
            try:
                _make(run, inputs, store, result)
            except TemplateError as err:
                _failed(result, template_finding(run.root, err))
            except (ManifestChanged, StoryChanged, ImageChanged) as err:
                _failed(result, Finding(str(err), 1, 1, "LP001", "the file changed while the site was being built; "
                                                              "build again"))
            except ImageFailed as err:
                _failed(result, Finding(err.args[0], 1, 1, "LP070", f"image {err.args[1]}"))
    finally:
        run.spill.close()
    return result


def _failed(result: BuildResult, finding: Finding) -> None:
    result.findings = [*result.findings, finding]
    result.outputs, result.memo = {}, None


@dataclass(frozen=True)
class _Building:
    """What every step of making a site's outputs works with: the run, site.toml, the templates, the store
    the outputs go to, and the result it adds its findings to."""

    run: Run
    config: SiteConfig
    renderer: Renderer
    store: OutputStore
    result: BuildResult


class StoryOutputs(NamedTuple):
    """The stories' variants as this build leaves them: each story's Rendered (made now or kept), in order of
    path; every variant's digest by output path; the story file each variant was made from."""

    rendered: list[tuple[str, Rendered]]
    digests: dict[str, str]
    sources: dict[str, str]


def _make(run: Run, inputs: SiteInputs, store: OutputStore, result: BuildResult) -> None:
    config = inputs.config
    shared = _shared_urls(inputs)
    if shared:  # LP011 turned off or down: one address still cannot hold two stories
        result.findings = [*result.findings, *shared]
        return
    building = _Building(run, config, Renderer(run.root, config, navigation(config)), store, result)
    related, related_kept = related_stories(inputs, run.memo, run.jobs)
    story_list = story_jobs(inputs, related)
    stories, records = _make_stories(building, inputs, story_list)
    pages = _make_pages(building, inputs, stories)
    if not result.ok:
        return
    result.searchable = [records[job.path] for job in story_list], inputs.pages, pages.records
    search = _search(building)
    result.outputs = {**stories.digests, **(search.outputs if search else {})}
    result.searched = run.options.search and SHARDS in result.outputs
    result.stories = len(story_list)
    result.pages = sum(path.endswith(".html") for path in pages.records)
    templates = building.renderer.digest(*STORY_TEMPLATES)
    result.memo = dataclasses.replace(
        learned(inputs, records, run.prior), pages=pages.records, site=pages.site, related=related_kept,
        search=search, reads=pages.reads,
        made={job.path: (job, templates, records[job.path].rendered.job) for job in story_list})


def _make_stories(building: _Building, inputs: SiteInputs,
                  story_list: list[StoryJob]) -> tuple[StoryOutputs, dict[str, StoryRecord]]:
    """Every story's variants, made again where its job or the story templates moved (or the store lost them);
    the story records, with what was made now."""
    run, renderer = building.run, building.renderer
    templates = renderer.digest(*STORY_TEMPLATES)
    stale = stale_stories(story_list, inputs.records, templates, building.store.holds,
                          run.memo.made if run.memo else None)
    if stale:
        renderer.compile(STORY_TEMPLATES)
    making = Making(str(run.root), building.config, renderer, templates, building.store, run.spill, inputs.spilled,
                    stale)
    made = make_stories(making, run.jobs, run.progress)
    records = dict(inputs.records)
    stories = StoryOutputs([], {}, {})
    for job in story_list:
        record = records[job.path]
        variants = made.get(job.path, record.rendered)
        if variants is not record.rendered:
            records[job.path] = dataclasses.replace(record, rendered=variants)
        stories.rendered.append((job.path, variants))
        stories.digests.update(variants.outputs)
        stories.sources.update(dict.fromkeys(variants.outputs, job.path))
    return stories, records


def _shared_urls(inputs: SiteInputs) -> list[Finding]:
    first: dict[str, str] = {}
    found = []
    for story in sorted(inputs.stories, key=lambda story: story.path):
        other = first.setdefault(story.key, story.path)
        if other != story.path:
            found.append(Finding(story.path, 1, 1, "LP011", f"same URL /stories/{story.key}/ as {other}: expected "
                                 "each story at an address of its own (two stories cannot be built at one, whatever "
                                 "[checks] says)"))
    return found


class SitePages(NamedTuple):
    """What making the site's other outputs leaves for the memo: their records by path, the fingerprint of all
    they are made from but the story outputs they read, and those story outputs' digests by path."""

    records: dict[str, PageRecord]
    site: str
    reads: dict[str, str]


def _make_pages(building: _Building, inputs: SiteInputs, stories: StoryOutputs) -> SitePages:
    """The site's other outputs: made when what they are made from moved (LP011 findings go to the result)."""
    memo, outputs = building.run.memo, stories.digests
    site = Site(building.config, _teasers(stories.rendered, memo), inputs.manifests, inputs.pages,
                tuple(sorted(outputs)), inputs.authors, inputs.images)
    made_from = site_fingerprint(site, building.renderer)
    stale = _reading_moved(memo, made_from, outputs, building.store.holds)
    if stale is not None:
        producers = {memo.pages[path].producer for path in stale}
        planned = site_outputs(site, only=producers) if stale else []
        made = _make_planned(building, [found for found in planned if found[1].path in stale], outputs, memo.pages,
                             others=True)
        return SitePages(made, made_from, {path: outputs.get(path, "") for path in memo.reads})
    planned = site_outputs(site)
    lost, clashes = collisions([output for _, output in planned], stories.sources)
    severity = building.config.checks.get("LP011", "error")  # off or a warning: what cannot be written is left out
    if clashes and severity != "off":
        result = building.result
        result.findings = [*result.findings, *(dataclasses.replace(f, severity=severity) for f in clashes)]
        if severity == "error":
            return SitePages({}, made_from, {})
    planned = [found for n, found in enumerate(planned) if n not in lost]
    reads = {path: outputs.get(path, "") for path in sorted({path for _, output in planned for path in output.reads})}
    made = _make_planned(building, planned, outputs, memo.pages if memo else {}, others=False)
    return SitePages(made, made_from, reads)


def _reading_moved(memo: Memo | None, site: str, outputs: Mapping[str, str],
                   holds: Callable[[str, str], bool]) -> set[str] | None:
    """When all the site's outputs are made from is as last time (`site`) and the store holds them as made, the
    paths of those that read a story output that changed since (a feed carries whole stories), which are all
    that must be made again; None when the outputs must be planned anew (so must a producer that runs last,
    which is told every output's path)."""
    if memo is None or memo.site != site or not all(holds(path, page.digest) for path, page in memo.pages.items()):
        return None
    moved = {path for path, code in memo.reads.items() if outputs.get(path, "") != code}
    stale = {path for path, page in memo.pages.items() if moved.intersection(page.reads)}
    last = {qualified_name(produce) for produce in LAST}
    return None if any(memo.pages[path].producer in last for path in stale) else stale


def _teasers(rendered: list[tuple[str, Rendered]], memo: Memo | None) -> list[Teaser]:
    """Each story's teaser; those the memo keeps are read from it only if a page reads one."""
    return [Teaser(variants.teaser if variants.teaser is not None else functools.partial(memo.teaser, path),
                   variants.teaser_digest, variants.keys) for path, variants in rendered]


def _make_planned(building: _Building, planned: list[tuple[str, Output]], outputs: dict[str, str],
                  last: dict[str, PageRecord], others: bool) -> dict[str, PageRecord]:
    """Make those planned outputs whose fingerprint is not the last build's; the records of all, by path, and
    (`others`) of every output of the last build that was not planned, as it was."""
    renderer, store = building.renderer, building.store
    prints = [output_fingerprint(output, renderer, outputs) for _, output in planned]
    stale = stale_outputs([output for _, output in planned], prints, last, store.holds)
    todo = [planned[n][1] for n in stale]
    renderer.compile(output.template for output in todo if output.template and not output.raw)
    making = PageMaking(building.config, renderer, store, todo)
    made = {receipt.path: receipt.digest for receipt in make_outputs(making, building.run.jobs)}
    pages = dict(last) if others else {}
    for (name, output), printed in zip(planned, prints):
        code = made[output.path] if output.path in made else last[output.path].digest
        pages[output.path] = PageRecord(printed, code, output.source, name, output.reads)
    outputs.update((path, page.digest) for path, page in pages.items())
    return pages


def _search(building: _Building) -> SearchRecord | None:
    """The search index, its shards made again where their pages changed; without search, the last one only if
    it was made from exactly the pages of this build (and the store still holds it): one made from other pages
    would publish the text of a story this build leaves out (scheduled, a draft again, deleted)."""
    run, store, result = building.run, building.store, building.result
    last = run.memo.search if run.memo else None
    plan = search_plan(*result.searchable)
    if not run.options.search:
        return last if last is not None and made_from(plan, last) and holds_all(store, last.outputs) else None
    search = make_search(plan, last, store, store.read, run.jobs)
    result.findings = [*result.findings, *search.notes]
    return search.record
