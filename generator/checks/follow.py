"""One mistake, one finding, across files: a story's finding that only follows from a manifest file's own
finding is dropped, and one about an unknown id learns what the whole site knows of it. Run on every check,
after the local rules (whose findings a build may have kept from an earlier run): it reads other files'
findings and every manifest, which a story's local rules may not."""

from __future__ import annotations

import dataclasses
import os
import re

from ..content.findings import Finding, did_you_mean
from . import SiteIndex
from .resolve import nearest

_UNREADABLE = ("LP001", "LP004", "LP100")  # on a manifest file: it is left out
_GUESS = re.compile(r" \(did you mean '[^']*'\?\)")


def refine(findings: list[Finding], site: SiteIndex, loaded: list[Finding]) -> list[Finding]:
    """The findings with the follow-ons of a broken manifest file left out, and unknown ids explained."""
    codes = {finding.code for finding in findings}
    if "LP022" not in codes and "LP024" not in codes:
        return findings
    broken = {_stem(f.path) for f in loaded if f.code in _UNREADABLE and f.path.startswith("content/manifests/")}
    misnamed = {found.name: key for key, found in site.manifests.items() if found.name != key}
    owners = _claim_owners(site) if "LP024" in codes else {}
    kept = []
    for finding in findings:
        if finding.code == "LP022" and finding.subject:
            if finding.subject in broken or finding.subject in misnamed:
                continue  # its file's own finding (LP100, LP001, LP101) is the one mistake
            if "did you mean" not in finding.message and (twin := nearest(finding.subject, site.manifests)):
                finding = _told(finding, did_you_mean(twin))
        elif finding.code == "LP024" and finding.subject in owners:  # not a typo after all: drop the guess
            finding = dataclasses.replace(finding, message=_GUESS.sub("", finding.message))
            finding = _told(finding, f"; it is a claim of manifest '{owners[finding.subject]}', which the ledger "
                                     "does not list")
        kept.append(finding)
    return kept


def _stem(path: str) -> str:
    return os.path.splitext(os.path.basename(path))[0]


def _claim_owners(site: SiteIndex) -> dict[str, str]:
    """Claim id -> the manifest that lists it (read only when some claim id is unknown)."""
    owners: dict[str, str] = {}
    for key in sorted(site.manifests):
        for claim in site.manifests[key].manifest.claims:
            owners.setdefault(claim.id, key)
    return owners


def _told(finding: Finding, more: str) -> Finding:
    """The finding with more said where its message says what was wrong (before what is expected)."""
    message = finding.message
    at = message.find(": expected")
    message = message + more if at < 0 else message[:at] + more + message[at:]
    return dataclasses.replace(finding, message=message)
