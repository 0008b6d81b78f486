"""One failing fixture per rule code: tests/checks/<CODE>/site overlays the base site; expected.txt is the output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from tests.conftest import base_files, write_tree

HERE = Path(__file__).parent
CODES = sorted(path.name for path in HERE.glob("LP*") if path.is_dir())


def overlay(code: str, root: Path) -> Path:
    write_tree(root, base_files())
    shutil.copytree(HERE / code / "site", root, dirs_exist_ok=True)
    return root


BUILT_ONLY = {"LP900", "LP901"}  # a template that fails, a search index that cannot be made: only a build meets
                                 # them (tests/test_build.py, tests/test_search.py)


def test_every_rule_code_has_a_fixture():
    from generator.checks import RULES

    assert BUILT_ONLY <= set(RULES)
    assert sorted(set(RULES) - BUILT_ONLY) == CODES


@pytest.mark.parametrize("code", CODES)
def test_fixture_gives_exactly_the_expected_findings(code: str, tmp_path: Path):
    root = overlay(code, tmp_path)
    result = CliRunner().invoke(cli, ["check", "--root", str(root)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    expected = (HERE / code / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert result.stdout.splitlines() == expected
    assert any(f" {code} " in line for line in expected)


@pytest.mark.parametrize("code", CODES)
def test_fixture_build_refuses_and_writes_nothing(code: str, tmp_path: Path):
    root = overlay(code, tmp_path)
    result = CliRunner().invoke(cli, ["build", "--root", str(root)])
    assert result.exit_code == 1
    assert not (root / "public").exists()


def test_base_site_is_clean(site: Path):
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""


if __name__ == "__main__":  # python -m tests.checks.test_fixtures: write each fixture's expected.txt anew
    import tempfile

    for code in CODES:
        with tempfile.TemporaryDirectory() as scratch:
            done = CliRunner().invoke(cli, ["check", "--root", str(overlay(code, Path(scratch)))])
            (HERE / code / "expected.txt").write_text(done.stdout, encoding="utf-8")
