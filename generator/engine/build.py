"""The pipeline: read and check the site, then make every output whose inputs changed (all of them, without a
memo) into an output store; the store keeps the rest as they were. Nothing is made if an error remains."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from jinja2 import TemplateError

from ..content.config import SiteConfig
from ..content.findings import Finding
from ..content.images import ImageChanged, ImageFailed
from ..content.manifests import ManifestChanged
from ..output.store import OutputStore
from ..render.kinds import navigation
from ..render.teaser import Teaser
from ..render.templates import Renderer, template_finding
from ..site import LAST, Output
from .check import Checked, Progress, check_site, learned
from .fingerprint import qualified_name
from .memo import Memo
from .pages import (
    PageMaking,
    collisions,
    make_outputs,
    output_fingerprint,
    site_fingerprint,
    site_outputs,
    stale_outputs,
)
from .pool import default_jobs
from .read import Spill, StoryChanged
from .records import PageRecord, Rendered, SearchRecord
from .search import holds_all, made_from, make_search, search_plan
from .stories import (
    STORY_TEMPLATES,
    Making,
    make_stories,
    related_stories,
    stale_stories,
    story_jobs,
)



@dataclass(frozen=True)
class Options:
    drafts: bool = False         # build the stories marked draft: true
    base_url: str | None = None  # instead of site.toml's
    jobs: int | None = None      # processes (default: every core)
    search: bool = True          # make the search index (without it, the store keeps the last one)
    now: dt.datetime | None = None  # the build's time, which decides what is scheduled (default: engine/clock.py)
    scheduled: bool = False      # build the scheduled stories too (the preview does, under a banner)


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

    @property
    def ok(self) -> bool:
        return not any(finding.severity == "error" for finding in self.findings)


def build_site(root: Path, store: OutputStore, options: Options = Options(), memo: Memo | None = None,
               digests: Mapping[str, str] | None = None, progress: Progress | None = None,
               memo_key: tuple[str, str] = ("", "")) -> BuildResult:
    """Check, then make the outputs the store does not hold already. `memo`: the last good build's (for the
    same key), with `digests` (each content file's, by path as shown, as a scan found it) telling which of
    its records still hold; `memo_key`: (key, options) the next memo is made for."""
    jobs = options.jobs or default_jobs()
    spill = Spill(store.scratch())
    try:
        checked = check_site(root, options.drafts, options.base_url, jobs, memo, digests, spill, progress,
                             now=options.now, scheduled=options.scheduled)
        result = BuildResult(checked.findings)
        result.scheduled = sorted(((story.path, story.url_path, story.published.astimezone(dt.timezone.utc))
                                   for story in checked.scheduled), key=lambda item: (item[2], item[0]))
        times = [when for story in checked.stories for when in story.corrections]  # a correction dates its story
        result.newest = max((when for when in (*(story.published for story in checked.stories), *times)
                             if when <= checked.now), default=None)
        result.correction_due = min((when for when in times if when > checked.now), default=None)
        if result.ok and checked.config is not None:
            try:
                _make(root, checked, store, spill, options, jobs, memo, memo_key, result, progress)
            except TemplateError as err:
                _failed(result, template_finding(root, err))
            except (ManifestChanged, StoryChanged, ImageChanged) as err:
                _failed(result, Finding(str(err), 1, 1, "LP001", "the file changed while the site was being built; "
                                                              "build again"))
            except ImageFailed as err:
                _failed(result, Finding(err.args[0], 1, 1, "LP070", f"image {err.args[1]}"))
    finally:
        spill.close()
    return result


def _failed(result: BuildResult, finding: Finding) -> None:
    result.findings = [*result.findings, finding]
    result.outputs, result.memo = {}, None


def _make(root: Path, checked: Checked, store: OutputStore, spill: Spill, options: Options, jobs: int,
          memo: Memo | None, memo_key: tuple[str, str], result: BuildResult, progress: Progress | None) -> None:
    config = checked.config
    shared = _shared_urls(checked)
    if shared:  # LP011 turned off or down: one address still cannot hold two stories
        result.findings = [*result.findings, *shared]
        return
    renderer = Renderer(root, config, navigation(config))
    related, related_kept = related_stories(checked, memo, jobs)
    story_list = story_jobs(checked, related)
    templates = renderer.digest(*STORY_TEMPLATES)
    stale = stale_stories(story_list, checked.records, templates, store.holds, memo.made if memo else None)
    if stale:
        renderer.compile(STORY_TEMPLATES)
    making = Making(str(root), config, checked.manifests, renderer, templates, store, spill, checked.spilled,
                    checked.authors, checked.images)
    made = make_stories(making, stale, jobs, progress)
    records = dict(checked.records)
    rendered, outputs, sources = [], {}, {}  # each story's Rendered (made now or kept) by path; its outputs
    for job in story_list:
        record = records[job.path]
        variants = made.get(job.path, record.rendered)
        if variants is not record.rendered:
            records[job.path] = dataclasses.replace(record, rendered=variants)
        rendered.append((job.path, variants))
        outputs.update(variants.outputs)
        sources.update(dict.fromkeys(variants.outputs, job.path))
    pages = _make_pages(checked, renderer, store, rendered, outputs, sources, memo, jobs, result)
    if not result.ok:
        return
    result.searchable = [records[job.path] for job in story_list], checked.pages, pages.records
    search = _search(store, options, memo, jobs, result)
    result.outputs = {**outputs, **(search.outputs if search else {})}
    result.stories = len(story_list)
    result.pages = sum(path.endswith(".html") for path in pages.records)
    result.memo = dataclasses.replace(
        learned(checked, records, *memo_key, memo), pages=pages.records, site=pages.site, related=related_kept,
        search=search, reads=pages.reads,
        made={job.path: (job, templates, records[job.path].rendered.job) for job in story_list})


def _shared_urls(checked: Checked) -> list[Finding]:
    first: dict[str, str] = {}
    found = []
    for story in sorted(checked.stories, key=lambda story: story.path):
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


def _make_pages(checked: Checked, renderer: Renderer, store: OutputStore, rendered: list[tuple[str, Rendered]],
                outputs: dict[str, str], sources: dict[str, str], memo: Memo | None, jobs: int,
                result: BuildResult) -> SitePages:
    """The site's other outputs: made when what they are made from moved (LP011 findings go to `result`)."""
    config = checked.config
    teasers = [variants.teaser_digest for _, variants in rendered]
    site = site_fingerprint(teasers, checked.manifests, checked.pages, sorted(outputs), renderer, checked.authors,
                            checked.images)
    stale = _reading_moved(memo, site, outputs, store.holds)
    if stale is not None:
        producers = {memo.pages[path].producer for path in stale}
        planned = site_outputs(config, _teasers(rendered, memo), checked.manifests, checked.pages, (),
                               checked.authors, checked.images, only=producers) if stale else []
        made = _make_planned([found for found in planned if found[1].path in stale], config, renderer, store,
                             outputs, memo.pages, jobs, others=True)
        return SitePages(made, site, {path: outputs.get(path, "") for path in memo.reads})
    planned = site_outputs(config, _teasers(rendered, memo), checked.manifests, checked.pages, sorted(outputs),
                           checked.authors, checked.images)
    lost, clashes = collisions([output for _, output in planned], sources)
    severity = config.checks.get("LP011", "error")  # off or a warning: what cannot be written is left out
    if clashes and severity != "off":
        result.findings = [*result.findings, *(dataclasses.replace(f, severity=severity) for f in clashes)]
        if severity == "error":
            return SitePages({}, site, {})
    planned = [found for n, found in enumerate(planned) if n not in lost]
    reads = {path: outputs.get(path, "") for path in sorted({path for _, output in planned for path in output.reads})}
    made = _make_planned(planned, config, renderer, store, outputs, memo.pages if memo else {}, jobs, others=False)
    return SitePages(made, site, reads)


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


def _make_planned(planned: list[tuple[str, Output]], config: SiteConfig, renderer: Renderer, store: OutputStore,
                  outputs: dict[str, str], last: dict[str, PageRecord], jobs: int,
                  others: bool) -> dict[str, PageRecord]:
    """Make those planned outputs whose fingerprint is not the last build's; the records of all, by path, and
    (`others`) of every output of the last build that was not planned, as it was."""
    prints = [output_fingerprint(output, renderer, outputs) for _, output in planned]
    stale = stale_outputs([output for _, output in planned], prints, last, store.holds)
    todo = [planned[n][1] for n in stale]
    renderer.compile(output.template for output in todo if output.template and not output.raw)
    made = {receipt.path: receipt.digest for receipt in make_outputs(PageMaking(config, renderer, store, todo), jobs)}
    pages = dict(last) if others else {}
    for (name, output), made_from in zip(planned, prints):
        code = made[output.path] if output.path in made else last[output.path].digest
        pages[output.path] = PageRecord(made_from, code, output.source, name, output.reads)
    outputs.update((path, page.digest) for path, page in pages.items())
    return pages


def _search(store: OutputStore, options: Options, memo: Memo | None, jobs: int,
            result: BuildResult) -> SearchRecord | None:
    """The search index, its shards made again where their pages changed; without search, the last one only if
    it was made from exactly the pages of this build (and the store still holds it): one made from other pages
    would publish the text of a story this build leaves out (scheduled, a draft again, deleted)."""
    last = memo.search if memo else None
    plan = search_plan(*result.searchable)
    if not options.search:
        return last if last is not None and made_from(plan, last) and holds_all(store, last.outputs) else None
    search = make_search(plan, last, store, store.read, jobs)
    result.findings = [*result.findings, *search.notes]
    return search.record
