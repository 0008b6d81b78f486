"""Findings as SARIF 2.1.0, the format code-review tools (GitHub code scanning, editors' SARIF viewers) read."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..checks import RULES
from ..content.findings import Finding

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
ROOT_ID = "SITEROOT"
PACKAGE_DIR = Path(__file__).resolve().parent.parent


def information_uri() -> str:
    """Where to read about ledgerpress: the project's documentation URL when the installed package declares
    one, else the user guide on this machine (in the package's _docs/, or docs/ beside a source checkout)."""
    try:
        declared = metadata.metadata("ledgerpress").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        declared = []
    for label, _, url in (entry.partition(", ") for entry in declared):
        if label.lower() in ("documentation", "homepage") and url.startswith("https://"):
            return url
    packaged = PACKAGE_DIR / "_docs" / "README.md"
    return (packaged if packaged.is_file() else PACKAGE_DIR.parent / "docs" / "README.md").as_uri()


def sarif_log(findings: list[Finding], root: Path) -> dict:
    """One run of ledgerpress: every rule it knows (so a viewer can explain a code) and every finding."""
    codes = sorted(RULES)
    index = {code: position for position, code in enumerate(codes)}
    driver = {"name": "ledgerpress", "version": __version__, "semanticVersion": __version__,
              "informationUri": information_uri(), "rules": [_rule(code) for code in codes]}
    base = root.resolve().as_uri().rstrip("/") + "/"
    lines = _Lines(root)
    run = {"tool": {"driver": driver},
           "originalUriBaseIds": {ROOT_ID: {"uri": base, "description": {"text": "The site root (--root)."}}},
           "columnKind": "unicodeCodePoints",
           "results": [_result(finding, index, lines) for finding in findings]}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def _rule(code: str) -> dict:
    rule = RULES[code]
    summary = rule.summary[0].upper() + rule.summary[1:]
    text = f"{summary}." if not summary.endswith(".") else summary
    passes = f" A story passes when {rule.passes}." if rule.passes else ""
    return {"id": code,
            "shortDescription": {"text": text},
            "fullDescription": {"text": f"{text}{passes} `ledgerpress rules {code}` explains it with examples."},
            "help": {"text": f"Run `ledgerpress rules {code}` for an example that fails and one that passes."},
            "defaultConfiguration": {"level": "error"}}


class _Lines(dict):
    """The lines of the site's files, read once each, for the snippet a reviewer sees beside a result."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __missing__(self, path: str) -> list[str]:
        try:
            self[path] = (self.root / path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            self[path] = []
        return self[path]

    def line(self, path: str, number: int) -> str | None:
        lines = self[path]
        return lines[number - 1] if 0 < number <= len(lines) else None


def _result(finding: Finding, index: dict[str, int], lines: _Lines) -> dict:
    text = finding.message if finding.message.endswith((".", "?", "!")) else f"{finding.message}."
    result = {"ruleId": finding.code, "level": finding.severity, "message": {"text": text}}
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.path and not finding.path.startswith(("ledgerpress", "/")):  # a file of the site, not the program
        region = {"startLine": max(finding.line, 1), "startColumn": max(finding.col, 1)}
        snippet = lines.line(finding.path, finding.line)
        if snippet is not None:
            region["snippet"] = {"text": snippet}
        result["locations"] = [{"physicalLocation": {
            "artifactLocation": {"uri": quote(finding.path), "uriBaseId": ROOT_ID}, "region": region}}]
    return result
