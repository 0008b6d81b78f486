"""Publishing for real: a folder mirror swapped in whole, and an S3 bucket on a moto_server started here."""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import cli
from generator.output.media import content_type
from generator.publish import IMMUTABLE, Item, Plan
from tests.conftest import STORY_PATH, write_tree

ABOUT = "content/pages/about.md"
CONTACT = "content/pages/contact.md"


def run(*args: str):
    return CliRunner().invoke(cli, [str(arg) for arg in args])


def build(site: Path) -> dict[str, bytes]:
    result = run("build", "--root", site)
    assert result.exit_code == 0, result.output
    return tree(site / "public")


def tree(root: Path) -> dict[str, bytes]:
    """The site's files in a folder, without the record of what publish put there."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".ledgerpress-manifest.json"}


def stamps(root: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(root).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns) for p in root.rglob("*")
            if p.is_file() and p.name != ".ledgerpress-manifest.json"}


def summary(files: dict[str, bytes], unchanged: int = 0, deleted: int = 0) -> str:
    return f"uploaded {len(files)}, unchanged {unchanged}, deleted {deleted}, bytes {sum(map(len, files.values()))}"


def change_site(site: Path) -> None:
    """An edited story, a removed page and a new one."""
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("on a 9 to 2 vote.", "on a 9 to 2 vote, after a long night."))
    write_tree(site, {ABOUT: None, CONTACT: "---\ntitle: Contact\n---\n\nWrite to the desk.\n"})


@pytest.fixture
def site(site: Path) -> Path:
    return write_tree(site, {ABOUT: "---\ntitle: About\n---\n\nWho we are.\n"})


def test_folder_mirror_round_trip(site: Path, tmp_path: Path):
    dest = tmp_path / "www"
    first = build(site)
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == summary(first)
    assert tree(dest) == first
    (dest / "stray.html").write_text("not ours")  # put there by hand: kept, never deleted
    before = stamps(dest)

    change_site(site)
    second = build(site)
    changed = {rel: data for rel, data in second.items() if first.get(rel) != data}
    removed = set(first) - set(second)
    assert changed and removed and "about/index.html" in removed and "contact/index.html" in changed
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == summary(changed, len(second) - len(changed), len(removed))
    assert tree(dest) == {**second, "stray.html": b"not ours"}
    after = stamps(dest)
    for rel in second:
        if rel not in changed:
            assert after[rel] == before[rel], f"{rel} was copied although it did not change"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site", "www"]  # no staging left behind


def test_folder_dry_run_changes_nothing(site: Path, tmp_path: Path):
    dest = tmp_path / "www"
    first = build(site)
    assert run("publish", dest, "--root", site).exit_code == 0
    before = stamps(dest)
    change_site(site)
    build(site)
    result = run("publish", dest, "--root", site, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "upload contact/index.html (" in result.stdout and "delete about/index.html" in result.stdout
    assert result.stdout.rstrip().endswith("(dry run: nothing changed)")
    assert stamps(dest) == before and tree(dest) == first


def test_refuses_missing_empty_or_failing_builds(site: Path, tmp_path: Path):
    dest = tmp_path / "www"
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 1 and "publish refused" in result.output and "ledgerpress build" in result.output
    (site / "public").mkdir()
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 1 and "is empty" in result.output
    build(site)
    story = site / STORY_PATH
    story.write_text(story.read_text().replace("[cites: 1000000000000000002]\n\n-", "\n\n-"))
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 1 and "LP030" in result.output and "publish refused: 1 error" in result.output
    result = run("publish", site / "public" / "copy", "--root", site.parent / "missing")
    assert result.exit_code == 1
    assert not dest.exists()


def test_refuses_a_public_folder_that_is_not_the_build_of_the_site_as_it_is(site: Path, tmp_path: Path):
    """publish ships the site it checked: not a build from before an edit, one with drafts, one written
    elsewhere since, or one changed by hand (one made for another time: test_scheduling.py)."""
    dest = tmp_path / "www"

    def refused(reason: str) -> None:
        result = run("publish", dest, "--root", site)
        assert result.exit_code == 1 and f"publish refused: {reason}" in result.output, result.output
        assert "run `ledgerpress build`, then publish" in result.output
        assert not dest.exists()

    build(site)
    change_site(site)  # no error in it: the check passes, the build is older
    refused("content/pages/about.md and 2 more files changed since public/ was built")
    assert run("build", "--root", site, "--drafts").exit_code == 0
    refused("public/ holds drafts (it was built with --drafts)")
    assert run("build", "--root", site, "--out", tmp_path / "elsewhere").exit_code == 0
    refused(f"the last build wrote to {(tmp_path / 'elsewhere').resolve()}, not public/")
    build(site)
    (site / "public" / "index.html").write_text("edited by hand")
    refused("files of public/ were changed or removed after its build")
    build(site)
    assert run("publish", dest, "--root", site).exit_code == 0


def test_a_build_without_its_search_index_is_published_with_a_warning(site: Path, tmp_path: Path):
    """--no-search is a choice, so publish ships the build; it says that the search page is behind."""
    warning = "warning: public/ was built without its search index"
    assert run("build", "--root", site, "--no-search").exit_code == 0
    result = run("publish", tmp_path / "www", "--root", site)
    assert result.exit_code == 0 and warning in result.stderr and "uploaded" in result.stdout, result.output
    build(site)
    result = run("publish", tmp_path / "www", "--root", site)
    assert result.exit_code == 0 and warning not in result.output, result.output


def test_refuses_a_destination_inside_public_or_holding_nothing_of_the_site(site: Path, tmp_path: Path):
    build(site)
    result = run("publish", site / "public" / "mirror", "--root", site)
    assert result.exit_code == 1 and "overlaps" in result.output
    result = run("publish", site, "--root", site)
    assert result.exit_code == 1 and "overlaps" in result.output
    home = write_tree(tmp_path / "home", {"notes.txt": "mine", "photos/cat.jpg": "meow"})
    result = run("publish", home, "--root", site)
    assert result.exit_code == 1 and "ledgerpress did not publish" in result.output
    assert tree(home) == {"notes.txt": b"mine", "photos/cat.jpg": b"meow"}


@pytest.mark.parametrize("inside", ["content", "templates", ".ledgerpress-cache"])
def test_refuses_a_destination_inside_the_site_s_inputs_as_a_build_would(site: Path, inside: str):
    build(site)
    before = tree(site / "content")
    result = run("publish", site / inside / "mirror", "--root", site)
    assert result.exit_code == 1 and f"it is inside {inside}/" in result.output, result.output
    assert not (site / inside / "mirror").exists() and tree(site / "content") == before


@pytest.mark.parametrize("shape", ["a file in place of a folder", "a folder in place of a file"])
def test_a_file_or_folder_of_someone_else_where_the_site_needs_the_other_is_refused(site: Path, tmp_path: Path,
                                                                                      shape: str):
    dest = tmp_path / "www"
    build(site)
    assert run("publish", dest, "--root", site).exit_code == 0
    if shape == "a file in place of a folder":
        shutil.rmtree(dest / "about")
        (dest / "about").write_text("mine")
    else:
        (dest / "robots.txt").unlink()
        write_tree(dest, {"robots.txt/notes.txt": "mine"})
    before = tree(dest)
    result = run("publish", dest, "--root", site)
    assert result.exit_code == 1 and "was not published by ledgerpress and would be replaced" in result.output
    assert tree(dest) == before


def test_a_file_in_public_whose_name_is_not_utf8_is_refused(site: Path, tmp_path: Path):
    build(site)
    with open(os.fsencode(site / "public") + b"/caf\xe9.txt", "wb") as file:
        file.write(b"mine")
    result = run("publish", tmp_path / "www", "--root", site)
    assert result.exit_code == 1 and "caf\\xe9.txt: the file name is not UTF-8" in result.output, result.output
    assert not (tmp_path / "www").exists()


def test_upload_order_and_cache_headers():
    paths = ["index.html", "stories/2026-11-21/x/index.html", "stories/2026-11-21/x/index.md", "feed.xml",
             "sitemap.xml", "style.css", "pagefind/pagefind.js", "pagefind/fragment/en_3bdcab7.pf_fragment",
             "pagefind/pagefind.en_cce98ccfdb.pf_meta", "pagefind/pagefind-entry.json", "pagefind/wasm.en.pagefind"]
    plan = Plan(upload=[Item(path, 1, "0") for path in paths], delete=["old.html"])
    order = [item.path for group in plan.batches() for item in group]
    assert order[:2] == ["pagefind/fragment/en_3bdcab7.pf_fragment", "pagefind/pagefind.en_cce98ccfdb.pf_meta"]
    assert order.index("style.css") < order.index("stories/2026-11-21/x/index.md") < order.index(
        "stories/2026-11-21/x/index.html") < order.index("index.html") < order.index("feed.xml")
    assert order[-2:] == ["feed.xml", "sitemap.xml"]
    caches = {item.path: item.cache_control for item in plan.upload}
    assert caches["pagefind/fragment/en_3bdcab7.pf_fragment"] == IMMUTABLE
    assert caches["index.html"].startswith("public, max-age=60") and caches["feed.xml"] == caches["index.html"]
    assert caches["pagefind/wasm.en.pagefind"] != IMMUTABLE and caches["style.css"] != IMMUTABLE
    yours = Plan(upload=[Item(path, 1, "0") for path in ["minutes-20261124.pdf", "data/budget-1234567.csv",
                                                         "images/x-480.1a2b3c4d5e6f.webp"]], delete=[])
    assert [item.cache_control == IMMUTABLE for item in yours.upload] == [False, False, True]


# --- S3, against a real S3-compatible HTTP endpoint on loopback ---------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def endpoint(tmp_path_factory):
    """`moto_server -H 127.0.0.1 -p PORT`, up until the module's tests are done."""
    if not all(importlib.util.find_spec(name) for name in ("moto", "flask", "flask_cors")):
        pytest.skip("moto[s3], flask and flask-cors are not installed")
    port = _free_port()
    script = Path(sys.executable).with_name("moto_server")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "moto.server"]
    log = (tmp_path_factory.mktemp("moto") / "moto.log").open("w")
    process = subprocess.Popen([*command, "-H", "127.0.0.1", "-p", str(port)], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("moto_server did not start")
            time.sleep(0.05)
    yield url
    process.terminate()
    process.wait(10)
    log.close()


@pytest.fixture
def s3(endpoint: str, monkeypatch, tmp_path: Path):
    """A boto3 client and a fresh versioned bucket; AWS settings from the environment only, as a user's would be."""
    import boto3

    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    client = boto3.client("s3", endpoint_url=endpoint)
    client.bucket = f"news-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=client.bucket)
    client.put_bucket_versioning(Bucket=client.bucket, VersioningConfiguration={"Status": "Enabled"})
    return client


def versions(s3) -> dict[str, int]:
    """How many times each key was written or deleted (the bucket keeps every version and delete marker)."""
    counts: dict[str, int] = {}
    for page in s3.get_paginator("list_object_versions").paginate(Bucket=s3.bucket):
        for version in [*page.get("Versions", []), *page.get("DeleteMarkers", [])]:
            counts[version["Key"]] = counts.get(version["Key"], 0) + 1
    return counts


def live_keys(s3) -> set[str]:
    return {entry["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=s3.bucket)
            for entry in page.get("Contents", [])}


def test_s3_publish_then_nothing_then_only_what_changed(site: Path, s3, endpoint: str):
    dest = f"s3://{s3.bucket}/news"
    first = build(site)
    result = run("publish", dest, "--root", site, "--endpoint-url", endpoint)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == summary(first)
    assert live_keys(s3) == {f"news/{rel}" for rel in first} | {"news/.ledgerpress-manifest.json"}
    for rel, data in first.items():
        stored = s3.get_object(Bucket=s3.bucket, Key=f"news/{rel}")
        assert stored["Body"].read() == data and stored["ContentType"] == content_type(rel)
        assert stored["Metadata"]["sha256"]
        if rel.endswith((".html", ".json", ".md", ".xml")):
            assert stored["CacheControl"] == "public, max-age=60, must-revalidate", rel
        if rel.startswith("pagefind/fragment/"):
            assert stored["CacheControl"] == IMMUTABLE
    head = s3.head_object(Bucket=s3.bucket, Key="news/stories/2026-11-21/council-funds-the-quay-street-busway/index.md")
    assert head["ContentType"] == "text/markdown; charset=utf-8"
    assert s3.head_object(Bucket=s3.bucket, Key="news/feed.xml")["ContentType"] == "application/atom+xml; charset=utf-8"
    written = versions(s3)

    result = run("publish", dest, "--root", site, "--endpoint-url", endpoint)
    assert result.stdout.strip() == f"uploaded 0, unchanged {len(first)}, deleted 0, bytes 0"
    assert versions(s3) == written  # not one PUT

    change_site(site)
    second = build(site)
    changed = {rel: data for rel, data in second.items() if first.get(rel) != data}
    removed = set(first) - set(second)
    result = run("publish", dest, "--root", site, "--endpoint-url", endpoint)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == summary(changed, len(second) - len(changed), len(removed))
    rewritten = {key for key, count in versions(s3).items() if count != written.get(key, 0)}
    assert rewritten == {f"news/{rel}" for rel in [*changed, *removed]} | {"news/.ledgerpress-manifest.json"}
    assert live_keys(s3) == {f"news/{rel}" for rel in second} | {"news/.ledgerpress-manifest.json"}


def test_s3_without_its_manifest_reads_the_hashes_from_object_metadata(site: Path, s3, endpoint: str):
    dest = f"s3://{s3.bucket}"
    files = build(site)
    assert run("publish", dest, "--root", site, "--endpoint-url", endpoint).exit_code == 0
    s3.delete_object(Bucket=s3.bucket, Key=".ledgerpress-manifest.json")
    result = run("publish", dest, "--root", site, "--endpoint-url", endpoint)
    assert result.stdout.strip() == f"uploaded 0, unchanged {len(files)}, deleted 0, bytes 0"


def test_s3_dry_run_writes_nothing(site: Path, s3, endpoint: str):
    files = build(site)
    result = run("publish", f"s3://{s3.bucket}/news", "--root", site, "--endpoint-url", endpoint, "--dry-run")
    assert result.exit_code == 0, result.output
    assert "upload index.html (" in result.stdout and "text/html; charset=utf-8" in result.stdout
    assert result.stdout.rstrip().endswith(summary(files) + " (dry run: nothing changed)")
    assert live_keys(s3) == set()


def test_s3_errors_are_one_clear_line(site: Path, s3, endpoint: str):
    build(site)
    result = run("publish", "s3://no-such-bucket-here/x", "--root", site, "--endpoint-url", endpoint)
    assert result.exit_code == 1 and "NoSuchBucket" in result.output and "Traceback" not in result.output
