"""The rule registry: each rule is a small function registered with its code and scope."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from ..analysis.repeat_index import Repeat
from ..content.author_files import Author
from ..content.body import Body
from ..content.config import SiteConfig, toml_line
from ..content.findings import Finding, close_match, did_you_mean
from ..content.image_files import ImageFile
from ..content.models import ManifestFile, Page, Story, StoryBrief, StoryFile

Scope = Literal["load", "story", "body", "text", "manifest", "site"]

Derived = TypeVar("Derived")


@dataclass(frozen=True)
class Rule:
    code: str
    scope: Scope
    summary: str
    passes: str | None
    run: Callable[..., Iterator[Finding]] | None
    local: bool = False
    severity: str = "error"  # what its findings are unless site.toml's [checks] says otherwise


RULES: dict[str, Rule] = {}


def rule(code: str, scope: Scope, summary: str, passes: str | None = None, local: bool | None = None):
    """Register a check; `passes` is the phrase a story's checks line states when it passed. A story, body or
    text rule is `local` (it looks at one story, the manifests and the config only, so a build worker may run
    it) unless it says otherwise; a text rule reads the Markdown source of stories and plain pages alike."""

    def register(run: Callable[..., Iterator[Finding]]) -> Callable[..., Iterator[Finding]]:
        RULES[code] = Rule(code, scope, summary, passes, run,
                           scope in ("story", "body", "text") if local is None else local)
        return run

    return register


def declare(code: str, summary: str, severity: str = "error") -> None:
    """A code reported while loading files (so [checks] can still set its severity)."""
    RULES[code] = Rule(code, "load", summary, None, None, severity=severity)


@dataclass
class SiteIndex:
    """What rules may look at. Local rules see one whole story (its Story and parsed Body); site rules see
    every story as a StoryBrief, the plain pages, and what the analysis of the whole site found (`repeats`)."""

    config: SiteConfig
    manifests: dict[str, ManifestFile]  # by id (the first file to give one)
    stories: list[Story] | list[StoryBrief]
    bodies: dict[str, Body] = field(default_factory=dict)
    broken: list[StoryFile] = field(default_factory=list)
    by_key: dict[str, Story | StoryBrief] = field(default_factory=dict)
    pages: list[Page] = field(default_factory=list)
    config_path: str = "content/site.toml"
    root: Path = Path(".")
    repeats: list[Repeat] = field(default_factory=list)  # LP040's pairs of alike stories
    drafts: list[StoryBrief] = field(default_factory=list)  # drafts the site leaves out (checked, not compared)
    authors: Mapping[str, Author] = field(default_factory=dict)    # content/authors/, by slug
    images: Mapping[str, ImageFile] = field(default_factory=dict)  # content/images/, by src
    unusable: Mapping[str, str] = field(default_factory=dict)      # image files that cannot be used, and why
    derived: dict[tuple[str, str], object] = field(default_factory=dict)  # what several rules derive from one story
    manifest_files: list[ManifestFile] | None = None  # every manifest file, one repeating an id too (else manifests)

    def __post_init__(self) -> None:
        for story in sorted(self.stories, key=lambda s: s.path):
            self.by_key.setdefault(story.key, story)

    def derive(self, key: tuple, make: Callable[[], Derived]) -> Derived:
        """What `make` gives, made once per check run under `key` (what several rules derive from one story)."""
        if key not in self.derived:
            self.derived[key] = make()
        return self.derived[key]  # type: ignore[return-value]


@dataclass
class Report:
    """A check's findings, and the codes of the story rules each story passed, by path."""

    findings: list[Finding]
    passed: dict[str, list[str]]


def run_checks(site: SiteIndex, found: list[Finding]) -> Report:
    """Run every enabled site rule over the whole site, add the findings already `found` (of loading and of
    the local rules, which the build runs story by story), apply [checks] severities, and record which rules
    each story passed."""
    overrides = site.config.checks
    enabled = [r for r in RULES.values() if r.run is not None and overrides.get(r.code) != "off"]
    findings = [*found, *unknown_codes(site), *waivers.unknown(site)]
    for current in enabled:
        if not current.local:
            findings.extend(_run(current, site))
        elif current.scope == "text":  # the build reads the stories story by story; the plain pages are read here
            findings.extend(_run(current, site, pages_only=True))
    findings = severities(waivers.apply(follow.refine(findings, site, found), site), overrides)
    codes = [r.code for r in enabled if r.scope in ("story", "body", "text", "site")]
    failed: dict[str, set[str]] = {}
    for finding in findings:
        failed.setdefault(finding.path, set()).add(finding.code)
    for story in site.stories:
        if story.waive:  # a waived rule is published as waived, not as passed
            failed.setdefault(story.path, set()).update(story.waive)
    passed = {story.path: [code for code in codes if code not in failed[story.path]] if story.path in failed else codes
              for story in site.stories}
    return Report(sorted(set(findings)), passed)


def local_findings(story: Story | StoryFile, body: Body, config: SiteConfig,
                   records: dict[str, ManifestFile]) -> list[Finding]:
    """The local rules of one story (severities are applied later, once, by run_checks)."""
    stories = [story] if isinstance(story, Story) else []
    site = SiteIndex(config, records, stories, {story.path: body}, [] if stories else [story])
    found: list[Finding] = []
    for current in RULES.values():
        if current.local and current.run is not None and config.checks.get(current.code) != "off":
            found.extend(_run(current, site))
    return found


def manifest_findings(found: ManifestFile, config: SiteConfig) -> list[Finding]:
    """The manifest rules on one file (LP101, LP102, ...) with the site's severities: what `check` adds to reading
    it (`manifests pull` judges an answer so before it writes it)."""
    site = SiteIndex(config, {found.manifest.id: found}, [])
    return severities([finding for rule in RULES.values() if rule.scope == "manifest" and rule.run is not None
                       for finding in _run(rule, site)], config.checks)


def unknown_codes(site: SiteIndex) -> list[Finding]:
    """An unknown code in [checks] is a finding: a typo there must not leave a rule as it was."""
    shown = site.config_path
    return [Finding(shown, toml_line(site.root / shown, ("checks", code)), 1, "LP002",
                    f"unknown rule code '{code}' in [checks]{did_you_mean(close_match(code, RULES))}: expected a "
                    "code from `ledgerpress rules`, e.g. LP031 = \"warning\"") for code in site.config.checks
            if code not in RULES]


def _run(current: Rule, site: SiteIndex, pages_only: bool = False) -> Iterator[Finding]:
    if current.scope == "text":
        for source in site.pages if pages_only else [*site.stories, *site.broken, *site.pages]:
            yield from current.run(source, site)
    elif current.scope == "story":
        for story in site.stories:
            yield from current.run(story, site)
    elif current.scope == "body":
        for story in [*site.stories, *site.broken]:
            yield from current.run(story.path, site.bodies[story.path], site)
    elif current.scope == "manifest":
        files = site.manifest_files if site.manifest_files is not None else site.manifests.values()
        for manifest in files:
            yield from current.run(manifest, site)
    else:
        yield from current.run(site)


def severities(findings: list[Finding], overrides: dict[str, str]) -> list[Finding]:
    """Drop findings of rules turned off; mark those set to warning."""
    kept = []
    for finding in findings:
        level = overrides.get(finding.code, "error")
        if level == "off":
            continue
        kept.append(Finding(finding.path, finding.line, finding.col, finding.code, finding.message, level, finding.subject))
    return kept


declare("LP001", "front matter is not valid YAML, or the file is not UTF-8")
declare("LP002", "a required field is missing or has the wrong type or range")
declare("LP003", "unknown front-matter field")
declare("LP004", "an id is not a quoted string, or does not match the id pattern")
declare("LP100", "a manifest file is not valid JSON or fails its schema")
declare("LP900", "a template failed to render (reported at the template's line)")
declare("LP901", "the search index could not be built (a warning: the site is built without search)", "warning")

# the rule modules (importing one registers its rules), and follow and waivers, which run_checks applies
from . import authors, citations, files, follow, images, ledger, links, manifests, related, repeats, retractions, sentence_rules, support, taxonomy, waivers  # noqa: E402,F401,I001
