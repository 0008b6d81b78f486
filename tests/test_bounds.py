"""Every bound of docs/security.md holds for inputs shaped to be its worst case: wide (a table of 20,000
columns), deep (quotes and lists inside one another), long lines, many small tokens. Per bound, hypothesis
draws a shape and a side: just under the limit (read, in bounded time and memory) or just over it (refused
unread, with its finding). Each example is checked in a forked child (tests/fuzzing.py) with a cap on its time
and memory: a traceback, a crash, a hang or a blow-up fails it. Examples of a whole MiB take seconds each: those
are marked `slow` (CI runs them: `python -m pytest -m slow`), but for the shapes that were once quadratic."""

from __future__ import annotations

import json
import shutil
import struct
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from generator.content.limits import (
    MAX_AUTHOR_BYTES,
    MAX_CITE_CHARS,
    MAX_FRONT_MATTER_BYTES,
    MAX_IMAGE_PIXELS,
    MAX_MANIFEST_BYTES,
    MAX_NESTING,
    MAX_NUMBER_DIGITS,
    MAX_PAGE_BYTES,
    MAX_STORY_BYTES,
)
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree
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
    from generator.engine.build_options import Options
    from generator.engine.inputs import Run
    from generator.engine.site_check import check_site

    root = Path(tempfile.mkdtemp(prefix="bounds-"))
    try:
        write_tree(root, {**base_files(), **files})
        lines = [str(finding) for finding in check_site(Run(root, Options(jobs=1))).findings]
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


def every_shape(**extra: str) -> Callable[[Callable], Callable]:
    """Each shape at its limit exactly (with `extra` arguments), then what hypothesis draws."""
    def explicit(test: Callable) -> Callable:
        for shape in SHAPES:
            test = example(shape=shape, side="under", slack=0, **extra)(test)
        return test

    return explicit


def _size(limit: int, side: str, slack: int) -> int:
    return limit - slack if side == "under" else limit + 1 + slack


@pytest.mark.parametrize("shape", ONCE_QUADRATIC)
def test_a_story_of_a_mib_once_quadratic_checks_in_bounded_time(shape: str):
    _at_limit({STORY_PATH: _story(shape, MAX_STORY_BYTES)}, "under")


@pytest.mark.slow
@bounds(len(SHAPES))
@every_shape()
@given(shape=st.sampled_from(sorted(SHAPES)), side=SIDES, slack=SLACK)
def test_a_story_at_its_byte_limit(shape: str, side: str, slack: int):
    _at_limit({STORY_PATH: _story(shape, _size(MAX_STORY_BYTES, side, slack))}, side)


AUTHORED = _story("many paragraphs", 4000).replace("trust: confirmed\n", "trust: confirmed\nauthors: [ana-lima]\n")
PLAIN = {  # files of Markdown without citations: (path, front matter, their limit, the files beside them)
    "page": ("content/pages/terms/reuse.md", "title: Terms", MAX_PAGE_BYTES, {}),
    "author": ("content/authors/ana-lima.md", "name: Ana Lima", MAX_AUTHOR_BYTES, {STORY_PATH: AUTHORED}),
}


@pytest.mark.slow
@bounds(2 * len(SHAPES))
@every_shape(kind="author")
@given(shape=st.sampled_from(sorted(SHAPES)), side=SIDES, slack=SLACK, kind=st.sampled_from(sorted(PLAIN)))
def test_a_page_or_an_author_at_its_byte_limit(shape: str, side: str, slack: int, kind: str):
    path, front, limit, beside = PLAIN[kind]
    size = _size(limit, side, slack)
    _at_limit({path: _exactly(f"---\n{front}\n---\n", SHAPES[shape](size).replace(CITE, ""), size), **beside}, side)


# Front matter: many keys, a long list, long strings, nesting to the limit, past MAX_FRONT_MATTER_BYTES.
FRONT_SHAPES: dict[str, Callable[[int], str]] = {
    "many unknown keys": lambda size: "".join(f"k{n}: 1\n" for n in range(size // 8)),
    "long list": lambda size: "labels:\n" + "".join("  - \"What is left to say.\"\n" for _ in range(size // 26)),
    "long string": lambda size: f'note: "{"x" * (size - 12)}"\n',
    "nested to the limit": lambda size: "x: " + "[" * (MAX_NESTING - 1) + "1" + "]" * (MAX_NESTING - 1) + "\n",
}


@bounds(2 * len(FRONT_SHAPES))
@given(shape=st.sampled_from(sorted(FRONT_SHAPES)), side=SIDES, slack=SLACK)
def test_front_matter_at_its_byte_limit(shape: str, side: str, slack: int):
    limit = _size(MAX_FRONT_MATTER_BYTES, side, slack) - len(FRONT)
    extra = FRONT_SHAPES[shape](max(limit, 0))
    if side == "over":
        extra += "#" * (MAX_FRONT_MATTER_BYTES + 1)  # (a comment: past the limit whatever the shape)
    else:
        extra = extra[:max(limit - 1, 0)].rsplit("\n", 1)[0] + "\n" if len(extra) >= limit else extra
    text = f"---\n{extra}{FRONT}---\n" + STORY.split("---\n", 2)[2]
    must = "front matter is more than" if side == "over" else None
    outcome = isolated(_checked, {STORY_PATH: text}, must, None if must else "front matter is more than", seconds=20)
    assert outcome.kind == "ok", outcome


@bounds(40)
@given(digits=st.integers(MAX_NUMBER_DIGITS - 2, MAX_NUMBER_DIGITS + 2), where=st.sampled_from(["manifest", "front"]))
def test_a_number_at_its_digit_limit(digits: int, where: str):
    number = "9" * digits
    if where == "manifest":
        files = {"content/manifests/1000000000000000001.json": MANIFEST_A.replace('"brief"', f'"n": {number}, "brief"')}
    else:
        files = {STORY_PATH: STORY.replace("---\ntitle", f"---\nx: {number}\ntitle", 1)}
    limit = f"the limit is {MAX_NUMBER_DIGITS}"
    outcome = isolated(_checked, files, limit if digits > MAX_NUMBER_DIGITS else None,
                       None if digits > MAX_NUMBER_DIGITS else limit)
    assert outcome.kind == "ok", outcome


@bounds(30)
@given(length=st.integers(MAX_CITE_CHARS - 40, MAX_CITE_CHARS + 40))
def test_a_cite_marker_at_its_length_limit(length: int):
    """A marker of up to MAX_CITE_CHARS is read as one (its ids checked), a longer one is not (the paragraph cites
    nothing, LP030), however the room is used (spaces after the comma)."""
    from generator.content.body import parse_body

    inner = "1000000000000000001," + " " * (length - len("1000000000000000001,") - len("x")) + "x"
    assert len(inner) == length
    body = parse_body(f"Text. [cites: {inner}]\n")
    assert (body.cites != []) == (len(f"cites: {inner}") <= MAX_CITE_CHARS or length <= MAX_CITE_CHARS)


@pytest.mark.slow
@bounds(8)
@given(shape=st.sampled_from(["many claims", "one long claim", "long brief"]), side=SIDES, slack=SLACK)
def test_a_manifest_at_its_byte_limit(shape: str, side: str, slack: int):
    size = _size(MAX_MANIFEST_BYTES, side, slack)
    data = json.loads(MANIFEST_A)
    if shape == "many claims":
        data["claims"] += [{"id": f"c{n}", "text": f"The vote was {n} to 2, or 14% of {n:,}."} for n in range(size // 60)]
    elif shape == "one long claim":
        data["claims"][0]["text"] = "12,500,000 dollars and 14% " * (size // 27)
    else:
        data["brief"] = "The council's November session. " * (size // 32)
    text = json.dumps(data, indent=1)
    text = text[:size] if len(text) > size else text + " " * (size - len(text))
    if side == "under":  # (cut to size, it must still be JSON: trim what was added)
        while len(text.encode()) > size or not _loads(text):
            text = json.dumps(data := _smaller(data), indent=1)
        text += " " * (size - len(text.encode()))
    _at_limit({"content/manifests/1000000000000000001.json": text}, side)


def _loads(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _smaller(data: dict) -> dict:
    if len(data["claims"]) > 2:
        return {**data, "claims": data["claims"][:-max(1, len(data["claims"]) // 50)]}
    for field in ("brief",):
        if len(data.get(field, "")) > 100:
            return {**data, field: data[field][:-max(100, len(data[field]) // 50)]}
    claims = [dict(claim) for claim in data["claims"]]
    claims[0]["text"] = claims[0]["text"][:-max(100, len(claims[0]["text"]) // 50)]
    return {**data, "claims": claims}


@pytest.mark.slow
@bounds(10)
@given(width=st.sampled_from([1, 7, 1000, 40_000, 40_000_000]), side=SIDES)
def test_an_image_at_its_pixel_limit(width: int, side: str):
    """Wide, tall or square, 40 million pixels are decoded at check time (and written by the build); one more
    is LP070 before decoding."""
    from tests.fuzzing import check_and_build

    pixels = MAX_IMAGE_PIXELS + (side == "over")
    height = max(1, pixels // width)
    if side == "over":
        height = pixels // width + 1
    files = {**_images_shown(_solid_png(width, height))}
    outcome = isolated(_checked, files, "million" if side == "over" else None, None if side == "over" else "LP070",
                       seconds=WHOLE_MIB_SECONDS)
    assert outcome.kind == "ok", outcome
    if side == "under":
        built = isolated(check_and_build, files, None, True, seconds=WHOLE_MIB_SECONDS * 2)
        assert built.kind == "ok", built


def _solid_png(width: int, height: int) -> bytes:
    """A PNG of one colour (its rows compress to nothing, so even 40 million pixels is a small file)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    raw = zlib.compressobj(9)
    row = b"\x00" + b"\x80" * width
    body = b"".join(raw.compress(row) for _ in range(height)) + raw.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", body) + chunk(b"IEND", b""))


def _images_shown(image: bytes) -> dict[str, str | bytes]:
    story = STORY.replace("trust: confirmed\n", 'trust: confirmed\nimage:\n  src: "chart.png"\n  alt: "A chart"\n'
                          '  credit: "Desk"\n')
    return {STORY_PATH: story, "content/images/chart.png": image}
