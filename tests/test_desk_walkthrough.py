"""docs/agents.md's walkthrough is a real exchange: each call it shows is made, in order, against a copy of the
demo site through `ledgerpress mcp`, and each result it shows is part of the answer the desk gives."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.commands import ledgerpress
from tests.desk_agent import stdio_agent

REPO = Path(__file__).resolve().parent.parent
GUIDE = REPO / "docs" / "agents.md"


def _steps() -> list[tuple[dict, dict]]:
    """(request, result shown) pairs of the walkthrough's YAML blocks, in order."""
    walkthrough = GUIDE.read_text(encoding="utf-8").split("## A walkthrough", 1)[1]
    blocks = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", walkthrough, re.S)]
    assert blocks and all(("call" in block or "read" in block) == (i % 2 == 0) for i, block in enumerate(blocks))
    return [(blocks[i], blocks[i + 1]["result"]) for i in range(0, len(blocks), 2)]


def _part_of(shown: Any, actual: Any, where: str = "result") -> None:
    """Every key shown has the value the desk gave (a list shows every item, each in part)."""
    if isinstance(shown, dict):
        assert isinstance(actual, dict), where
        for key, value in shown.items():
            assert key in actual, f"{where}.{key}"
            _part_of(value, actual[key], f"{where}.{key}")
    elif isinstance(shown, list):
        assert isinstance(actual, list) and len(actual) == len(shown), where
        for i, (one, other) in enumerate(zip(shown, actual, strict=True)):
            _part_of(one, other, f"{where}[{i}]")
    else:
        assert shown == actual, f"{where}: the guide shows {shown!r}, the desk answers {actual!r}"


def test_the_walkthrough_in_the_guide_is_what_the_desk_does(tmp_path: Path):
    site = tmp_path / "demo"
    shutil.copytree(REPO / "content", site / "content")
    steps = _steps()
    with stdio_agent(site, "--allow-write") as agent:
        for request, shown in steps:
            if "read" in request:
                actual = json.loads(agent.read(request["read"]))
            else:
                actual = agent.call(request["call"], **request.get("arguments", {}))
            _part_of(shown, actual, request.get("call") or request["read"])
    saved = [request for request, _ in steps if request.get("call") == "update_story"][-1]["arguments"]
    assert (site / saved["path"]).read_text(encoding="utf-8") == saved["text"]
    checked = ledgerpress("check", "--format", "json", cwd=site)
    assert checked.returncode == 0 and json.loads(checked.stdout) == [], checked.stdout
