"""Reading the site: every story read, parsed and checked by its local rules once (on every core), or taken
from the memo of the last good build when neither its bytes nor the manifests it cites changed; then the
site-wide rules over all of them. `check` stops here; `build` renders what this returns."""

from __future__ import annotations

import dataclasses
import os
import pickle
import shutil
import tempfile
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .analysis.related import cited_ids
from .analysis.similarity import PackedFeatures, features
from .cache import CACHE_DIR, digest, key_of
from .checks import Report, SiteIndex, local_findings, run_checks
from .content.body import parse_body
from .content.config import CONFIG_NAME
from .content.findings import Finding
from .content.load import Content, add_story, load_content
from .content.models import ManifestFile, Story, StoryFile
from .content.stories import load_story, story_files
from .memo import Entry, Memo
from .render.story_view import SectionView, section_rows, sections_of
from .workers import Progress, no_cycle_collection, workers


@dataclass
class Prepared:
    """One story file read and checked by its local rules, with what the site-wide work needs of it: its
    similarity features, the manifests its body and key facts cite (`cited`), the manifests it refers to at
    all (`refs`), the file's stat and digest and (when building) its rendered sections."""

    path: str
    story: Story | StoryFile | None
    findings: list[Finding]
    local: list[Finding] = field(default_factory=list)
    features: PackedFeatures | None = None  # packed by the worker that read it
    cited: frozenset[str] = frozenset()
    sections: Spilled | None = None  # where the rendered body waits until the story is rendered
    stamp: tuple[int, int] = (0, 0)
    digest: str = ""
    refs: frozenset[str] = frozenset()


@dataclass
class Checked:
    """A loaded site and the check report: what `check` prints and `build` renders; `prepared` holds every
    story file as read (or as the memo had it), `fresh` the paths read this time."""

    content: Content
    index: SiteIndex | None
    report: Report
    prepared: dict[str, Prepared] = field(default_factory=dict)
    fresh: set[str] = field(default_factory=set)
    deps: dict[str, str] = field(default_factory=dict)
    manifests: dict[str, str] = field(default_factory=dict)  # manifest id -> digest

    @property
    def findings(self) -> list[Finding]:
        return self.report.findings

    @property
    def fresh_keys(self) -> set[str]:
        """The keys of the stories read this time (the others came from the memo unchanged)."""
        return {p.story.key for path in self.fresh if isinstance((p := self.prepared[path]).story, Story)}


def check_site(root: Path, drafts: bool = True, base_url: str | None = None, jobs: int | None = 1,
               progress: Progress | None = None, sections: Spill | None = None,
               memo: Memo | None = None, stamps: Mapping[str, Sequence] | None = None) -> Checked:
    """Load everything and run every rule. Stories are read and parsed on `jobs` processes (only those the
    memo does not already hold unchanged); given a Spill, their bodies are rendered into it too (by path), so
    that building never parses a body twice. `stamps`: [mtime_ns, size, digest] of files by path as shown,
    as a scan just found them (cache.shown_stamps): the memo's stories are checked against these, not stat'ed."""
    with no_cycle_collection():
        return _check_site(root, drafts, base_url, jobs, progress, sections, memo, stamps or {})


def _check_site(root: Path, drafts: bool, base_url: str | None, jobs: int | None, progress: Progress | None,
                sections: Spill | None, memo: Memo | None, stamps: Mapping[str, Sequence]) -> Checked:
    content = load_content(root, drafts=drafts, base_url=base_url, stories=False, known=memo.manifests if memo else None,
                           stamps=stamps)
    if content.config is None:
        return Checked(content, None, Report(sorted(content.findings), {}))
    files = story_files(root)
    manifests = {key: found.digest for key, found in content.manifests.items()}
    same = memo is not None and memo.manifest_digests == manifests  # then no story's manifests moved
    known = {shown: still for path, shown in files
             if (entry := (memo.stories.get(shown) if memo else None)) and (still := _still(entry, path, stamps.get(shown), content.manifests, same))}
    fresh = [(path, shown) for path, shown in files if shown not in known]
    checked = Checked(content, None, Report([], {}), fresh={shown for _, shown in fresh}, manifests=manifests)
    local: list[Finding] = []
    signatures: dict[str, PackedFeatures] = {}
    cited: dict[str, frozenset[str]] = {}
    _JOB.update(manifests=content.manifests, config=content.config, spill=sections)
    made = workers(jobs).steps(prepare_story, fresh, len(fresh))  # in file order: each is taken in as it comes
    try:
        read = len(known)
        for _, shown in files:
            entry = known.get(shown)
            if entry is None:
                prepared = next(made)
                read += 1
                if progress:
                    progress("read", read, len(files))
            else:
                prepared = entry.prepared
            checked.prepared[shown] = prepared
            add_story(content, (prepared.story, prepared.findings), drafts)
            if drafts or not (isinstance(prepared.story, Story) and prepared.story.meta.draft):
                local.extend(prepared.local)
            if prepared.features is not None:
                if entry is None:
                    prepared.features = prepared.features.interned()
                cited[shown], signatures[shown] = prepared.cited, prepared.features
                checked.deps[shown] = entry.deps if entry is not None else _deps(prepared.refs, content.manifests)
            if sections is not None and prepared.sections is not None:
                sections.refs[shown] = prepared.sections
    finally:
        made.close()
        _JOB.clear()
    scores = dict(memo.scores) if memo else {}
    checked.index = SiteIndex(content.config, content.manifests, content.stories, {}, content.broken,
                              pages=content.pages, config_path=f"content/{CONFIG_NAME}", root=root,
                              features=signatures, cited=cited, scores=scores, changed=checked.fresh,
                              repeats=take(memo, "repeats"),
                              digests={path: p.digest for path, p in checked.prepared.items()})
    checked.report = run_checks(checked.index, content.findings, local)
    return checked


def take(memo: Memo | None, name: str):
    """What the memo keeps for a stage that updates it in place: the memo lets go of it first, so that if the
    stage fails half-way the next build starts that stage afresh instead of from a half-updated one."""
    if memo is None:
        return None
    kept = getattr(memo, name)
    setattr(memo, name, None)
    return kept


def _still(entry: Entry, path: str, scanned: Sequence | None, manifests: dict[str, ManifestFile],
           same_manifests: bool) -> Entry | None:
    """The memo's reading of this story file if it still holds (same bytes, same manifests behind it): the
    entry itself, or a copy with the new stat of a file touched but not changed; None if it does not.
    `scanned`: the file's [mtime_ns, size, digest] as a scan found it, if one did."""
    prepared = entry.prepared
    if scanned is not None:
        stamp, code = (scanned[0], scanned[1]), scanned[2]
    else:
        try:
            info = os.stat(path)
        except OSError:
            return None
        stamp, code = (info.st_mtime_ns, info.st_size), None
    if stamp != prepared.stamp:
        if stamp[1] != prepared.stamp[1] or (code or digest(Path(path).read_bytes())) != prepared.digest:
            return None
        entry = dataclasses.replace(entry, prepared=dataclasses.replace(prepared, stamp=stamp))
    return entry if same_manifests or entry.deps == _deps(prepared.refs, manifests) else None


def _deps(refs: frozenset[str], manifests: dict[str, ManifestFile]) -> str:
    """The manifests a story refers to, as they are now (a missing one counts too)."""
    return key_of(*(f"{i}:{manifests[i].digest if i in manifests else '-'}" for i in sorted(refs)))


def prepare_story(item: tuple[str, str]) -> Generator[None, None, Prepared]:
    """Read one story, parse its body once, run its local rules, and (when building) render its sections:
    in steps, which workers run for a batch of stories at a time (workers.lockstep). The body text is not
    kept: what needs it later has it in another form, or reads it again."""
    path, shown = item
    try:
        with open(path, "rb") as source:
            info, data = os.fstat(source.fileno()), source.read()
        stamp, code = (info.st_mtime_ns, info.st_size), digest(data)
    except OSError:
        stamp, code, data = (0, 0), "", None
    yield
    story, findings = load_story(path, shown, data)
    if story is None:
        return Prepared(shown, None, findings, stamp=stamp, digest=code)
    yield
    body = parse_body(story.body, story.body_line)
    yield
    local = local_findings(story, body, _JOB["config"], _JOB["manifests"])
    if not isinstance(story, Story):
        return Prepared(shown, story, findings, local, stamp=stamp, digest=code)
    yield
    spill = _JOB.get("spill")
    sections = spill.put(pickle.dumps(section_rows(story, body, _JOB["manifests"]), protocol=pickle.HIGHEST_PROTOCOL)
                         ) if spill is not None else None
    cited = cited_ids(body) | {i for fact in story.meta.key_facts for i in fact.cites}
    refs = cited | {entry.manifest for entry in story.meta.ledger}
    yield
    found = PackedFeatures.of(features(story.body))  # packed here, on every core, as the memo keeps them
    story.source = story.source.shallow()  # local rules are done; the rest need only top-level places
    story.body = ""
    return Prepared(shown, story, findings, local, found, frozenset(cited), sections, stamp, code, frozenset(refs))


# What forked workers inherit from the parent while they read stories, set just before they start.
_JOB: dict = {}


def unpacked(packed: bytes) -> list[SectionView]:
    return sections_of(pickle.loads(packed))


class Spilled(NamedTuple):
    """Where one story's packed sections are: a scratch file, an offset, a size."""

    name: str
    offset: int
    size: int


class Spill:
    """Rendered story bodies waiting for their pages: each process that renders bodies appends them to a
    scratch file of its own, and the process that renders a page reads its body back. A large site's bodies
    are a gigabyte: they wait on disk (in the page cache), not in the build's memory, in a folder of the
    site's .ledgerpress-cache/ (the system's temporary folder if that cannot be made). close() removes them."""

    def __init__(self, root: Path) -> None:
        try:
            (root / CACHE_DIR).mkdir(exist_ok=True)
            self.folder = tempfile.mkdtemp(prefix="bodies-", dir=root / CACHE_DIR)
        except OSError:
            self.folder = tempfile.mkdtemp(prefix="ledgerpress-bodies-")
        self.refs: dict[str, Spilled] = {}
        self._writer: tuple[int, str, int] | None = None  # (process id, file, descriptor) of this process
        self._readers: dict[str, int] = {}

    def put(self, data: bytes) -> Spilled:
        if self._writer is None or self._writer[0] != os.getpid():  # a forked worker writes its own file
            name = os.path.join(self.folder, str(os.getpid()))
            self._writer = (os.getpid(), name, os.open(name, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        _, name, descriptor = self._writer
        offset = os.lseek(descriptor, 0, os.SEEK_END)
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view):]
        return Spilled(name, offset, len(data))

    def get(self, path: str) -> bytes | None:
        """The packed sections of the story at `path`, if they were rendered this build."""
        found = self.refs.get(path)
        if found is None:
            return None
        descriptor = self._readers.get(found.name)
        if descriptor is None:
            descriptor = self._readers[found.name] = os.open(found.name, os.O_RDONLY)
        return os.pread(descriptor, found.size, found.offset)

    def close(self) -> None:
        for descriptor in self._readers.values():
            os.close(descriptor)
        self._readers.clear()
        if self._writer is not None and self._writer[0] == os.getpid():
            os.close(self._writer[2])
        self._writer = None
        shutil.rmtree(self.folder, ignore_errors=True)
