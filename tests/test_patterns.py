"""A pattern that validates a whole value is matched whole: Python's `$` also matches before a final line feed,
so `re.match("^[a-z]+$", "abc\\n")` passes and `new --slug $'abc\\n'` wrote a file whose name ends in one.
(pydantic's patterns run on Rust's regex engine, where `$` is the end of the text.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generator.checks.links import _SCHEME_NAME
from generator.content import models, slugs
from generator.content.config import ManifestsTable
from generator.content.manifest_pull import pull
from generator.content.new_story import StoryRefused, story_slug
from tests.commands import ledgerpress
from tests.conftest import base_files, write_tree

GENERATOR = Path(__file__).resolve().parent.parent / "generator"


def _anchored_names(tree: ast.Module, constants: dict[str, str]) -> set[str]:
    """Names bound at module level to a compiled pattern whose text ends in `$`."""
    found = set()
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        call = node.value
        if not (isinstance(call.func, ast.Attribute) and call.func.attr == "compile" and call.args):
            continue
        first = call.args[0]
        text = first.value if isinstance(first, ast.Constant) else constants.get(getattr(first, "id", ""), "")
        if isinstance(text, str) and text.endswith("$"):
            found.update(target.id for target in node.targets if isinstance(target, ast.Name))
    return found


def test_no_pattern_ending_in_dollar_is_matched_in_part():
    """Every module: a compiled pattern ending in `$` is only ever used with fullmatch (or sliced by search's
    positions, where `$` is the slice's end)."""
    constants = {"SLUG_PATTERN": slugs.SLUG_PATTERN, "ID_PATTERN": models.ID_PATTERN,
                 "EDITION_PATTERN": models.EDITION_PATTERN}
    offenders = []
    for path in sorted(GENERATOR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _anchored_names(tree, constants) | {"SLUG", "_ID"}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "match" \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in names:
                offenders.append(f"{path.relative_to(GENERATOR)}:{node.lineno}: {node.func.value.id}.match")
    assert offenders == []


@given(st.sampled_from(["\n", "\r", "\r\n", " ", "\t"]))
def test_a_slug_with_a_line_break_or_space_is_refused(tail: str):
    with pytest.raises(StoryRefused):
        story_slug("abc" + tail, "Any title")


def test_new_with_a_slug_ending_in_a_line_feed_writes_nothing(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    made = ledgerpress("new", "A title", "--newsroom", "city", "--beat", "policy", "--slug", "abc\n", cwd=site)
    assert made.returncode != 0 and "is not a slug" in made.stderr
    assert sorted(path.name for path in (site / "content" / "stories").rglob("*")) == \
        sorted(path.name for path in (write_tree(tmp_path / "again", base_files()) / "content" / "stories").rglob("*"))


def test_an_id_or_a_scheme_with_a_final_line_feed_is_refused(tmp_path: Path):
    [pulled] = pull(tmp_path, ManifestsTable(store="http://127.0.0.1:9/{id}"), ["1000000000000000001\n"], None)
    assert pulled.outcome == "failed" and "is not a manifest id" in pulled.error
    assert _SCHEME_NAME.fullmatch("javascript\n") is None
