"""Every bound of docs/security.md holds for inputs shaped to be its worst case: wide (a table of 20,000
columns), deep (quotes and lists inside one another), long lines, many small tokens. Per bound, hypothesis
draws a shape and a side: just under the limit (read, in bounded time and memory) or just over it (refused
unread, with its finding). Each example is checked in a forked child (tests/fuzzing.py) with a cap on its time
and memory: a traceback, a crash, a hang or a blow-up fails it. Examples of a whole MiB take seconds each: those
are marked `slow` (CI runs them: `python -m pytest -m slow`), but for the shapes that were once quadratic."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.content.limits import (
    MAX_AUTHOR_BYTES,
    MAX_PAGE_BYTES,
    MAX_STORY_BYTES,
)
from tests.conftest import STORY, STORY_PATH, base_files, write_tree
from tests.fuzzing import isolated

CITE = "[cites: 1000000000000000001]"
FRONT = STORY.split("---\n")[1]
WHOLE_MIB_SECONDS = 30  # a 1 MiB input's cap: ~5 x the slowest shape (docs/security.md), far below a quadratic's


def bounds(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _fill(unit: str, size: int, tail: str = "") -> str:
    """unit repeated, then tail: about `size` characters."""
    room = max(size - len(tail), 0)
    return (unit * (room // len(unit) + 1))[:room] + tail


def _wide(size: int) -> str:
    """A table of one row with as many cells as fit, ~48 bytes each: the red team's 20,000 columns."""
    cell = " figure 12,500,000 and 14% of the council's vote |"
    columns = size // (len(cell) + 8)
    head = "|" + " h |" * columns + "\n|" + "---|" * columns + "\n|"
    return head + _fill(cell, size - len(head), f" {CITE} |\n")


# Each shape makes a Markdown body of about `size` characters, all ASCII.
SHAPES: dict[str, Callable[[int], str]] = {
    "wide table": _wide,
    "deep quotes": lambda size: _fill("> ", size // 3, "x\n\n") + _fill(f"a {CITE}\n\n", size - size // 3),
    "deep lists": lambda size: "".join(f"{'  ' * depth}- item {CITE}\n" for depth in range(40)) +
    _fill("1. x\n   ", size),
    "one long line": lambda size: _fill("council voted 9 to 2 on $3.6bn, up 14%, October 19 ", size, CITE + "\n"),
    "many small tokens": lambda size: _fill("*a* _b_ `c` [d](e) ", size, CITE + "\n"),
    "many paragraphs": lambda size: _fill(f"Vote {CITE}\n\n", size),
    "many cite markers": lambda size: _fill("[cites: ", size, CITE),
    "many alike headings": lambda size: _fill(f"## 2026\n\nx {CITE}\n\n", size),
}
ONCE_QUADRATIC = ("wide table", "many alike headings")  # 85 s and minutes for a MiB, before


def _exactly(head: str, body: str, size: int) -> str:
    text = head + body
    return text[:size] + "\n" * (size - len(text))  # (ASCII: a character is a byte)


def _checked(files: dict[str, str], must: str | None, must_not: str | None) -> None:
    """The base site with `files` over it, checked (in the child isolated() forks): a finding holding `must`
    is there, none holding `must_not`."""
    from generator.engine.check import check_site

    root = Path(tempfile.mkdtemp(prefix="bounds-"))
    try:
        write_tree(root, {**base_files(), **files})
        lines = [str(finding) for finding in check_site(root, jobs=1).findings]
        assert must is None or any(must in line for line in lines), lines[:5]
        assert must_not is None or not any(must_not in line for line in lines), lines[:5]
    finally:
        shutil.rmtree(root, ignore_errors=True)


TOO_LARGE = "more than the limit"


def _at_limit(files: dict[str, str], side: str, seconds: int = WHOLE_MIB_SECONDS) -> None:
    """Checked within `seconds` and the memory cap; refused as too large over the limit, and only then."""
    over = side == "over"
    outcome = isolated(_checked, files, TOO_LARGE if over else None, None if over else TOO_LARGE, seconds=seconds)
    assert outcome.kind == "ok", outcome


def _story(shape: str, size: int) -> str:
    head = f"---\n{FRONT}---\n"
    return _exactly(head, SHAPES[shape](size - len(head)), size)


SIDES = st.sampled_from(["under", "over"])
SLACK = st.integers(0, 4096)  # how far under or over: each example another input


def every_shape(test: Callable) -> Callable:
    """Each shape at its limit exactly, then what hypothesis draws."""
    for shape in SHAPES:
        test = example(shape=shape, side="under", slack=0)(test)
    return test


def _size(limit: int, side: str, slack: int) -> int:
    return limit - slack if side == "under" else limit + 1 + slack


@pytest.mark.parametrize("shape", ONCE_QUADRATIC)
def test_a_story_of_a_mib_once_quadratic_checks_in_bounded_time(shape: str):
    _at_limit({STORY_PATH: _story(shape, MAX_STORY_BYTES)}, "under")


@pytest.mark.slow
@bounds(len(SHAPES))
@every_shape
@given(shape=st.sampled_from(sorted(SHAPES)), side=SIDES, slack=SLACK)
def test_a_story_at_its_byte_limit(shape: str, side: str, slack: int):
    _at_limit({STORY_PATH: _story(shape, _size(MAX_STORY_BYTES, side, slack))}, side)


@pytest.mark.slow
@bounds(len(SHAPES))
@every_shape
@given(shape=st.sampled_from(sorted(SHAPES)), side=SIDES, slack=SLACK)
def test_a_page_at_its_byte_limit(shape: str, side: str, slack: int):
    size = _size(MAX_PAGE_BYTES, side, slack)
    text = _exactly("---\ntitle: Terms\n---\n", SHAPES[shape](size).replace(CITE, ""), size)
    _at_limit({"content/pages/terms/reuse.md": text}, side)


@pytest.mark.slow
@bounds(len(SHAPES))
@every_shape
@given(shape=st.sampled_from(sorted(SHAPES)), side=SIDES, slack=SLACK)
def test_an_author_at_its_byte_limit(shape: str, side: str, slack: int):
    size = _size(MAX_AUTHOR_BYTES, side, slack)
    author = _exactly("---\nname: Ana Lima\n---\n", SHAPES[shape](size).replace(CITE, ""), size)
    story = _story("many paragraphs", 4000).replace("trust: confirmed\n", "trust: confirmed\nauthors: [ana-lima]\n")
    _at_limit({"content/authors/ana-lima.md": author, STORY_PATH: story}, side)
