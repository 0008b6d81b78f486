"""Reading and checking the whole site: site.toml, the manifests, every story (read on every core, unless the
memo holds the same bytes read against the same manifests), the plain pages, then the site-wide rules.
`ledgerpress check` stops here; a build renders what this returns."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..analysis.repeats import RepeatIndex, site_repeats
from ..analysis.similarity import Features
from ..checks import Report, SiteIndex, run_checks
from ..content.authors import Author, load_authors
from ..content.config import CONFIG_NAME, SiteConfig, load_config
from ..content.findings import Finding
from ..content.images import ImageFile, image_files, read_image
from ..content.manifests import KnownManifest, load_manifest
from ..content.models import ManifestFile, Page, StoryBrief, StoryFile
from ..content.pages import load_page, page_files
from ..content.source import readable, top_folder
from ..content.stories import story_body, story_files
from .clock import build_time
from .memo import Memo, take
from .pool import run_all
from .read import Reading, Spill, Spilled, manifest_digest, read_story
from .records import ImageRecord, ManifestRecord, StoryRecord
from .state import memo_key, options_key

Progress = Callable[[str, int, int], None]


@dataclass
class Checked:
    """The site as read and checked. `records`: every story file, drafts too, by path; `stories`: the site's
    stories (a draft only when drafts are built, a story published after the build's time only when scheduled
    ones are); `fresh`: the stories read this time (the rest came from the memo); `spilled`: where the sections
    of the fresh ones wait."""

    config: SiteConfig | None
    report: Report
    manifests: dict[str, ManifestFile | KnownManifest] = field(default_factory=dict)  # by id
    manifest_files: list[ManifestFile | KnownManifest] = field(default_factory=list)  # every one read, by path
    manifest_records: dict[str, ManifestRecord] = field(default_factory=dict)
    records: dict[str, StoryRecord] = field(default_factory=dict)
    stories: list[StoryBrief] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    fresh: set[str] = field(default_factory=set)
    spilled: dict[str, Spilled] = field(default_factory=dict)
    repeats: dict | None = None
    scores: dict[tuple[str, str], float] = field(default_factory=dict)
    authors: dict[str, Author] = field(default_factory=dict)
    images: dict[str, ImageFile] = field(default_factory=dict)            # by src
    image_records: dict[str, ImageRecord] = field(default_factory=dict)  # by path as shown, for the memo
    scheduled: list[StoryBrief] = field(default_factory=list)             # published after the build's time
    now: dt.datetime | None = None                                        # the build's time

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings


def check_site(root: Path, drafts: bool = True, base_url: str | None = None, jobs: int = 1, memo: Memo | None = None,
               digests: Mapping[str, str] | None = None, spill: Spill | None = None,
               progress: Progress | None = None, texts: Mapping[str, bytes] | None = None,
               now: dt.datetime | None = None, scheduled: bool = False) -> Checked:
    """Read and check everything. With a memo, `digests` (the digest of each content file, by its path as
    shown, as a scan found it) says which stories and manifests the memo holds unchanged. `texts`: story
    files' bytes by path as shown, checked as if written there (a story checked before it is saved). A story
    published after `now` (the build's time: the clock when not given) is checked but scheduled: not part of
    the site unless `scheduled` (the preview shows it)."""
    config, findings = load_config(root / "content" / CONFIG_NAME, base_url, f"content/{CONFIG_NAME}")
    if config is None:
        return Checked(None, Report(sorted(findings), {}))
    digests = digests if memo is not None and digests is not None else {}
    checked = Checked(config, Report([], {}), now=now or build_time())
    found = [*findings, *_read_manifests(root, checked, memo, digests)]
    checked.authors, problems = load_authors(root)
    found.extend(problems)
    _read_images(root, checked, memo, digests)
    found.extend(_read_stories(root, checked, memo, digests, jobs, spill, progress, texts or {}))
    for path, shown in page_files(root, found):
        page, problems = load_page(path, shown, root / "content" / "pages")
        found.extend(problems)
        if page is not None:
            checked.pages.append(page)
    members = [record for record in checked.records.values() if record.brief and (drafts or not record.draft)]
    checked.scheduled = [record.brief for record in members if record.brief.published > checked.now]
    checked.stories = [record.brief for record in members if scheduled or record.brief.published <= checked.now]
    site = SiteIndex(config, checked.manifests, [record.brief for record in members], pages=checked.pages, root=root,
                     manifest_files=checked.manifest_files,
                     broken=[StoryFile(r.path, "", 0) for r in checked.records.values() if r.brief is None],
                     config_path=f"content/{CONFIG_NAME}", authors=checked.authors, images=checked.images,
                     unusable=_unusable(checked.image_records),
                     drafts=[r.brief for r in checked.records.values() if r.brief and r.draft and not drafts])
    site.repeats = _repeats(root, checked, members, memo, texts or {})
    report = run_checks(site, found)
    checked.report = report if drafts else _drafts_warn(report, checked.records)
    return checked


def check_key(inputs: Mapping[str, list], digests: Mapping[str, str], drafts: bool) -> tuple[str, str]:
    """The key and the options of the memo of a check (`ledgerpress check`, the agent desk's) of the inputs a
    scan found: its records hold while the generator and site.toml do; LP040's index, also whether drafts are
    among the stories compared. (A build's memo is keyed by its own options.)"""
    options = options_key(__version__, command="check", drafts=drafts)
    return memo_key(inputs, digests, options), options


def learned(checked: Checked, records: Mapping[str, StoryRecord], key: str, options: str,
            memo: Memo | None) -> Memo:
    """What reading and checking learned, as a memo for the next run (a build adds its outputs): every file's
    record, these story records, LP040's index and the exact scores of the stories still there."""
    digests = {record.digest for record in records.values()}
    return Memo(key, options, checked.manifest_records, dict(records), repeats=checked.repeats,
                scores={pair: score for pair, score in checked.scores.items() if set(pair) <= digests},
                images=checked.image_records, loaded=memo.loaded if memo else {})


def _read_images(root: Path, checked: Checked, memo: Memo | None, digests: Mapping[str, str]) -> None:
    """Every file of content/images/: measured now, or known from the memo when its bytes are the same. What
    cannot be used is said where a story shows it (LP070), not here."""
    previous = memo.images if memo else {}
    for path, src, why in image_files(root):
        shown = f"content/images/{src}"
        before = previous.get(shown)
        if why is not None:
            record = ImageRecord("", why)
        elif before is not None and before.digest and before.digest == digests.get(shown):
            record = before
        else:
            found = read_image(path, src)
            record = ImageRecord(found.digest if isinstance(found, ImageFile) else digests.get(shown, ""), found)
        checked.image_records[shown] = record
        if isinstance(record.image, ImageFile):
            checked.images[src] = record.image


def _unusable(records: Mapping[str, ImageRecord]) -> dict[str, str]:
    """Each image file that cannot be used (by src), and why."""
    return {shown.removeprefix("content/images/"): record.image for shown, record in records.items()
            if isinstance(record.image, str)}


def _read_manifests(root: Path, checked: Checked, memo: Memo | None, digests: Mapping[str, str]) -> list[Finding]:
    """Every manifest file: read now, or known by id from the memo when its bytes are the same."""
    findings: list[Finding] = []
    folder, inside = top_folder(root, "manifests", findings)
    names = readable(folder, "content/manifests", ".json", inside, "LP100", refused=findings) if folder else []
    for name in names:
        shown, path = f"content/manifests/{name}", os.path.join(folder, name)
        before = memo.manifests.get(shown) if memo else None
        if before is not None and before.digest == digests.get(shown) and before.plain and not before.findings:
            known = KnownManifest(shown, path, before.id, before.digest)
            checked.manifests.setdefault(before.id, known)
            checked.manifest_files.append(known)
            checked.manifest_records[shown] = before
            continue
        try:
            found, problems = load_manifest(path, shown)
        except OSError as err:
            found, problems = None, [Finding(shown, 1, 1, "LP100", f"cannot read the file: {err.strerror}")]
        findings.extend(problems)
        if found is not None:
            checked.manifests.setdefault(found.manifest.id, found)  # (a second file with its id: LP101 says so)
            checked.manifest_files.append(found)
        checked.manifest_records[shown] = ManifestRecord(found.digest if found else "", found.id if found else None,
                                                         problems, found is not None and found.plain)
    return findings


def _read_stories(root: Path, checked: Checked, memo: Memo | None, digests: Mapping[str, str], jobs: int,
                  spill: Spill | None, progress: Progress | None, texts: Mapping[str, bytes]) -> list[Finding]:
    """Every story file's record: the memo's where its bytes and the manifests it refers to are the same,
    else read now (on every core); their findings."""
    findings: list[Finding] = []
    files = [shown for _, shown in story_files(root, findings)]
    if texts:  # in the order story_files() lists them: by folder, then name
        files = sorted({*files, *texts}, key=lambda shown: shown.split("/")[2:])
    known = {shown: record for shown in files
             if (record := memo.stories.get(shown) if memo else None) is not None and shown not in texts
             and record.digest == digests.get(shown) and _same_refs(record, checked.manifests)}
    fresh = [shown for shown in files if shown not in known]
    checked.fresh = set(fresh)
    reading = Reading(str(root), checked.config, checked.manifests, spill, checked.images, texts)
    results = run_all(read_story, reading, fresh, jobs)
    done = 0
    for shown in files:
        record = known.get(shown)
        if record is None:
            record, plain, spilled = next(results)
            if spilled is not None:
                checked.spilled[shown] = spilled
            if plain is not None:  # each word the one copy this process keeps of it
                found = Features.from_plain(plain)
                words = tuple(map(sys.intern, found.words))
                record = dataclasses.replace(record, features=found._replace(words=words))
            done += 1
            if progress:  # of the stories read (the memo's are not)
                progress("read", done, len(fresh))
        checked.records[shown] = record
        findings.extend(record.findings)
    return findings


def _same_refs(record: StoryRecord, manifests: Mapping[str, ManifestFile]) -> bool:
    return all(manifest_digest(manifests, i) == code for i, code in record.refs.items())


def _repeats(root: Path, checked: Checked, members: list[StoryRecord], memo: Memo | None,
             texts: Mapping[str, bytes]) -> list:
    """LP040's pairs, from the memo's index updated for the stories read again, or a new index."""
    config = checked.config
    kept = take(memo, "repeats")
    kept = RepeatIndex.restore(kept) if kept is not None else None
    checked.scores = dict(memo.scores) if memo else {}
    known = {record.path: record.features for record in members}
    found, index = site_repeats([record.brief for record in members], known, functools.partial(story_body, root, texts=texts),
                                {record.path: record.digest for record in members}, config.duplicate_threshold,
                                dt.timedelta(days=config.duplicate_window_days), kept, checked.fresh, checked.scores)
    checked.repeats = index.snapshot()
    return found


def _drafts_warn(report: Report, records: Mapping[str, StoryRecord]) -> Report:
    """A draft is checked, but not built: what is wrong in it is a warning until it is published."""
    drafts = {path for path, record in records.items() if record.draft}
    findings = [dataclasses.replace(f, severity="warning") if f.path in drafts else f for f in report.findings]
    return Report(findings, report.passed)
