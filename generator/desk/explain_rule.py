"""The rules and the format as an agent reads them: one rule explained from the registry and the rulebook (what
`ledgerpress rules CODE` prints), the site's rules with their severities, its keys, and the user guide's pages."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..checks import RULES
from ..checks.rulebook import Example, explained, rulebook
from ..content.findings import close_match, did_you_mean
from ..content.layout import PACKAGE
from .errors import DeskError
from .paths import SHAPE
from .schemas import ExampleOut, RuleOut
from .site import Desk


def explain_rule(desk: Desk, code: str) -> RuleOut:
    """A rule: what it checks, why, an example that fails and one that passes."""
    wanted = code.strip().upper()
    if wanted not in RULES or wanted not in rulebook().entries:
        close = close_match(wanted, RULES)
        raise DeskError("unknown_rule", f"no rule has the code '{code[:20]}'{did_you_mean(close)}: expected one of "
                        f"{', '.join(sorted(RULES))}", did_you_mean=close, known=sorted(RULES))
    rule, entry = RULES[wanted], rulebook().entries[wanted]
    return RuleOut(code=wanted, summary=rule.summary, scope=rule.scope,
                   severity=_severities(desk).get(wanted, rule.severity), explanation=entry.explain,
                   fails=_example(entry.fails), passes=_example(entry.passes), text=explained(wanted))


def _example(example: Example) -> ExampleOut:
    return ExampleOut(note=example.note, files=dict(example.files), findings=list(example.finding),
                      changes=[{"path": path, "before": old, "after": new} for path, old, new in example.edits])


def _severities(desk: Desk) -> dict[str, str]:
    try:
        return dict(desk.config().checks)
    except DeskError:  # a broken site.toml: every rule at its default
        return {}


def rules_listing(desk: Desk) -> str:
    """Every rule with what it checks and its severity in this site, as JSON."""
    levels = _severities(desk)
    return json.dumps([{"code": code, "scope": RULES[code].scope, "summary": RULES[code].summary,
                        "severity": levels.get(code, RULES[code].severity)} for code in sorted(RULES)], indent=2)


def site_facts(desk: Desk) -> str:
    """What a story in this site may say: its keys, its windows, where stories go; as JSON."""
    config = desk.config()
    return json.dumps({
        "title": config.title, "base_url": config.base_url, "language": config.language,
        "newsrooms": dict(config.newsrooms), "beats": dict(config.beats), "trust": dict(config.trust),
        "manifest_max_age_days": config.manifest_max_age_days, "duplicate_window_days": config.duplicate_window_days,
        "duplicate_threshold": config.duplicate_threshold, "checks": dict(config.checks), "story_path": SHAPE,
        "write": desk.allow_write, "build": desk.allow_build}, indent=2, ensure_ascii=False)


def guide_folder() -> Path:
    """The user guide: packaged beside the code in a wheel, or docs/ of a source checkout."""
    packaged = PACKAGE / "_docs"
    return packaged if packaged.is_dir() else PACKAGE.parent / "docs"


def guide_pages() -> dict[str, tuple[str, Path]]:
    """Each page of the guide by file name: its title (its first heading) and its file."""
    pages = {}
    for path in sorted(guide_folder().glob("*.md")):
        heading = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.M)
        pages[path.name] = (heading[1].strip() if heading else path.stem, path)
    return pages
