"""A story's `waive:` exempts it from a rule, for a reason it publishes (SPEC 6.1); the rules that make a story
loadable at all (LP001-LP005) cannot be waived."""

from __future__ import annotations

from ..content.findings import Finding, close_match, did_you_mean
from ..content.models import UNWAIVABLE
from . import RULES, SiteIndex


def apply(findings: list[Finding], site: SiteIndex) -> list[Finding]:
    """The findings less those of rules the story they are about waives."""
    waived = {story.path: story.waive for story in site.stories if story.waive}
    if not waived:
        return findings
    return [f for f in findings if f.code in UNWAIVABLE or f.code not in waived.get(f.path, ())]


def unknown(site: SiteIndex) -> list[Finding]:
    """A waiver of a code no rule has is LP002: a typo must not leave the rule it meant in force unnoticed."""
    found = []
    for story in site.stories:
        for code in story.waive:
            if code not in RULES:
                hint = did_you_mean(close_match(code, [c for c in RULES if c not in UNWAIVABLE]))
                found.append(story.source.finding(("waive", code), "LP002", f"waive: no rule has the code '{code}'"
                                                  f"{hint}: expected a rule code from `ledgerpress rules`, e.g. "
                                                  "waive: {LP023: \"archival source, cited for background\"}"))
    return found


def reasons(waive: dict[str, str]) -> list[tuple[str, str, str]]:
    """(code, what the rule checks, why this story is exempt) of each waiver, by code."""
    return [(code, RULES[code].summary if code in RULES else "", why) for code, why in sorted(waive.items())]
