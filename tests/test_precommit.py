"""The pre-commit hook newsrooms use: a valid hooks file, and the hook refusing a commit with an error in it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from pre_commit.clientlib import load_manifest

from tests.commands import LEDGERPRESS
from tests.conftest import STORY_PATH, base_files, write_tree

HOOKS = Path(__file__).resolve().parent.parent / ".pre-commit-hooks.yaml"


def test_the_hooks_file_is_one_pre_commit_accepts():
    hooks = load_manifest(str(HOOKS))
    assert [hook["id"] for hook in hooks] == ["ledgerpress-check"]
    assert hooks[0]["entry"] == "ledgerpress check" and hooks[0]["pass_filenames"] is False


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def test_the_hook_refuses_a_commit_with_an_error(tmp_path: Path):
    """Our hook as pre-commit runs it, with the ledgerpress installed here in place of the one it would install
    (language: python would fetch the package and its dependencies)."""
    hook = load_manifest(str(HOOKS))[0]
    site = write_tree(tmp_path / "site", base_files())
    local = {"id": hook["id"], "name": hook["name"], "entry": hook["entry"].replace("ledgerpress", str(LEDGERPRESS), 1),
             "language": "system", "pass_filenames": hook["pass_filenames"], "files": hook["files"]}
    (site / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    _git("init", "-q", cwd=site)
    _git("add", "-A", cwd=site)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    run = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    clean = subprocess.run(run, cwd=site, env=env, capture_output=True, text=True, timeout=120)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("newsroom: city", "newsroom: nowhere"))
    _git("add", "-A", cwd=site)
    broken = subprocess.run(run, cwd=site, env=env, capture_output=True, text=True, timeout=120)
    assert broken.returncode == 1 and f"{STORY_PATH}:5:1: LP010" in broken.stdout
