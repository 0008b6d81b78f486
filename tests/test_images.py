"""Images end to end: files of content/images/ made in the test with Pillow, written at image_widths under
content-hashed names, shown with srcset, sizes, width and height, caption and credit, in og:image, the
structured data and all three formats; an image changed on disk remakes only what shows it."""

from __future__ import annotations

import functools
import io
import json
import re
import struct
import zlib
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import html
from PIL import Image

from generator.cli import cli
from generator.content.image_files import read_image
from generator.engine.build_options import Options
from generator.engine.inputs import Run
from generator.engine.site_check import check_site
from tests.conftest import STORY, STORY_PATH, build_in_memory, write_tree
from tests.test_site import story_file

STORY_URL = "stories/2026-11-21/council-funds-the-quay-street-busway/"
BASE = "https://test.example.org"


@functools.lru_cache(maxsize=None)
def picture(size: tuple[int, int], kind: str = "PNG", shade: int = 0, orientation: int | None = None) -> bytes:
    """A gradient (so that resizing has something to do) with a band whose colour tells images apart (made
    once for each set of arguments: tests write the same pictures again and again)."""
    image = Image.new("RGB", size)
    width, height = size
    image.putdata([(x * 255 // width, y * 255 // height, shade) for y in range(height) for x in range(width)])
    out = io.BytesIO()
    if orientation is not None:
        exif = Image.Exif()
        exif[0x0112] = orientation
        image.save(out, kind, exif=exif)
    else:
        image.save(out, kind)
    return out.getvalue()


LEAD = ('image:\n  src: "2026/busway-route.png"\n  alt: "The busway route along Quay Street"\n'
        '  credit: "Test Desk graphic"\n  caption: "The route, from the ferry to the station."\n')
BODY = "![Riders a day on Quay Street, by quarter](riders.jpg) [cites: 1000000000000000002]\n"


def with_images(site: Path, lead: bytes | None = None, riders: bytes | None = None) -> Path:
    text = STORY.replace("trust: confirmed\n", "trust: confirmed\n" + LEAD).replace("## Why now\n", "## Why now\n\n" + BODY)
    return write_tree(site, {STORY_PATH: text,
                             "content/images/2026/busway-route.png": lead or picture((1600, 900)),
                             "content/images/riders.jpg": riders or picture((500, 300), "JPEG", 200)})


def test_images_are_written_at_their_widths_and_shown_with_srcset(site: Path):
    built = build_in_memory(with_images(site))
    assert built.ok, built.findings
    files = sorted(path for path in built.files if path.startswith("images/"))
    assert [re.sub(r"\.[0-9a-f]{12}\.", ".HASH.", path) for path in files] == [
        "images/busway-route-1280.HASH.webp", "images/busway-route-640.HASH.webp", "images/riders-500.HASH.webp"]
    for path, size in zip(files, [(1280, 720), (640, 360), (500, 300)]):
        with Image.open(io.BytesIO(built.files[path])) as written:
            assert (written.format, written.size) == ("WEBP", size)
    page = html.fromstring(built.files[STORY_URL + "index.html"])
    lead = page.cssselect("figure.lead-image img")[0]
    assert lead.get("src") == "/" + files[0]
    assert lead.get("srcset") == f"/{files[1]} 640w, /{files[0]} 1280w"
    assert lead.get("sizes") and (lead.get("width"), lead.get("height")) == ("1280", "720")
    assert lead.get("alt") == "The busway route along Quay Street"
    caption = page.cssselect("figure.lead-image figcaption")[0].text_content()
    assert "The route, from the ferry to the station." in caption and "Test Desk graphic" in caption
    body = page.cssselect("section.body img")[0]
    assert (body.get("src"), body.get("width"), body.get("height"), body.get("loading")) == (
        "/" + files[2], "500", "300", "lazy")
    assert page.cssselect('meta[property="og:image"]')[0].get("content") == f"{BASE}/{files[0]}"
    assert page.cssselect('meta[name="twitter:card"]')[0].get("content") == "summary_large_image"
    article = json.loads(page.cssselect('script[type="application/ld+json"]')[0].text)
    assert [image["url"] for image in article["image"]] == [f"{BASE}/{files[0]}", f"{BASE}/{files[2]}"]
    assert article["image"][0]["creditText"] == "Test Desk graphic"


def test_the_json_and_markdown_formats_carry_the_images(site: Path):
    built = build_in_memory(with_images(site))
    data = json.loads(built.files[STORY_URL + "index.json"])
    lead = data["image"]
    assert (lead["src"], lead["credit"], lead["width"], lead["type"]) == ("2026/busway-route.png", "Test Desk graphic",
                                                                         1280, "image/webp")
    assert [r["width"] for r in lead["renditions"]] == [640, 1280] and lead["url"].startswith(f"{BASE}/images/")
    assert [image["src"] for image in data["images"]] == ["2026/busway-route.png", "riders.jpg"]
    markdown = built.files[STORY_URL + "index.md"].decode()
    assert f"![The busway route along Quay Street]({lead['url']})" in markdown
    assert f"![Riders a day on Quay Street, by quarter]({data['images'][1]['url']}) [cites:" in markdown
    feed = json.loads(built.files["feed.json"])["items"][0]
    assert feed["image"] == lead["url"] and lead["url"] in feed["content_html"]


def test_an_image_is_never_enlarged_and_is_turned_upright(site: Path):
    turned = picture((300, 200), "JPEG", 90, orientation=6)  # stored on its side: shown 200 wide, 300 high
    built = build_in_memory(with_images(site, riders=turned))
    assert built.ok, built.findings
    data = json.loads(built.files[STORY_URL + "index.json"])
    riders = data["images"][1]
    assert [(r["width"], r["height"]) for r in riders["renditions"]] == [(200, 300)]
    with Image.open(io.BytesIO(built.files[riders["path"].lstrip("/")])) as written:
        assert written.size == (200, 300)


def test_a_changed_image_gets_a_new_name_and_remakes_only_what_shows_it(site: Path):
    other_path, other_text = story_file(0, 22, 9, newsroom="science", beat="research")
    write_tree(with_images(site), {other_path: other_text})
    run = CliRunner()
    assert run.invoke(cli, ["build", "--root", str(site), "--no-search"]).exit_code == 0
    public = site / "public"
    before = {p.relative_to(public).as_posix(): p.stat().st_mtime_ns for p in public.rglob("*") if p.is_file()}
    write_tree(site, {"content/images/riders.jpg": picture((500, 300), "JPEG", 30)})
    result = run.invoke(cli, ["build", "--root", str(site), "--no-search"])
    assert result.exit_code == 0, result.output
    after = {p.relative_to(public).as_posix(): p.stat().st_mtime_ns for p in public.rglob("*") if p.is_file()}
    changed = {path for path in after if after[path] != before.get(path)}
    gone = set(before) - set(after)
    assert [p for p in gone if p.startswith("images/riders-")] and [p for p in changed if p.startswith("images/riders-")]
    assert not any(p.startswith("images/busway-route") for p in changed | gone)
    other = "stories/2026-11-22/the-amber-report-reaches-the-council/"
    assert {STORY_URL + f"index.{s}" for s in ("html", "json", "md")} <= changed
    assert not any(path.startswith(other) for path in changed)
    assert "newsrooms/science/index.html" not in changed and "beats/research/index.html" not in changed


def test_same_input_gives_the_same_image_bytes(site: Path):
    with_images(site)
    first = build_in_memory(site).files
    second = build_in_memory(site).files
    assert {p: d for p, d in first.items() if p.startswith("images/")} == \
        {p: d for p, d in second.items() if p.startswith("images/")}


def test_read_image_says_why_a_file_cannot_be_used(tmp_path: Path):
    good = tmp_path / "a.png"
    good.write_bytes(picture((40, 20)))
    found = read_image(str(good), "a.png")
    assert (found.width, found.height, found.format) == (40, 20, "PNG")
    (tmp_path / "b.png").write_bytes(b"GIF89a not really")
    assert read_image(str(tmp_path / "b.png"), "b.png") == "is not an image file Pillow can read"
    gif = io.BytesIO()
    Image.new("RGB", (4, 4)).save(gif, "GIF")
    (tmp_path / "c.png").write_bytes(gif.getvalue())
    assert read_image(str(tmp_path / "c.png"), "c.png") == "is GIF, not PNG, JPEG, WebP or AVIF"
    assert read_image(str(tmp_path / "missing.png"), "missing.png").startswith("cannot be read")
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", 20000, 10000, 8, 2, 0, 0, 0)  # 200 million pixels: past Pillow's own bound
    (tmp_path / "d.png").write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b""))
                                     + chunk(b"IEND", b""))
    assert read_image(str(tmp_path / "d.png"), "d.png") == "is more than 40 million pixels"


def test_an_image_that_leads_out_of_content_or_is_too_large_is_not_read(site: Path, tmp_path: Path):
    secret = tmp_path / "elsewhere.png"
    secret.write_bytes(picture((40, 20)))
    with_images(site)
    (site / "content/images/riders.jpg").unlink()
    (site / "content/images/riders.jpg").symlink_to(secret)
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert result.exit_code == 1
    assert "LP070 image content/images/riders.jpg is a symbolic link to a place outside content/: it is not read" \
        in result.stdout
    huge = io.BytesIO()
    Image.new("1", (8000, 6000)).save(huge, "PNG")  # 48 million pixels in a few kilobytes
    write_tree(site, {"content/images/riders.jpg": None})
    write_tree(site, {"content/images/riders.jpg": huge.getvalue()})
    result = CliRunner().invoke(cli, ["check", "--root", str(site)])
    assert "LP070 image content/images/riders.jpg is 8000 x 6000 pixels, more than 40 million" in result.stdout


def _camera_jpeg() -> bytes:
    """A JPEG as a camera writes one: turned by its EXIF orientation, with a maker, times and a sub-IFD."""
    image = Image.new("RGB", (64, 48), (10, 200, 30))
    exif = Image.Exif()
    exif[0x0112], exif[0x010F], exif[0x0132] = 6, "Camera", "2026:11:21 10:00:00"
    exif.get_ifd(0x8769)[0x9003] = "2026:11:21 10:00:00"
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


CAMERA = _camera_jpeg()
EXIF_AT = CAMERA.index(b"Exif\x00\x00")
EXIF_END = EXIF_AT + int.from_bytes(CAMERA[EXIF_AT - 2:EXIF_AT], "big")


@st.composite
def damaged(draw) -> bytes:
    """The camera's JPEG with bytes of its EXIF block changed, cut short, or both."""
    data = bytearray(CAMERA)
    for _ in range(draw(st.integers(0, 3))):
        data[draw(st.integers(EXIF_AT, EXIF_END - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()):
        del data[draw(st.integers(0, len(data) - 1)):]
    return bytes(data)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])  # (more: fuzz.py)
@given(data=damaged())
@example(data=CAMERA[:EXIF_AT + 17] + b"\x00" + CAMERA[EXIF_AT + 18:])  # struct.error in the build
@example(data=CAMERA[:EXIF_AT + 17] + b"\x1a" + CAMERA[EXIF_AT + 18:])  # TypeError
@example(data=CAMERA[:EXIF_AT + 19] + b"\x05" + CAMERA[EXIF_AT + 20:])  # AttributeError
@example(data=CAMERA[:-200])
def test_check_and_build_agree_on_a_damaged_jpeg(site: Path, data: bytes):
    """One changed byte of EXIF ended the build in struct.error or TypeError (and the preview in a 500 on
    every page), a truncated JPEG in "cannot write public/", both after a clean check."""
    with_images(site, lead=picture((64, 36)), riders=data)  # (a small lead: only the riders' JPEG is in question)
    findings = [f for f in check_site(Run(site, Options(jobs=1))).findings if f.severity == "error"]
    assert all(f.code == "LP070" and "riders.jpg" in f.message for f in findings), findings
    built = build_in_memory(site, search=False)
    assert built.report.ok == (not findings), built.report.findings
    for path in (path for path in built.files if path.startswith("images/riders-")):
        Image.open(io.BytesIO(built.files[path])).load()


def test_a_tall_image_is_written_in_a_format_that_holds_it(site: Path):
    """WebP holds at most 16,383 pixels a side: a 700 x 30,000 chart (21 million pixels, within the bound)
    passed check and failed the build."""
    tall = io.BytesIO()
    Image.new("RGB", (700, 30000), (200, 30, 30)).save(tall, "PNG")
    built = build_in_memory(with_images(site, lead=tall.getvalue()), search=False)
    assert built.report.ok, built.report.findings
    written = sorted(path for path in built.files if path.startswith("images/busway-route-"))
    assert [path.rsplit(".", 1)[1] for path in written] == ["png", "png"]
    assert [Image.open(io.BytesIO(built.files[path])).size for path in written] == [(640, 27429), (700, 30000)]
