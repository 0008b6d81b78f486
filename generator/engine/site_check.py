"""Reading and checking the whole site: site.toml, the manifests, every story (read on every core, unless the
memo holds the same bytes read against the same manifests), the plain pages, then the site-wide rules, into
one SiteInputs. `ledgerpress check` stops here; a build renders what this returns."""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import os
import sys
from collections.abc import Mapping

from .. import __version__
from ..analysis.repeat_index import Dated, Earlier, RepeatIndex, site_repeats
from ..analysis.similarity import Features
from ..checks import Report, SiteIndex, run_checks
from ..content.author_files import load_authors
from ..content.config import CONFIG_NAME, load_config
from ..content.findings import Finding
from ..content.image_files import ImageFile, image_files, read_image
from ..content.manifest_files import KnownManifest, load_manifest
from ..content.models import ManifestFile, StoryFile
from ..content.plain_pages import load_page, page_files
from ..content.source import readable, top_folder
from ..content.story_files import story_body, story_files
from .clock import build_time
from .inputs import Prior, Run, SiteInputs
from .memo import Memo, take
from .pool import run_all
from .read import Reading, manifest_digest, read_story
from .records import ImageRecord, ManifestRecord, StoryRecord
from .state import memo_key, options_key


def check_site(run: Run) -> SiteInputs:
    """Read and check everything. With a memo, the prior's digests say which stories and manifests it holds
    unchanged. A story published after the build's time (the options' `now`, else the clock) is checked but
    scheduled: not part of the site unless the options say `scheduled` (the preview shows it)."""
    root, options = run.root, run.options
    config, findings = load_config(root / "content" / CONFIG_NAME, options.base_url, f"content/{CONFIG_NAME}")
    if config is None:
        return SiteInputs(None, Report(sorted(findings), {}))
    inputs = SiteInputs(config, Report([], {}), now=options.now or build_time())
    found = [*findings, *_read_manifests(run, inputs)]
    inputs.authors, problems = load_authors(root)
    found.extend(problems)
    _read_images(run, inputs)
    found.extend(_read_stories(run, inputs))
    for path, shown in page_files(root, found):
        page, problems = load_page(path, shown, root / "content" / "pages")
        found.extend(problems)
        if page is not None:
            inputs.pages.append(page)
    drafts = options.drafts
    members = [record for record in inputs.records.values() if record.brief and (drafts or not record.draft)]
    inputs.scheduled = [record.brief for record in members if record.brief.published > inputs.now]
    inputs.stories = [record.brief for record in members if options.scheduled or record.brief.published <= inputs.now]
    site = SiteIndex(config, inputs.manifests, [record.brief for record in members], pages=inputs.pages, root=root,
                     manifest_files=inputs.manifest_files,
                     broken=[StoryFile(r.path, "", 0) for r in inputs.records.values() if r.brief is None],
                     config_path=f"content/{CONFIG_NAME}", authors=inputs.authors, images=inputs.images,
                     unusable=_unusable(inputs.image_records),
                     drafts=[r.brief for r in inputs.records.values() if r.brief and r.draft and not drafts])
    site.repeats = _repeats(run, inputs, members)
    report = run_checks(site, found)
    inputs.report = report if drafts else _drafts_warn(report, inputs.records)
    return inputs


def check_key(inputs: Mapping[str, list], digests: Mapping[str, str], drafts: bool) -> tuple[str, str]:
    """The key and the options of the memo of a check (`ledgerpress check`, the agent desk's) of the inputs a
    scan found: its records hold while the generator and site.toml do; LP040's index, also whether drafts are
    among the stories compared. (A build's memo is keyed by its own options.)"""
    options = options_key(__version__, command="check", drafts=drafts)
    return memo_key(inputs, digests, options), options


def learned(inputs: SiteInputs, records: Mapping[str, StoryRecord], prior: Prior) -> Memo:
    """What reading and checking learned, as a memo for the next run (a build adds its outputs), made for the
    prior's key: every file's record, these story records, LP040's index and the exact scores of the stories
    still there."""
    digests = {record.digest for record in records.values()}
    return Memo(*prior.key, inputs.manifest_records, dict(records), repeats=inputs.repeats,
                scores={pair: score for pair, score in inputs.scores.items() if set(pair) <= digests},
                images=inputs.image_records, loaded=prior.memo.loaded if prior.memo else {})


def _read_images(run: Run, inputs: SiteInputs) -> None:
    """Every file of content/images/: measured now, or known from the memo when its bytes are the same. What
    cannot be used is said where a story shows it (LP070), not here."""
    previous, digests = run.memo.images if run.memo else {}, run.prior.digests
    for path, src, why in image_files(run.root):
        shown = f"content/images/{src}"
        before = previous.get(shown)
        if why is not None:
            record = ImageRecord("", why)
        elif before is not None and before.digest and before.digest == digests.get(shown):
            record = before
        else:
            found = read_image(path, src)
            record = ImageRecord(found.digest if isinstance(found, ImageFile) else digests.get(shown, ""), found)
        inputs.image_records[shown] = record
        if isinstance(record.image, ImageFile):
            inputs.images[src] = record.image


def _unusable(records: Mapping[str, ImageRecord]) -> dict[str, str]:
    """Each image file that cannot be used (by src), and why."""
    return {shown.removeprefix("content/images/"): record.image for shown, record in records.items()
            if isinstance(record.image, str)}


def _read_manifests(run: Run, inputs: SiteInputs) -> list[Finding]:
    """Every manifest file: read now, or known by id from the memo when its bytes are the same."""
    memo, digests = run.memo, run.prior.digests
    findings: list[Finding] = []
    folder, inside = top_folder(run.root, "manifests", findings)
    names = readable(folder, "content/manifests", ".json", inside, "LP100", refused=findings) if folder else []
    for name in names:
        shown, path = f"content/manifests/{name}", os.path.join(folder, name)
        before = memo.manifests.get(shown) if memo else None
        if before is not None and before.digest == digests.get(shown) and before.plain and not before.findings:
            known = KnownManifest(shown, path, before.id, before.digest)
            inputs.manifests.setdefault(before.id, known)
            inputs.manifest_files.append(known)
            inputs.manifest_records[shown] = before
            continue
        try:
            found, problems = load_manifest(path, shown)
        except OSError as err:
            found, problems = None, [Finding(shown, 1, 1, "LP100", f"cannot read the file: {err.strerror}")]
        findings.extend(problems)
        if found is not None:
            inputs.manifests.setdefault(found.manifest.id, found)  # (a second file with its id: LP101 says so)
            inputs.manifest_files.append(found)
        inputs.manifest_records[shown] = ManifestRecord(found.digest if found else "", found.id if found else None,
                                                         problems, found is not None and found.plain)
    return findings


def _read_stories(run: Run, inputs: SiteInputs) -> list[Finding]:
    """Every story file's record: the memo's where its bytes and the manifests it refers to are the same,
    else read now (on every core); their findings."""
    memo, digests, texts = run.memo, run.prior.digests, run.texts
    findings: list[Finding] = []
    files = [shown for _, shown in story_files(run.root, findings)]
    if texts:  # in the order story_files() lists them: by folder, then name
        files = sorted({*files, *texts}, key=lambda shown: shown.split("/")[2:])
    known = {shown: record for shown in files
             if (record := memo.stories.get(shown) if memo else None) is not None and shown not in texts
             and record.digest == digests.get(shown) and _same_refs(record, inputs.manifests)}
    fresh = [shown for shown in files if shown not in known]
    inputs.fresh = set(fresh)
    reading = Reading(str(run.root), inputs.config, inputs.manifests, run.spill, inputs.images, texts)
    results = run_all(read_story, reading, fresh, run.jobs)
    done = 0
    for shown in files:
        record = known.get(shown)
        if record is None:
            record, plain, spilled = next(results)
            if spilled is not None:
                inputs.spilled[shown] = spilled
            if plain is not None:  # each word the one copy this process keeps of it
                found = Features.from_plain(plain)
                words = tuple(map(sys.intern, found.words))
                record = dataclasses.replace(record, features=found._replace(words=words))
            done += 1
            run.told("read", done, len(fresh))  # of the stories read (the memo's are not)
        inputs.records[shown] = record
        findings.extend(record.findings)
    return findings


def _same_refs(record: StoryRecord, manifests: Mapping[str, ManifestFile]) -> bool:
    return all(manifest_digest(manifests, i) == code for i, code in record.refs.items())


def _repeats(run: Run, inputs: SiteInputs, members: list[StoryRecord]) -> list:
    """LP040's pairs, from the memo's index updated for the stories read again, or a new index."""
    config = inputs.config
    kept = take(run.memo, "repeats")
    kept = RepeatIndex.restore(kept) if kept is not None else None
    inputs.scores = dict(run.memo.scores) if run.memo else {}
    known = {record.path: record.features for record in members}
    read = functools.partial(story_body, run.root, texts=run.texts)  # (for the few pairs scored exactly)
    bodies = [Dated(record.path, record.brief.published, functools.partial(read, record.path), record.digest)
              for record in members]
    found, index = site_repeats(bodies, known, config.duplicate_threshold,
                                dt.timedelta(days=config.duplicate_window_days),
                                Earlier(kept, inputs.scores, inputs.fresh))
    inputs.repeats = index.snapshot()
    return found


def _drafts_warn(report: Report, records: Mapping[str, StoryRecord]) -> Report:
    """A draft is checked, but not built: what is wrong in it is a warning until it is published."""
    drafts = {path for path, record in records.items() if record.draft}
    findings = [dataclasses.replace(f, severity="warning") if f.path in drafts else f for f in report.findings]
    return Report(findings, report.passed)
