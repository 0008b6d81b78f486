"""The fuzzing harness's inputs and targets, shared by tests/test_fuzz.py (a brief run in CI) and
benchmarks/fuzz.py (a long one): front matter, story bodies, manifests, site.toml and templates made by
hypothesis, some wholly random and some hostile on purpose, each put into a small valid site that is then
checked and built. Each example runs in a forked child process with bounded memory and time, so a
traceback, a crash, a hang or a blow-up is reported as what it is instead of taking the run down."""

from __future__ import annotations

import datetime as dt
import functools
import io
import json
import os
import resource
import shutil
import signal
import struct
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable
from pathlib import Path

import yaml
from hypothesis import strategies as st

from tests.conftest import MANIFEST_A, SITE_TOML, STORY, STORY_PATH, base_files

MEMORY_BYTES = 1 << 30  # address space an example may add to the process's own
SECONDS = 10            # CPU time an example may take (a small site checks and builds in well under one)
WAITING = 4             # and wall time, in multiples of that: a busy machine makes an example wait for a core


class Outcome:
    """What one example did: "ok", or a traceback, a crash, a timeout; its wall and CPU seconds."""

    def __init__(self, kind: str, detail: str, seconds: float, cpu: float = 0.0) -> None:
        self.kind, self.detail, self.seconds, self.cpu = kind, detail, seconds, cpu

    def __repr__(self) -> str:
        return f"{self.kind} after {self.seconds:.1f} s ({self.cpu:.1f} s of CPU)\n{self.detail}"


def isolated(target: Callable[..., None], *args: object, seconds: int = SECONDS) -> Outcome:
    """Run target(*args) in a forked child with MEMORY_BYTES more address space than now and `seconds` of CPU
    time (SIGXCPU ends it: a bound that other work on the machine does not move), WAITING times as many of
    wall time (SIGALRM: a child blocked without using the CPU); its traceback, if it raised, comes back through
    a pipe."""
    reading, writing = os.pipe()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(reading)
        try:
            pages = int(Path("/proc/self/statm").read_text().split()[0])
            ceiling = pages * resource.getpagesize() + MEMORY_BYTES
            resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            signal.signal(signal.SIGXCPU, signal.SIG_DFL)
            signal.alarm(seconds * WAITING)
            target(*args)
            report = b"ok"
        except BaseException:
            report = traceback.format_exc().encode("utf-8", "replace")
        os.write(writing, report)  # (less than a pipe holds, or the parent reads it meanwhile)
        os._exit(0)
    os.close(writing)
    chunks = []
    with os.fdopen(reading, "rb") as pipe:
        while chunk := pipe.read(65536):
            chunks.append(chunk)
    _, status, usage = os.wait4(pid, 0)
    seconds, cpu = time.monotonic() - started, usage.ru_utime + usage.ru_stime
    text = b"".join(chunks).decode("utf-8", "replace")
    if os.WIFSIGNALED(status):
        sign = os.WTERMSIG(status)
        kind = "timeout" if sign in (signal.SIGALRM, signal.SIGXCPU) else f"crash (signal {sign})"
        return Outcome(kind, text, seconds, cpu)
    return Outcome("ok" if text == "ok" else "traceback", text, seconds, cpu)


def check_and_build(files: dict[str, str | bytes | None], now: str | None = None, agree: bool = False) -> None:
    """The base site with `files` laid over it, checked and built in memory (at the time `now`, given as --now
    is); every finding printed as the command line prints it (text and JSON), every output encoded. `agree`:
    a site check finds no error in builds. Raises only on a bug."""
    from generator.engine import Memory, Options, build
    from generator.engine.clock import BadTime, build_time
    from generator.engine.inputs import Run
    from generator.engine.site_check import check_site

    try:
        moment = build_time(now, {}) if now is not None else None
    except BadTime:
        return  # (the command stops with what is expected, before anything is read)

    root = Path(tempfile.mkdtemp(prefix="fuzz-site-"))
    try:
        for relative, text in {**base_files(), **files}.items():
            path = root / relative
            if text is None:
                path.unlink(missing_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        checked = check_site(Run(root, Options(drafts=True, jobs=1, now=moment))).findings
        for finding in checked:  # what `check` prints, as text and as JSON
            str(finding).encode("utf-8")
            json.dumps(finding.as_dict(), ensure_ascii=False).encode("utf-8")
        memory = Memory()
        report = build(root, memory, Options(jobs=1, search=False, now=moment))
        for finding in report.findings:
            str(finding).encode("utf-8")
        assert report.refused is None
        clean = not any(finding.severity == "error" for finding in checked)
        assert not agree or not clean or report.ok, f"check found no error, the build: {report.findings}"
        assert all(isinstance(data, bytes) for data in memory.files.values())
    finally:
        shutil.rmtree(root, ignore_errors=True)


# --- inputs -------------------------------------------------------------------------------------------

ANY_TEXT = st.text(max_size=60)
WORDS = st.sampled_from(["council", "budget", "12,500,000", "14%", "$3.6bn", "October 19", "2026-11-21", "the",
                         "9 to 2", "1.39x", "voted", "*", "_", "`", "[", "]", "<", ">", "&amp;", "\\", "#", "|",
                         "[cites: 1000000000000000001]", "[cites: x]", "[cites: ]", "\u202e", "\x00", "\ufffe"])
IDS = st.one_of(st.sampled_from(["1000000000000000001", "1000000000000000002", "2000000000000000011"]),
                st.text(alphabet="0123456789abcXYZ_-", min_size=0, max_size=70), ANY_TEXT)

YAML_HOSTILE = st.sampled_from([
    "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n", "x: " + "[" * 200 + "]" * 200 + "\n", "x:\n" + "- " * 500 + "y\n",
    "x: " + "9" * 5000 + "\n", "x: 2026-13-45\n", "x: 0001-01-01T00:00:00+14:00\n", "x: !!python/object:os.system a\n",
    "x: !!binary aGk=\n", "x: !!set {a, b}\n", "<<: {title: merged}\n", "? [a, b]\n: c\n", "x: .nan\n", "x: ~\n",
    "x: \"\\ud800\"\n", "x: \"\\x01\\u2028\\ufffe\"\n", "title: |\n  multi\n  line\n", "'\ufeff': 1\n",
])


def _nested(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4)


def _yaml_values() -> st.SearchStrategy:
    leaves = st.one_of(ANY_TEXT, st.integers(), st.floats(), st.booleans(), st.none(), st.dates(), st.datetimes())
    return st.recursive(leaves, _nested, max_leaves=20)


@st.composite
def front_matters(draw) -> str:
    """A story's front matter: the valid one with fields changed, dropped or added, wholly random YAML, or
    a hostile snippet, sometimes several of these together."""
    lines = STORY.split("---\n")[1].splitlines(keepends=True)
    choice = draw(st.integers(0, 3))
    if choice == 0:
        for _ in range(draw(st.integers(1, 4))):
            at = draw(st.integers(0, len(lines) - 1))
            value = yaml.safe_dump(draw(_yaml_values()), default_flow_style=True, allow_unicode=True).strip()
            key = lines[at].split(":")[0] if ":" in lines[at] else draw(ANY_TEXT)
            lines[at] = f"{key}: {value.replace(chr(10), ' ')}\n"
        return "".join(lines)
    if choice == 1:
        return yaml.safe_dump(draw(_yaml_values()), default_flow_style=draw(st.sampled_from([None, True, False])),
                              allow_unicode=True)
    if choice == 2:
        return "".join(lines) + draw(YAML_HOSTILE)
    return draw(st.text(max_size=300))


# A snippet repeated thousands of times: what finds work that grows faster than the text (a line of 30,000
# '[cites: ' once took minutes).
REPEATED = st.tuples(st.sampled_from(["[cites: ", "[", "*a", "_a", "[a](", "<a ", "&#x", "`", "> ", "- ", "1. ", "|",
                                      "](x ", "x:", "12,", "\\", "<!--", "[^", "![", "~~", "** ", "\t"]),
                     st.integers(100, 4000)).map(lambda parts: parts[0] * parts[1])

BLOCKS = st.one_of(
    REPEATED,
    st.lists(WORDS | ANY_TEXT, min_size=1, max_size=12).map(" ".join),
    st.tuples(st.sampled_from(["# ", "## ", "### ", "- ", "1. ", "> ", "    ", "| ", "```\n", "<div>", "---\n"]),
              st.lists(WORDS, max_size=6).map(" ".join)).map("".join),
    st.tuples(ANY_TEXT, st.sampled_from(["https://e.org/", "javascript:", "JaVaScRiPt:", "&#106;avascript:",
                                         "data:text/html,", "mailto:", "/rel", "", "ftp://"]), ANY_TEXT)
    .map(lambda parts: f"[{parts[0]}]({parts[1]}{parts[2]}) [cites: 1000000000000000001]"),
    st.lists(st.lists(WORDS, min_size=1, max_size=3).map(" | ".join), min_size=1, max_size=4)
    .map(lambda rows: "| a | b |\n|---|---|\n" + "\n".join(f"| {row} |" for row in rows)),
    st.text(max_size=200),
)


@st.composite
def bodies(draw) -> str:
    return "\n\n".join(draw(st.lists(BLOCKS, max_size=10)))


def _json_values() -> st.SearchStrategy:
    leaves = st.one_of(ANY_TEXT, st.integers(), st.floats(allow_nan=False), st.booleans(), st.none())
    return st.recursive(leaves, _nested, max_leaves=20)


@st.composite
def manifests(draw) -> str:
    """A manifest file: the valid one with values replaced, random JSON, or JSON text cut or spliced."""
    data = json.loads(MANIFEST_A)
    choice = draw(st.integers(0, 3))
    if choice == 0:
        for _ in range(draw(st.integers(1, 3))):
            path = draw(st.sampled_from([("title",), ("source", "url"), ("source", "name"), ("published",), ("brief",),
                                         ("claims", 0, "text"), ("claims", 1, "id"), ("id",), ("extra",)]))
            target = data
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = draw(_json_values() | ANY_TEXT | IDS)
        return json.dumps(data, ensure_ascii=draw(st.booleans()))
    if choice == 1:
        return json.dumps(draw(_json_values()))
    text = MANIFEST_A
    at = draw(st.integers(0, len(text)))
    return text[:at] + (draw(st.text(max_size=40)) if choice == 2 else "")


TOML_VALUES = st.one_of(
    ANY_TEXT.map(lambda text: json.dumps(text)), st.integers(-10**30, 10**30).map(str),
    st.sampled_from(["nan", "inf", "-inf", "true", "[]", "{}", "[1, [2, [3]]]", '"../../x"', '"' + "a" * 3000 + '"',
                     '"https://e.org/$(reboot)/{id}"', '"https://e.org/{id}"', '"X-A: b"', '"/../x"', "1979-05-27"]))


@st.composite
def site_tomls(draw) -> str:
    """site.toml: the valid one with values replaced and sections added, or random text."""
    lines = SITE_TOML.splitlines()
    if draw(st.integers(0, 4)) == 0:
        return draw(st.text(max_size=300))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        if " = " in lines[at]:
            lines[at] = lines[at].split(" = ")[0] + " = " + draw(TOML_VALUES)
    extra = draw(st.sampled_from(["", "[verify]\nendpoint = {v}\n", "[verify]\nendpoint = \"https://e.org/{{id}}\"\n"
                                  "header = {v}\n", "[checks]\nLP010 = {v}\n", "[checks]\n{v} = \"off\"\n"]))
    return "\n".join(lines) + "\n" + extra.replace("{v}", draw(TOML_VALUES))


TEMPLATE_PARTS = st.sampled_from([
    "{{ story.title }}", "{{ story.title | md_text }}", "{{ story.description | yaml }}", "{{ story | tojson_pretty }}",
    "{% for row in story.ledger %}{{ row.title }}|{{ row.source_url | uri }}{% endfor %}", "{{ story.nope }}",
    "{{ 1/0 }}", "{% include 'story.md' %}", "{% extends 'base.html' %}", "{{ range(10**9) | list | length }}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "{{ story.title[1000] }}", "{{ x.y.z }}", "{% if %}",
    "{{ story.title * 3 }}", "{{ 'x' * 10**10 }}", "{{ story.ledger | map(attribute='nope') | list }}",
    "{% for x in story %}{{ x }}{% endfor %}", "{{ story.published | human_time }}", "{{ '%s' % story }}", "{{",
    "{% raw %}", "{{ site.url(story) }}", "{{ story.verify.command | md_fence('sh') }}", "\n", "text",
])


@st.composite
def templates(draw) -> dict[str, str]:
    """One of the story templates (or the 404 page) replaced by a random arrangement of template parts."""
    name = draw(st.sampled_from(["story.md", "story.html", "story.json", "404.html", "feed.xml"]))
    return {f"templates/{name}": "".join(draw(st.lists(TEMPLATE_PARTS | ANY_TEXT, max_size=8)))}


def story_with(front: str | None = None, body: str | None = None) -> str:
    _, base_front, base_body = STORY.split("---\n", 2)
    return f"---\n{base_front if front is None else front}---\n{base_body if body is None else body}"


_SITES: dict[str, st.SearchStrategy] = {  # kinds of input that are files laid over the base site
    "front matter": front_matters().map(lambda front: {STORY_PATH: story_with(front=front)}),
    "body": bodies().map(lambda body: {STORY_PATH: story_with(body=body)}),
    "manifest": manifests().map(lambda text: {"content/manifests/1000000000000000002.json": text}),
    "site.toml": site_tomls().map(lambda text: {"content/site.toml": text}),
    "page": st.tuples(front_matters(), bodies()).map(
        lambda parts: {"content/pages/terms/reuse.md": f"---\n{parts[0]}---\n{parts[1]}"}),
    "template": templates(),
    "another story": st.tuples(st.sampled_from(["2026-11-21", "2026-11-22", "2026-02-30", "x", "0001-01-01"]),
                               st.text(alphabet="abcdefgh-0123456789.", min_size=1, max_size=20), front_matters(),
                               bodies()).map(
        lambda parts: {f"content/stories/{parts[0]}/{parts[1]}.md": f"---\n{parts[2]}---\n{parts[3]}"}),
}
# Each kind's examples: (arguments, keyword arguments) of its target.
INPUTS: dict[str, st.SearchStrategy] = {kind: files.map(lambda found: ((found,), {})) for kind, files in _SITES.items()}


# --- images, tables, dates, the desk's frames ------------------------------------------------------------------

def _jpeg_with_exif() -> bytes:
    from PIL import Image

    image, exif = Image.new("RGB", (48, 32), (30, 90, 200)), Image.Exif()
    exif[0x0112], exif[0x010F], exif[0x0132] = 6, "Camera", "2026:11:21 10:00:00"
    exif.get_ifd(0x8769)[0x9003] = "2026:11:21 10:00:00"
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


def _png(width: int, height: int) -> bytes:
    """A PNG whose header says width x height, with one row of pixels at most (a bomb, if it claims more)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * (1 + 3 * width)))
            + chunk(b"IEND", b""))


CAMERA = _jpeg_with_exif()


@st.composite
def images(draw) -> bytes:
    """An image file: the camera's JPEG with bytes changed (most in its EXIF block), cut short, or both; a PNG
    whose header claims any size (wide, tall, past the pixel bound); or random bytes."""
    choice = draw(st.integers(0, 3))
    if choice == 2:
        return _png(draw(st.integers(1, 70_000)), draw(st.integers(1, 70_000)))
    if choice == 3:
        return draw(st.binary(max_size=400))
    data = bytearray(CAMERA)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(20, 170)) if draw(st.booleans()) else draw(st.integers(0, len(data) - 1))
        data[at] = draw(st.integers(0, 255))
    if choice == 1:
        del data[draw(st.integers(0, len(data) - 1)):]
    return bytes(data)


def _showing(image: bytes) -> dict:
    story = STORY.replace("trust: confirmed\n", 'trust: confirmed\nimage:\n  src: "a.jpg"\n  alt: "A chart"\n'
                          '  credit: "Desk"\n').replace("## Why now\n", "## Why now\n\n![A map](b.png) "
                                                        "[cites: 1000000000000000002]\n")
    return {STORY_PATH: story, "content/images/a.jpg": image, "content/images/b.png": image}


CELLS = st.sampled_from(["x", "", " ", "12,500,000", "14%", "\\|", "`|`", "[cites: 1000000000000000001]", "**b**",
                         "[l](https://e.org)", "<b>", "&#124;", ":---", "---:", "\t"])


@st.composite
def tables(draw) -> str:
    """A GFM table: any number of columns (wide ones repeated out to thousands), rows of any length, escaped
    pipes, cites in any cell, odd alignment rows."""
    columns = draw(st.integers(1, 12)) * draw(st.sampled_from([1, 1, 10, 300]))
    head = "| " + " | ".join(draw(st.lists(CELLS, min_size=1, max_size=6)) * columns)[:20_000] + " |"
    align = "|" + draw(st.sampled_from(["---|", ":--|", "--:|", ":-:|", "-|", "|"])) * columns
    rows = ["| " + " | ".join(draw(st.lists(CELLS, max_size=8)) * draw(st.integers(1, columns))) + " |"
            for _ in range(draw(st.integers(0, 6)))]
    return "\n".join([head, align, *rows]) + "\n"


MOMENTS = st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30),
                       timezones=st.sampled_from([dt.timezone.utc, dt.timezone(dt.timedelta(hours=14)),
                                                  dt.timezone(dt.timedelta(hours=-14))]))
DATES = st.one_of(MOMENTS.map(lambda moment: moment.isoformat()), st.dates().map(str),
                  st.sampled_from(["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "2026-02-30", "2026-11-21",
                                   "2026-11-21T10:30:00Z", "1000-01-01", "9999-12-31", "2026-11-21T24:00:00Z"]))


@st.composite
def dated(draw) -> tuple[dict, str | None]:
    """The story's published, updated and correction dates, a manifest's published date, and the build's time."""
    published = draw(st.sampled_from(["2026-11-21T10:30:00Z", "2026-11-21T10:30:00+14:00"]) | DATES)
    story = STORY.replace("published: 2026-11-21T10:30:00Z", f"published: {published}").replace(
        "trust: confirmed\n", f"trust: confirmed\nupdated: {draw(DATES)}\ncorrections:\n  - date: {draw(DATES)}\n"
                              '    text: "Fixed."\n')
    manifest = json.loads(MANIFEST_A)
    manifest["published"] = draw(DATES)
    now = draw(st.none() | DATES)
    return {STORY_PATH: story, "content/manifests/1000000000000000001.json": json.dumps(manifest)}, now


FRAMES = st.one_of(
    st.binary(max_size=2000),
    st.sampled_from([b"[" * 100_000, b'{"a":' * 50_000, b'"\\ud800"', b"\xff\xfe", b'{"jsonrpc":"2.0","id":1}'])
    .map(lambda part: b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":' + part + b"}"),
    st.builds(lambda ident, text: json.dumps({"jsonrpc": "2.0", "id": ident, "method": "tools/call",
                                              "params": {"name": "read_story", "arguments": {"path": text}}},
                                             ensure_ascii=False).encode("utf-8", "surrogatepass"),
              st.one_of(st.integers(), st.text(max_size=20), st.none()), st.text(max_size=200)),
    st.integers(1, 40).map(lambda size: b'{"jsonrpc":"2.0","id":8,"params":"' + b"a" * (size << 18) + b'"}'),
)


def desk_frames(lines: list[bytes]) -> None:
    """Lines as the stdio desk reads them: each is passed to the SDK as it is, or answered (desk/frames.py)."""
    from mcp_types import jsonrpc_message_adapter

    from generator.desk.frames import Frames, refusal

    for line in lines:
        found = refusal(line)
        if found is None:
            jsonrpc_message_adapter.validate_json(line.decode("utf-8"), by_name=False)
        else:
            json.dumps(found)
    read = io.BufferedReader(Frames(io.BytesIO(b"\n".join(lines) + b"\n"))).read()
    for line in read.splitlines():
        jsonrpc_message_adapter.validate_json(line.decode("utf-8"), by_name=False)


TARGETS: dict[str, Callable[..., None]] = {"desk frames": desk_frames}  # (check_and_build, unless named here)


def run_example(kind: str, example: tuple[tuple, dict]) -> Outcome:
    """One example of a kind, given to its target in a child process (isolated)."""
    arguments, keywords = example
    return isolated(functools.partial(TARGETS.get(kind, check_and_build), **keywords), *arguments)
INPUTS.update({
    "image": images().map(lambda image: ((_showing(image),), {"agree": True})),
    "table": st.lists(tables(), min_size=1, max_size=3).map(
        lambda found: (({STORY_PATH: story_with(body="\n\n".join(found))},), {})),
    "dates": dated().map(lambda parts: ((parts[0],), {"now": parts[1]})),
    "desk frames": st.lists(FRAMES, min_size=1, max_size=5).map(lambda lines: ((lines,), {})),
})
