"""Every input is bounded: aliases, deep nesting, huge numbers, files that are not regular files or that lead
out of content/, and files past their size limit are findings, in bounded time, never a hang or a crash.
The dangerous ones run `check` in a child process (a regression could crash or hang the process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.content.layout import read_upto
from generator.content.limits import (
    MAX_FRONT_MATTER_BYTES,
    MAX_MANIFEST_BYTES,
    MAX_NESTING,
    MAX_STORY_BYTES,
    MAX_STORY_FIGURES,
)
from generator.content.load import load_content
from generator.content.safe_yaml import nesting_bound
from generator.content.source import parse_yaml
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, write_tree

REPO = Path(__file__).resolve().parent.parent
STORIES = "content/stories/2026-11-21"


def check(root: Path, timeout: float = 30, command: str = "check") -> tuple[int, str, float]:
    """`python -m generator check` (or another command) in a child process: exit code, all it printed, seconds."""
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "generator", *command.split(), "--root", str(root)], cwd=REPO,
                          capture_output=True, text=True, errors="replace", timeout=timeout)
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    return done.returncode, output, time.monotonic() - started


def with_front(extra: str) -> str:
    """The base story with lines added to its front matter."""
    return STORY.replace("---\ntitle", "---\n" + extra + "title", 1)


def alias_bomb(levels: int = 9) -> str:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]")
    return "\n".join(lines) + "\n"


def test_an_alias_chain_in_front_matter_is_refused_at_once(site: Path):
    write_tree(site, {STORY_PATH: with_front(alias_bomb())})
    code, output, seconds = check(site)
    assert code == 1 and seconds < 10
    assert f"{STORY_PATH}:3:1: LP001 an alias (*name) is not allowed here" in output


@pytest.mark.parametrize("text", [
    "a: &x [1]\nb: *x\n", "&k key: 1\n*k : 2\n", "base: &b {x: 1}\nother:\n  <<: *b\n",
    "a: &x [1]\n" + "b: " + "[" * 70 + "*x" + "]" * 70 + "\n",  # past the nesting bound: found by the event scan
], ids=["value", "key", "merge", "deep"])
def test_every_alias_is_an_lp001(text: str):
    data, _, findings = parse_yaml(text, "x.md", 1)
    assert data is None and [f.code for f in findings] == ["LP001"]
    assert "alias" in findings[0].message or "nested" in findings[0].message


@pytest.mark.parametrize("front", [
    "deep: " + "[" * 30000 + "]" * 30000 + "\n",           # libyaml's composer recursion: a crash, before
    "deep:\n" + "- " * 30000 + "x\n",                       # block lists nested on one line
    "deep:\n" + "? " * 30000 + "x\n",                       # complex keys nested on one line
    "deep: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
], ids=["flow-lists", "block-lists", "complex-keys", "flow-mappings"])
def test_nesting_past_the_limit_is_an_lp001_not_a_crash(site: Path, front: str):
    """One LP001 in the story's front matter, in our words, wherever the depth is met first: past MAX_NESTING
    in the events we count, or at libyaml's own bound on flow levels (PyYAML 6.0.4's scanner meets it on
    brackets scanned ahead of those events)."""
    write_tree(site, {STORY_PATH: with_front(front)})
    code, output, _ = check(site)
    assert code == 1
    said = f"LP001 lists and mappings are nested deeper than {MAX_NESTING} levels"
    assert output.count(": LP001 ") == 1 and any(line.startswith(f"{STORY_PATH}:") and said in line
                                                 for line in output.splitlines()), output


def test_nesting_within_the_limit_is_read():
    text = "a: " + "[" * (MAX_NESTING - 1) + "1" + "]" * (MAX_NESTING - 1) + "\n"
    data, _, findings = parse_yaml(text, "x.md", 0)
    assert findings == [] and data is not None


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


_TREES = st.recursive(st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.none()),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
                      max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(tree=_TREES, flow=st.sampled_from([None, True, False]), indent=st.integers(2, 9))
def test_the_nesting_bound_is_never_below_the_real_depth(tree, flow, indent: int):
    """What keeps libyaml's composer from deep recursion: the bound may overestimate, never underestimate."""
    text = yaml.safe_dump(tree, default_flow_style=flow, indent=indent, allow_unicode=True)
    assert nesting_bound(text) >= _depth(tree)


@pytest.mark.parametrize("value, why", [
    ("9" * 5000, "is a number of 5,000 characters (the limit is 64)"),
    ("0x" + "f" * 4000, "is a number of 4,002 characters"),  # past Python's digit limit only when printed
    ("1:" * 2500 + "1", "is a number of 5,001 characters"),  # (YAML 1.1's base 60)
], ids=["int", "hex", "base-60"])
def test_a_value_yaml_cannot_make_is_an_lp001_at_its_place(value: str, why: str):
    data, _, findings = parse_yaml(f"title: x\nnewsroom: {value}\n", "x.md", 1)
    assert data is None and len(findings) == 1
    assert (findings[0].line, findings[0].col, findings[0].code) == (3, 11, "LP001") and why in findings[0].message


@pytest.mark.parametrize("value", ["2026-13-45", "2026-02-30T10:00:00Z"], ids=["month", "day"])
def test_a_day_that_does_not_exist_is_read_as_written_for_its_field_to_refuse(value: str):
    data, _, findings = parse_yaml(f"title: x\npublished: {value}\n", "x.md", 1)
    assert data == {"title": "x", "published": value} and findings == []


def test_front_matter_past_its_limit_is_refused(site: Path):
    write_tree(site, {STORY_PATH: with_front("padding: " + "x" * MAX_FRONT_MATTER_BYTES + "\n")})
    content = load_content(site)
    assert [(f.code, f.message) for f in content.findings if f.path == STORY_PATH] == [
        ("LP001", f"front matter is more than {MAX_FRONT_MATTER_BYTES:,} bytes (see docs/security.md)")]


def test_a_story_past_its_limit_is_refused(site: Path):
    write_tree(site, {STORY_PATH: STORY + "word " * (MAX_STORY_BYTES // 5)})
    found = [f for f in load_content(site).findings if f.path == STORY_PATH]
    assert [f.code for f in found] == ["LP001"] and "more than the limit of 1,048,576" in found[0].message


def test_a_manifest_past_its_limit_is_refused(site: Path):
    big = MANIFEST_A.replace('"brief": "', '"brief": "' + "x" * MAX_MANIFEST_BYTES)
    write_tree(site, {"content/manifests/1000000000000000001.json": big})
    found = [f for f in load_content(site).findings if f.path.endswith("0001.json")]
    assert [f.code for f in found] == ["LP100"] and "more than the limit" in found[0].message


@pytest.mark.parametrize("text, why", [
    ("[" * 5000 + "]" * 5000, f"nested deeper than {MAX_NESTING} levels"),   # json.loads: RecursionError
    ('{"id": ' + "[" * 900 + "]" * 900 + "}", f"nested deeper than {MAX_NESTING} levels"),
    ('{"id": ' + "9" * 4400 + "}", "a number of 4,400 digits"),                # int(): ValueError
    ('{"id": ' + "9" * 100 + "}", "a number of 100 digits"),
], ids=["5000-deep", "900-deep", "4400-digits", "100-digits"])
def test_a_manifest_too_deep_or_with_a_huge_number_is_an_lp100(site: Path, text: str, why: str):
    write_tree(site, {"content/manifests/1000000000000000009.json": text})
    code, output, _ = check(site)
    assert code == 1 and f"content/manifests/1000000000000000009.json:1:1: LP100 not valid JSON: {why}" in output


def test_a_manifest_string_with_a_lone_surrogate_is_an_lp100(site: Path):
    """JSON's "\\ud800" is the one way into a string that no UTF-8 output (and no JSON encoder) can hold."""
    write_tree(site, {"content/manifests/1000000000000000001.json": MANIFEST_A.replace("Council minutes", "C \\ud800")})
    found = [f for f in load_content(site).findings if f.path.endswith("0001.json")]
    assert [f.code for f in found] == ["LP100"] and "lone surrogate" in found[0].message


def test_a_line_of_unclosed_cite_markers_is_read_in_linear_time():
    """Each '[' of a line is tried as a marker: a try that scanned on to the next ']' made this take minutes."""
    from generator.content.body import parse_body

    started = time.monotonic()
    body = parse_body("[cites: " * 20000)
    assert body.cites == [] and time.monotonic() - started < 10


def _link(site: Path, relative: str, target: str) -> None:
    path = site / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


@pytest.mark.parametrize("relative, code", [
    (f"{STORIES}/zero.md", "LP001"), ("content/pages/zero.md", "LP001"),
    ("content/manifests/1000000000000000009.json", "LP100"),
])
def test_a_link_to_a_device_is_not_read(site: Path, relative: str, code: str):
    _link(site, relative, "/dev/zero")
    status, output, seconds = check(site)
    assert status == 1 and seconds < 20
    assert f"{relative}:1:1: {code} is a symbolic link to a place outside content/: it is not read" in output


@pytest.mark.parametrize("relative, code", [
    (f"{STORIES}/fifo.md", "LP001"), ("content/pages/fifo.md", "LP001"),
    ("content/manifests/1000000000000000009.json", "LP100"),
])
def test_a_fifo_is_not_read(site: Path, relative: str, code: str):
    os.mkfifo(site / relative)
    status, output, _ = check(site)
    assert status == 1 and f"{relative}:1:1: {code} is not a regular file (a FIFO): it is not read" in output


@pytest.mark.parametrize("make", [
    lambda path: os.symlink("/dev/zero", path), lambda path: os.symlink("/nowhere", path), os.mkfifo,
    lambda path: open(os.fsencode(path).replace(b"new", b"n\xffw"), "wb").close(),
], ids=["device", "dangling-link", "fifo", "name-not-utf-8"])
def test_a_build_after_an_unreadable_file_appeared_is_refused_not_up_to_date(site: Path, make):
    assert check(site, command="build --no-search")[0] == 0
    make(site / STORIES / "new.md")
    status, output, _ = check(site, command="build --no-search")
    assert status == 1 and f"{STORIES}/n" in output and " LP001 " in output and "up to date" not in output


def test_links_are_followed_only_inside_content(site: Path, tmp_path: Path):
    (tmp_path / "elsewhere.md").write_text(STORY)
    _link(site, f"{STORIES}/elsewhere.md", str(tmp_path / "elsewhere.md"))
    _link(site, "content/pages/about.md", str(site / "content/pages/terms/reuse.md"))  # inside: read
    _link(site, "content/pages/loop", str(site / "content/pages"))                      # a loop: not entered
    _link(site, "content/pages/zz", str(site / "content/pages/terms"))                 # read where it is
    _link(site, "content/pages/shared", str(site / "content/shared"))                  # inside content/: read
    write_tree(site, {"content/shared/notes.md": "---\ntitle: Notes\n---\nNotes.\n"})
    _link(site, "content/shared/again", str(site / "content/shared"))                  # a loop: entered once
    _link(site, "content/pages/everything", str(site / "content"))                     # content/ as pages: no
    content = load_content(site)
    assert sorted((f.path, f.message) for f in content.findings) == [
        ("content/pages/everything", "is a symbolic link to content/ itself: it is not read"),
        (f"{STORIES}/elsewhere.md", "is a symbolic link to a place outside content/: it is not read")]
    assert sorted(page.url_path for page in content.pages) == ["/about/", "/shared/notes/", "/terms/reuse/"]


def test_a_linked_stories_folder_outside_content_is_not_read(site: Path, tmp_path: Path):
    outside = tmp_path / "outside"
    (site / "content/stories").rename(outside)
    _link(site, "content/stories", str(outside))
    content = load_content(site)
    assert [(f.path, f.code) for f in content.findings] == [("content/stories", "LP001")]


def test_a_page_whose_name_cannot_be_its_address_is_an_lp001(site: Path):
    (site / "content/pages/a b?c#d.md").write_text("---\ntitle: x\n---\nhi\n")
    (site / "content/pages/café.md").write_text("---\ntitle: Café\n---\nhi\n")
    code, output, _ = check(site)
    assert code == 1 and "content/pages/a b?c#d.md:1:1: LP001 the file's path is the page's address" in output
    assert "café" not in output


def test_a_site_toml_linked_outside_content_is_not_read(site: Path, tmp_path: Path):
    outside = tmp_path / "outside.toml"
    (site / "content/site.toml").rename(outside)
    _link(site, "content/site.toml", str(outside))
    code, output, _ = check(site)
    assert code == 1 and "content/site.toml:1:1: LP001 is a symbolic link to a place outside content/" in output


def test_file_names_that_are_not_utf8_or_hold_control_characters_are_findings(site: Path):
    (site / "content/pages" / os.fsdecode(b"caf\xe9.md")).write_text("---\ntitle: x\n---\nhi\n")
    (site / "content/pages/two\nlines.md").write_text("---\ntitle: x\n---\nhi\n")
    (site / "content/manifests" / os.fsdecode(b"\xff.json")).write_text(MANIFEST_A)
    code, output, _ = check(site)
    assert code == 1
    assert "content/pages/caf\\xe9.md:1:1: LP001 file name is not UTF-8: it is not read" in output
    assert "content/pages/two\\x0alines.md:1:1: LP001 file name has a control character: it is not read" in output
    assert "content/manifests/\\xff.json:1:1: LP100 file name is not UTF-8: it is not read" in output


@pytest.mark.parametrize("make, why", [
    (lambda path: path.mkdir(), "is not a regular file (a folder)"),
    (lambda path: os.symlink("/dev/zero", path), "is a symbolic link to a place outside content/"),
    (lambda path: path.write_text("title = 'x'\n" + "#" * (256 << 10)), "more than the limit of 262,144"),
    (lambda path: path.write_text("a = " + "[" * 5000 + "]" * 5000), "nested too deep"),
    (lambda path: path.write_text("a = " + "9" * 5000), "Exceeds the limit"),
], ids=["folder", "device", "too-large", "too-deep", "huge-integer"])
def test_a_site_toml_that_cannot_be_read_is_a_finding(site: Path, make, why: str):
    toml = site / "content/site.toml"
    toml.unlink()
    make(toml)
    code, output, _ = check(site)
    assert code == 1 and "content/site.toml:1:1: LP001" in output and why in output


@pytest.mark.parametrize("front, expected", [
    ("---\n---\n", "LP002 required field 'title' is missing"),
    ("---\n\n---\nbody [cites: 1]\n", "LP002 required field 'title' is missing"),
])
def test_empty_front_matter_is_reported_not_dropped(site: Path, front: str, expected: str):
    write_tree(site, {STORY_PATH: front, "content/pages/terms/reuse.md": front})
    found = [str(f) for f in load_content(site).findings]
    assert any(line.startswith(f"{STORY_PATH}:1:1: {expected}") for line in found)
    assert any(line.startswith(f"content/pages/terms/reuse.md:1:1: {expected}") for line in found)


@pytest.mark.parametrize(("size", "limit", "read"), [
    (100, 1000, 100),  # as its stat said
    (10, 1000, 100),   # grown since its stat: read on to the end
    (0, 1000, 100),    # a stat of no size (as /proc gives): read all the same
    (10, 50, 51),      # grown past the limit since its stat: one byte more than the limit tells it
    (100, 50, 51),     # past the limit by its stat
])
def test_a_file_is_read_whole_or_to_one_byte_past_its_limit_whatever_its_stat_said(tmp_path: Path, size: int,
                                                                                    limit: int, read: int):
    path = tmp_path / "file"
    path.write_bytes(bytes(range(100)))
    descriptor = os.open(path, os.O_RDONLY)
    try:
        assert read_upto(descriptor, size, limit) == bytes(range(100))[:read]
    finally:
        os.close(descriptor)


def _story_body(body: str) -> str:
    """The base story with its body replaced (every paragraph citing the base story's first manifest)."""
    return STORY.split("\n---\n", 1)[0] + "\n---\n\n" + body


def test_a_sentence_past_the_limit_is_one_finding_not_read(site: Path):
    from generator.content.limits import MAX_SENTENCE_CHARS

    words = ("the council approved 12,500 dollars for Quay Street buses and Mayor Ruiz said ridership rose "
             "\"by far\" in November ").split()
    sentence = " ".join(words[i % len(words)] for i in range((MAX_STORY_BYTES - 4096) // 8))
    cite = STORY.split("[cites: ", 1)[1].split("]", 1)[0]
    write_tree(site, {STORY_PATH: _story_body(f"{sentence}. [cites: {cite}]\n")})
    code, output, seconds = check(site, timeout=120)
    found = [line for line in output.splitlines() if ": LP0" in line]
    assert code == 1 and seconds < 60, output[-2000:]
    assert [line.split(": ")[1].split()[0] for line in found].count("LP032") == 1
    assert f"compare sentences of at most {MAX_SENTENCE_CHARS:,} with their claims" in output


@pytest.mark.slow  # (an input at its whole size, as the other bounds of test_bounds.py)
def test_ten_thousand_quotation_marks_and_five_thousand_table_rows_are_checked_to_the_figures_limit(site: Path):
    cite = STORY.split("[cites: ", 1)[1].split("]", 1)[0]
    quoted = " ".join(f'Ruiz said "{i} buses", "the busway", "{i % 7} votes", "Quay Street" and "9 to 2".'
                      for i in range(1000))  # 10,000 marks in sentences of ordinary length
    rows = "\n".join(f"| Quay Street {i} | {i * 37 % 9000:,} riders | up {i % 40}% [cites: {cite}] |" for i in range(5000))
    write_tree(site, {STORY_PATH: _story_body(f"{quoted} [cites: {cite}]\n\n| Route | Riders | Change |\n"
                                              f"|---|---|---|\n{rows}\n")})
    code, output, seconds = check(site, timeout=300)
    assert code == 1 and seconds < 240, output[-2000:]
    assert "LP031 table row:" in output and "LP034 paragraph:" in output
    assert output.count(f"the story holds more than {MAX_STORY_FIGURES:,} figures") == 1  # (15,000 in the rows)
