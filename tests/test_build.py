"""The demo site end to end: three variants per story, schema-valid JSON, golden Markdown, determinism."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import jsonschema
import pytest
import yaml

from generator.content.limits import MAX_INPUT_BYTES
from tests.conftest import build_in_memory

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
GOLDEN_STORY = "2026-11-21/metro-water-asks-to-raise-bills-6-8-citing-the-cost-of-lead-pipes"
MD_KEYS = ["title", "description", "canonical", "last-updated", "url", "published", "edition", "newsroom", "beat",
           "trust", "source_count", "cited_manifest_ids"]
MD_HEADINGS = ["Key facts", "What is still unresolved", "Decision card", "Provenance ledger",
               "Run these Manifests yourself", "Related stories", "Links"]


@pytest.fixture(scope="module")
def demo():
    """The demo built at a time after all its stories (the scheduled one too: every story is held to the tests)."""
    result = build_in_memory(REPO, now=dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc))
    assert result.ok, [str(f) for f in result.findings]
    return result


def _stories(files: dict[str, bytes], suffix: str) -> dict[str, bytes]:
    return {path: data for path, data in files.items() if path.startswith("stories/") and path.endswith(suffix)}


def test_every_story_has_three_variants(demo):
    story_files = sorted((REPO / "content" / "stories").glob("*/*.md"))
    assert len(story_files) >= 12
    for suffix in ("index.html", "index.json", "index.md"):
        assert len(_stories(demo.files, suffix)) == len(story_files)


def test_every_index_json_validates_against_the_written_schema(demo):
    schema = json.loads(demo.files["schema/story.schema.json"])
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path, data in _stories(demo.files, "index.json").items():
        document = json.loads(data)
        errors = [e.message for e in validator.iter_errors(document)]
        assert errors == [], path
        assert all(isinstance(i, str) for i in document["cited_manifest_ids"])
        assert all(isinstance(row["manifest_id"], str) for row in document["ledger"])


def test_the_written_schema_describes_every_field_of_a_story(demo):
    schema = json.loads(demo.files["schema/story.schema.json"])
    assert [name for name, field in schema["properties"].items() if not field.get("description")] == []


def test_golden_markdown_variant(demo):
    built = demo.files[f"stories/{GOLDEN_STORY}/index.md"].decode("utf-8")
    assert built == (GOLDEN / f"{GOLDEN_STORY.split('/')[1]}.md").read_text(encoding="utf-8")


def test_markdown_front_matter_round_trips_in_the_reference_order(demo):
    for path, data in _stories(demo.files, "index.md").items():
        text = data.decode("utf-8")
        front = yaml.safe_load(text.split("---\n")[1])
        view = json.loads(demo.files[path.replace("index.md", "index.json")])
        assert list(front) == MD_KEYS
        assert front["title"] == view["title"] and front["description"] == view["description"]
        assert front["cited_manifest_ids"] == view["cited_manifest_ids"]
        assert front["url"] == front["canonical"] == view["url"]
        headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
        expected = [h for h in MD_HEADINGS if h in headings]
        assert [h for h in headings if h in MD_HEADINGS] == expected
        assert headings[-1] == "Links"
        assert f"# {view['title']}" in text or "\\" in text.split("\n# ")[1].split("\n")[0]
        assert text.rstrip().splitlines()[-1].startswith("Reuse (terms v1): ")


def test_html_variant_links_cites_to_ledger_rows(demo):
    for path, data in _stories(demo.files, "index.html").items():
        html = data.decode("utf-8")
        view = json.loads(demo.files[path.replace("index.html", "index.json")])
        assert f'<link rel="canonical" href="{view["canonical"]}">' in html
        assert 'rel="alternate" type="application/json"' in html and 'type="text/markdown"' in html
        for manifest_id in view["cited_manifest_ids"]:
            assert f'id="manifest-{manifest_id}"' in html and f'href="#manifest-{manifest_id}"' in html
        ld = json.loads(html.split('<script type="application/ld+json">')[1].split("</script>")[0])
        assert ld["@type"] == "NewsArticle" and len(ld["citation"]) == view["source_count"]


def test_two_builds_are_byte_identical(tmp_path):
    first, second = build_in_memory(REPO), build_in_memory(REPO)
    assert first.files == second.files


def test_text_is_escaped_in_html(site: Path):
    path = site / "content/stories/2026-11-21/council-funds-the-quay-street-busway.md"
    text = path.read_text().replace('title: "Council funds the Quay Street busway"',
                                    'title: "Council <script>alert(1)</script> busway"\nslug: council-funds-the-quay-street-busway')
    path.write_text(text)
    result = build_in_memory(site)
    assert result.ok, result.findings
    html = result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.html"].decode()
    assert "<script>alert(1)" not in html and "&lt;script&gt;alert(1)" in html
    md = result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.md"].decode()
    assert "# Council \\<script\\>alert(1)\\</script\\> busway" in md


def test_site_templates_fall_back_to_ours(site: Path):
    (site / "templates").mkdir()
    (site / "templates" / "story.md").write_text("custom {{ story.title }}\n")
    result = build_in_memory(site)
    assert result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.md"] == \
        b"custom Council funds the Quay Street busway\n"
    assert b"<!DOCTYPE html>" in result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.html"]


def test_broken_template_is_a_finding_not_a_traceback(site: Path):
    (site / "templates").mkdir()
    (site / "templates" / "story.md").write_text("{{ story.no_such_field }}\n")
    result = build_in_memory(site)
    assert not result.ok and result.files == {}
    assert [(f.path, f.code) for f in result.findings] == [("templates/story.md", "LP900")]


@pytest.mark.parametrize("shape", ["a link in a loop", "a FIFO", "a link to a device", "too large"])
def test_a_template_that_cannot_be_read_is_a_finding_not_a_hang_or_a_traceback(site: Path, shape: str):
    """Every file of templates/ is read when a build starts: only as a regular file, without blocking, and no
    more than an input may hold; one that cannot be read fails the build only if a page uses it."""
    templates = site / "templates"
    templates.mkdir()
    page = templates / "story.md"
    if shape == "a link in a loop":
        page.symlink_to("story.md")
    elif shape == "a FIFO":
        os.mkfifo(page)
    elif shape == "a link to a device":
        page.symlink_to("/dev/zero")
    else:
        with open(page, "wb") as file:
            file.truncate(MAX_INPUT_BYTES + 1)
    os.mkfifo(templates / "unused.html")
    result = build_in_memory(site, search=False)
    assert [(f.path, f.code) for f in result.findings] == [("templates/story.md", "LP900")]


def test_page_colliding_with_front_page_is_lp011(site: Path):
    (site / "content/pages/index.md").write_text("---\ntitle: Home\n---\nHi.\n")
    result = build_in_memory(site)
    assert [f.code for f in result.findings] == ["LP011"]


def test_base_url_override(site: Path):
    result = build_in_memory(site, base_url="http://127.0.0.1:8000")
    md = result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.md"].decode()
    assert "url: http://127.0.0.1:8000/stories/2026-11-21/council-funds-the-quay-street-busway/" in md


def test_related_is_computed_when_absent_and_kept_when_given(site: Path):
    later = (site / "content/stories/2026-11-21/council-funds-the-quay-street-busway.md").read_text()
    later = (later.replace('title: "Council funds the Quay Street busway"', 'title: "Quay Street busway works begin"')
             .replace("2026-11-21T10:30:00Z", "2026-11-22T10:30:00Z")
             .replace("The council approved a busway budget", "Crews began digging for the busway funded with a budget")
             .replace("Ridership on the street's buses rose", "Bus ridership on Quay Street rose"))
    (site / "content/stories/2026-11-22").mkdir()
    (site / "content/stories/2026-11-22/quay-street-busway-works-begin.md").write_text(later)
    result = build_in_memory(site)
    assert result.ok, [str(f) for f in result.findings]
    newer = json.loads(result.files["stories/2026-11-22/quay-street-busway-works-begin/index.json"])
    older = json.loads(result.files["stories/2026-11-21/council-funds-the-quay-street-busway/index.json"])
    assert [r["key"] for r in newer["related"]] == ["2026-11-21/council-funds-the-quay-street-busway"]
    assert older["related"] == []  # only earlier stories, as Hugo's related content
    given = later.replace("unresolved:", 'related: []\nunresolved:')
    (site / "content/stories/2026-11-22/quay-street-busway-works-begin.md").write_text(given)
    again = json.loads(build_in_memory(site).files["stories/2026-11-22/quay-street-busway-works-begin/index.json"])
    assert again["related"] == []


def test_a_ledger_row_follows_its_manifest_and_the_site_url():
    """Each manifest's part of a ledger row is made once and kept (many stories cite it), known by the
    manifest file's digest and the site's URL: an edited manifest, or another base URL, gets a row of its own."""
    import dataclasses

    from generator.content.load import load_content
    from generator.render.story_view import ledger_rows

    content = load_content(REPO)
    story = next(s for s in content.stories if s.meta.ledger)
    manifests = content.manifests
    cited = story.meta.ledger[0].manifest
    before = ledger_rows(story, manifests, content.config)[0]
    assert before.manifest_id == cited and before.manifest_url == content.config.url(f"/manifests/{cited}/")
    found = manifests[cited]
    edited = {**manifests, cited: dataclasses.replace(
        found, manifest=found.manifest.model_copy(update={"title": "Another title"}), digest=found.digest + "0")}
    assert ledger_rows(story, edited, content.config)[0].title == "Another title"
    assert ledger_rows(story, manifests, content.config)[0] == before
    elsewhere = content.config.model_copy(update={"base_url": "https://elsewhere.example/news/"})
    assert ledger_rows(story, manifests, elsewhere)[0].manifest_url == f"https://elsewhere.example/news/manifests/{cited}/"


def test_a_story_changed_after_it_was_checked_is_not_made_from_its_new_text(site: Path, monkeypatch):
    """The memo holds a story unchanged but its pages must be made again (a template changed): its file is read
    again, and if its bytes are no longer those checked, the build stops (LP001, build again) rather than
    publish text no rule has seen."""
    import generator.engine.stories as stories
    from generator.engine import Memory, Options, build
    from tests.conftest import STORY_PATH, write_tree

    memory = Memory()
    assert build(site, memory, Options(jobs=1, search=False)).ok
    before = dict(memory.files)
    template = (Path(__file__).resolve().parent.parent / "templates" / "story.md").read_text()
    write_tree(site, {"templates/story.md": template + "\n"})
    again = stories.sections_again

    def edited_meanwhile(reading, shown, digest):
        story = site / STORY_PATH
        story.write_text(story.read_text().replace("on a 9 to 2 vote.", "on a vote nobody checked."))
        return again(reading, shown, digest)

    monkeypatch.setattr(stories, "sections_again", edited_meanwhile)
    report = build(site, memory, Options(jobs=1, search=False))
    assert [(f.path, f.code) for f in report.findings if f.severity == "error"] == [(STORY_PATH, "LP001")]
    assert memory.files == before
