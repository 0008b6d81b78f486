"""The rulebook (generator/checks/rulebook.yaml): every rule has an example that fails with exactly the
findings it states and one that passes clean, and docs/checks.md and `ledgerpress rules` say the same.

    python -m tests.checks.test_rulebook --write   # refresh docs/checks.md's generated sections"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.checks import RULES
from generator.checks.rulebook import explained, markdown, rulebook
from generator.cli import cli
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.checks import test_calibration
from tests.conftest import build_in_memory, write_tree

DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "checks.md"
MARKS = {"rules": markdown, "calibration": test_calibration.markdown}
RUN = sorted(code for code, entry in rulebook().entries.items() if entry.stage != "none")


def _findings(code: str, kind: str, root: Path) -> list[str]:
    entry = rulebook().entries[code]
    write_tree(root, getattr(entry, kind).tree(rulebook().files))
    result = build_in_memory(root) if entry.stage == "build" else check_site(Run(root, Options(drafts=True)))
    return [str(finding) for finding in result.findings]


def test_every_rule_is_explained_and_every_explanation_is_a_rule():
    assert set(rulebook().entries) == set(RULES)


def test_the_example_site_is_clean(tmp_path: Path):
    write_tree(tmp_path, rulebook().files)
    assert [str(f) for f in check_site(Run(tmp_path, Options(drafts=True))).findings] == []


@pytest.mark.parametrize("code", RUN)
def test_the_failing_example_gives_exactly_its_findings(code: str, tmp_path: Path):
    expected = rulebook().entries[code].fails.finding
    assert expected and any(f": {code} " in line for line in expected)
    assert _findings(code, "fails", tmp_path) == expected


@pytest.mark.parametrize("code", RUN)
def test_the_passing_example_gives_none(code: str, tmp_path: Path):
    assert _findings(code, "passes", tmp_path) == []


def _section(text: str, name: str) -> tuple[int, int]:
    start = text.index(f"<!-- {name}:start -->\n") + len(f"<!-- {name}:start -->\n")
    return start, text.index(f"<!-- {name}:end -->")


def test_docs_show_the_rulebook_as_it_is():
    text = DOCS.read_text(encoding="utf-8")
    start, end = _section(text, "rules")
    assert text[start:end] == markdown(), "run: python -m tests.checks.test_rulebook --write"


def test_rules_explains_one_rule_as_the_docs_do():
    result = CliRunner().invoke(cli, ["rules", "LP031"])
    assert result.exit_code == 0 and result.stdout == explained("LP031")
    assert "Fails:" in result.stdout and "Passes:" in result.stdout and "$3.6 billion" in result.stdout
    lowered = CliRunner().invoke(cli, ["rules", "lp026"])
    assert lowered.exit_code == 0 and lowered.stdout.startswith("LP026 ")


def test_rules_lists_every_code_and_refuses_an_unknown_one():
    listed = CliRunner().invoke(cli, ["rules"])
    assert [line.split()[0] for line in listed.stdout.splitlines()] == sorted(RULES)
    unknown = CliRunner().invoke(cli, ["rules", "LP0400"])
    assert unknown.exit_code == 2 and "did you mean 'LP040'?" in unknown.stderr


def write() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for name, make in MARKS.items():
        start, end = _section(text, name)
        body = make()
        text = text[:start] + body + ("" if body.endswith("\n") else "\n") + text[end:]
    DOCS.write_text(text, encoding="utf-8")


if __name__ == "__main__" and "--write" in sys.argv:
    write()
