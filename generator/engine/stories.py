"""Each story's three variants: what each is made from (a StoryJob), which of them the memo and the store hold
already as they would be made now, and the making of the rest, on every core."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import orjson

from ..analysis.related_index import RelatedIndex, related_all
from ..content.config import SiteConfig
from ..content.layout import file_digest
from ..output.store import OutputStore, Receipt
from ..render.story_terms import story_keys
from ..render.story_job import StoryJob
from ..render.story_view import story_view
from ..render.teaser import teaser_data
from ..render.templates import Renderer
from ..site.search import indexed_part
from .inputs import Progress, SiteInputs
from .fingerprint import fingerprint
from .memo import Memo, take
from .pool import run_all
from .read import Reading, Spill, Spilled, sections_again, spilled_story
from .records import MadeFrom, Rendered, StoryRecord

STORY_TEMPLATES = tuple(f"story.{suffix}" for suffix in Renderer.STORY_VARIANTS)
RELATED_PER_WORKER = 500  # scoring one story is quick: for fewer a process, starting the process costs more


def related_stories(inputs: SiteInputs, memo: Memo | None, jobs: int) -> tuple[dict[str, list[str]], dict | None]:
    """Every story's related stories (its own `related:` list, else computed), and the index to keep: the
    memo's, updated in place for the stories read again, or one built anew (from the memo's, if there is one),
    whose stories are scored on `jobs` cores."""
    stories = inputs.stories
    if all(story.related is not None for story in stories):
        return {}, None
    records = inputs.records
    cited = {story.path: records[story.path].cited for story in stories}
    known = {story.path: records[story.path].features for story in stories}
    changed = {records[path].brief.key for path in inputs.fresh if records[path].brief is not None}
    previous, kept = None, take(memo, "related")
    if kept is not None:  # made with the features the memo's records hold
        before = {path: record.features for path, record in memo.stories.items() if record.features is not None}
        previous = RelatedIndex.restore(kept, before)
    if previous is not None and previous.update(stories, cited, known, changed):
        return previous.results, previous.snapshot()
    index = RelatedIndex(stories, cited, known, previous=previous, changed=changed)
    return related_all(index, previous, changed, functools.partial(_score, jobs=jobs)), index.snapshot()


def _score(index: RelatedIndex, keys: Sequence[str], jobs: int) -> Iterable[list[str]]:
    """index.related() of each key, on every core when there are many (the workers inherit the index)."""
    return run_all(_related, index, keys, jobs, min_per_job=RELATED_PER_WORKER)


def _related(index: RelatedIndex, key: str) -> list[str]:
    return index.related(key)


def story_jobs(inputs: SiteInputs, related: Mapping[str, list[str]]) -> list[StoryJob]:
    """The job of every story of the site, in order of path."""
    ordered = sorted(inputs.stories, key=lambda s: s.path)
    link: dict[str, tuple[str, str, str]] = {}  # each key's first story by path, as a link to it
    for story in ordered:
        if story.key not in link:
            link[story.key] = (story.key, story.title, story.url_path)
    found = []
    manifests, authors, images = inputs.manifests, inputs.authors, inputs.images
    for story in ordered:
        record = inputs.records[story.path]
        keys = story.related if story.related is not None else related.get(story.key, [])
        found.append(StoryJob(
            story.path, record.digest, tuple(manifests[i] for i in record.refs if i in manifests),
            tuple(link[key] for key in keys if key in link), tuple(inputs.report.passed.get(story.path, ())),
            tuple(authors[slug] for slug in story.authors if slug in authors),
            tuple((images[use.src], use.alt) for use in story.images if use.src in images),
            # a correction dated after the build's time waits for it, as a scheduled story does
            sum(when <= inputs.now for when in story.corrections) if story.corrections else None))
    return found


@dataclass(frozen=True)
class Making:
    """What making the variants of these stories (`jobs`) needs besides each job: forked workers inherit it,
    and are sent only each job's position."""

    root: str
    config: SiteConfig
    renderer: Renderer
    templates: str
    store: OutputStore
    spill: Spill
    spilled: Mapping[str, Spilled]
    jobs: Sequence[StoryJob] = ()


def make_story(making: Making, position: int) -> tuple[list[Receipt], Rendered]:
    """One story's view and three variants, put in the store; its teaser for the pages that list it. Made from
    its file and its job alone."""
    job = making.jobs[position]
    spilled = making.spilled.get(job.path)
    if spilled is not None:
        story, sections = spilled_story(making.spill, spilled, job.path)
    else:  # the memo held the story unchanged, but its variants must be made again
        reading = Reading(making.root, making.config, job.manifests_by_id(), None, job.images_by_src())
        story, sections = sections_again(reading, job.path, job.digest)
    view = story_view(story, sections, job, making.config)
    variants = {suffix: making.renderer.render(f"story.{suffix}", story=view).encode("utf-8")
                for suffix in Renderer.STORY_VARIANTS}
    receipts = [making.store.put(f"stories/{story.key}/index.{suffix}", data) for suffix, data in variants.items()]
    data = teaser_data(view)
    teaser = orjson.dumps(data)
    outputs = {receipt.path: receipt.digest for receipt in receipts}
    return receipts, Rendered(fingerprint(job, making.templates), outputs, teaser, file_digest(teaser), story_keys(data),
                              file_digest(indexed_part(variants["html"])))


def stale_stories(story_list: list[StoryJob], records: Mapping[str, StoryRecord], templates: str,
                  holds: Callable[[str, str], bool], last: Mapping[str, MadeFrom] | None = None) -> list[StoryJob]:
    """The jobs whose variants must be made: those the memo's records do not show made from the same job,
    and those whose outputs the store no longer holds. `last`: what the previous build in this process made
    each story from (the preview's): a job equal to it is known by its fingerprint without taking it again."""
    last = last or {}
    stale = []
    for job in story_list:
        rendered = records[job.path].rendered
        if rendered is None or not all(holds(path, code) for path, code in rendered.outputs.items()):
            stale.append(job)
        elif last.get(job.path) != (job, templates, rendered.job) and rendered.job != fingerprint(job, templates):
            stale.append(job)
    return stale


def make_stories(making: Making, workers: int, progress: Progress | None = None) -> dict[str, Rendered]:
    """Make the variants of the stories of the making's jobs on `workers` cores; each story's Rendered by path."""
    made = {}
    todo = making.jobs
    for done, (job, (receipts, rendered)) in enumerate(zip(todo, run_all(make_story, making, range(len(todo)),
                                                                         workers)), 1):
        for receipt in receipts:
            making.store.receive(receipt)
        made[job.path] = rendered
        if progress:
            progress("render", done, len(todo))
    return made
