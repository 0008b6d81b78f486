"""A story's findings as `ledgerpress check` gives them: the whole site read and checked by the engine, with the
story's text in place of its file (nothing is written), and the findings at that path kept."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from ..checks import RULES
from ..content.findings import Finding
from ..content.layout import file_digest, story_file
from ..content.slugs import slugify
from ..content.source import front_matter
from .errors import DeskError, site_broken
from .paths import SHAPE, story_path
from .recheck import SiteChecks
from .schemas import CheckResult, FindingOut

_GUESS = re.compile(r"\(did you mean '([^']*)'")
MAX_TEXT = 1_000_000  # bytes of one story: the longest real ones are a few tens of kilobytes


def check_text(checks: SiteChecks, shown: str | None, text: str, drafts: bool = False) -> CheckResult:
    """The findings `check` would give for this text saved at `shown` (or where its front matter places it)."""
    data = story_bytes(text)
    shown = shown if shown is not None else placed(data)
    story_path(checks.root, shown)
    return check_bytes(checks, shown, data, drafts)


def check_bytes(checks: SiteChecks, shown: str, data: bytes, drafts: bool = False) -> CheckResult:
    """The findings of exactly these bytes at `shown` (a saved file's, read once, are checked as given: the hash
    returned is that of what was checked, even if the file changes meanwhile)."""
    checked = checks.check(drafts, {shown: data})  # as `check` (or `build --drafts`) sees the site
    if checked.config is None:
        raise site_broken(checked.findings, ", so no story can be checked")
    found = [finding_out(finding) for finding in checked.findings if finding.path == shown]
    record = checked.records.get(shown)
    errors = sum(finding.severity == "error" for finding in found)
    return CheckResult(path=shown, content_hash=file_digest(data), draft=bool(record and record.draft),
                       checked_as="build --drafts" if drafts else "check", clean=not found, errors=errors,
                       warnings=len(found) - errors, findings=found)


def finding_out(finding: Finding) -> FindingOut:
    guess = _GUESS.search(finding.message)
    known = RULES.get(finding.code)
    return FindingOut(path=finding.path, line=finding.line, column=finding.col, code=finding.code,
                      severity=finding.severity, message=finding.message, did_you_mean=guess[1] if guess else None,
                      rule=known.summary if known else "", text=str(finding))


def story_bytes(text: str) -> bytes:
    """The text as the file's bytes, within bounds."""
    too_large = DeskError("too_large", f"the text is longer than a story may be ({MAX_TEXT:,} bytes of UTF-8)",
                          limit=MAX_TEXT)
    if len(text) > MAX_TEXT:  # before encoding it: a character is at least a byte
        raise too_large
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise DeskError("bad_text", f"the text is not Unicode: a lone surrogate at character {err.start}") from None
    if len(data) > MAX_TEXT:
        raise too_large
    return data


def placed(data: bytes) -> str:
    """content/stories/<published date, UTC>/<slug>.md, as the text's front matter places it."""
    parsed, _ = front_matter(Path("story.md"), "story", data)
    fields = parsed[0] if parsed is not None and isinstance(parsed[0], dict) else {}
    published, slug, title = fields.get("published"), fields.get("slug"), fields.get("title")
    if isinstance(published, str):
        try:
            published = dt.datetime.fromisoformat(published)
        except ValueError:
            published = None
    slug = slug if isinstance(slug, str) else slugify(title) if isinstance(title, str) else ""
    if not isinstance(published, dt.datetime) or published.tzinfo is None or not slug:
        raise DeskError("path_needed", "the text's front matter does not say where the story goes (it needs "
                        f"`published` with a time zone, and `slug` or `title`): give `path`, {SHAPE}", expected=SHAPE)
    try:
        return story_file(published, slug)
    except ValueError as err:
        raise DeskError("path_needed", f"the text's `published` {err}; or give `path`, {SHAPE}",
                        expected=SHAPE) from None
