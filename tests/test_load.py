"""Loading maps every problem back to the file, line and column where it is."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from generator.content.load import load_content, load_manifest, load_story
from generator.content.manifest_files import KnownManifest, ManifestChanged
from generator.content.source import parse_yaml, read_bounded, split_front_matter
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree


def _story(tmp_path: Path, text: str | bytes):
    path = tmp_path / "2026-11-21" / "council-funds-the-quay-street-busway.md"
    write_tree(tmp_path, {"2026-11-21/council-funds-the-quay-street-busway.md": text})
    return load_story(path, "s.md")


def test_valid_story_loads_with_body_offset(tmp_path):
    story, findings = _story(tmp_path, STORY)
    assert findings == []
    assert story.meta.ledger[0].manifest == "1000000000000000001"
    assert story.body_line == 23
    assert story.key == "2026-11-21/council-funds-the-quay-street-busway"
    assert story.source.at(("ledger", 1, "claims", 0)) == (12, 14)


def test_split_front_matter_counts_lines():
    front, front_line, body, body_line = split_front_matter("---\na: 1\n---\nbody\n")
    assert (front.strip(), front_line, body.strip(), body_line) == ("a: 1", 0, "body", 2)
    assert split_front_matter("no front matter") is None


def test_yaml_marks_and_quoting():
    data, source, findings = parse_yaml('a: "1"\nb:\n  - 2\n', "x", 10)
    assert data == {"a": "1", "b": [2]} and findings == []
    assert source.marks[("a",)] == (11, 1)
    assert source.marks[("b", 0)] == (13, 5)
    assert source.quoted[("a",)] is True and source.quoted[("b", 0)] is False


def test_duplicate_key_is_lp001():
    _, _, findings = parse_yaml("a: 1\na: 2\n", "x", 1)
    assert [str(f) for f in findings] == ["x:3:1: LP001 key 'a' is given twice"]


def test_unquoted_string_id_is_lp004(tmp_path):
    story, findings = _story(tmp_path, STORY.replace('- manifest: "1000000000000000002"', "- manifest: abc"))
    assert [str(f) for f in findings] == ["s.md:11:5: LP004 ledger.1.manifest: id must be a quoted string: expected "
                                          "\"abc\" (YAML reads unquoted digits as a number, 0123 as 83)"]


def test_leading_zero_id_is_not_read_as_a_number(tmp_path):
    story, findings = _story(tmp_path, STORY.replace('"1000000000000000002"', "0123", 1))
    assert findings[0].code == "LP004" and "83" in findings[0].message


def test_missing_front_matter_and_empty_file(tmp_path):
    assert _story(tmp_path, "# just markdown\n")[1][0].code == "LP001"
    assert _story(tmp_path, "")[1][0].code == "LP001"
    assert _story(tmp_path, "---\n- a list\n---\n")[1][0].code == "LP002"


def test_byte_order_mark_is_accepted(tmp_path):
    story, findings = _story(tmp_path, "\ufeff" + STORY)
    assert findings == [] and story is not None


def test_manifest_fast_path_and_positions(tmp_path):
    path = tmp_path / "1000000000000000001.json"
    path.write_text(MANIFEST_A)
    found, findings = load_manifest(path, "m.json")
    assert findings == [] and found.manifest.claims[1].id == "2000000000000000012"
    path.write_text(MANIFEST_A.replace('"2000000000000000012"', "2000000000000000012"))
    found, findings = load_manifest(path, "m.json")
    assert found.manifest.claims[1].id == "2000000000000000012"  # read on as written, for the other rules
    assert [str(f) for f in findings] == [
        "m.json:9:6: LP004 claims.1.id: id 2000000000000000012 is not a quoted string: expected 1-64 letters, digits, "
        "'_' or '-' in quotes (YAML reads unquoted digits as a number, 0123 as 83), e.g. \"1792456955874654825\""]


def test_text_that_is_not_utf8_is_a_finding_of_the_callers_code_at_its_first_bad_byte(tmp_path):
    from generator.content.source import read_text

    text, findings = read_text(tmp_path / "m.json", "m.json", b'{\n  "title": "Caf\xe9"}', code="LP100")
    assert text is None
    assert [str(f) for f in findings] == [
        "m.json:2:16: LP100 file is not UTF-8 (invalid continuation byte at byte 17)"]
    found, findings = load_manifest(tmp_path / "m.json", "m.json", b'{\n  "title": "Caf\xe9"}')
    assert found is None and [f.code for f in findings] == ["LP100"]


def test_a_manifest_known_by_its_digest_is_not_read_as_another_version_of_it(tmp_path):
    """A build that knows a manifest from the memo reads its claims only when a stage needs them: a file edited
    in between (its id the same, a claim not) is refused, not rendered as the version the stories were checked
    against."""
    path = tmp_path / "1000000000000000001.json"
    path.write_text(MANIFEST_A)
    found, _ = load_manifest(path, "m.json")
    known = KnownManifest("m.json", str(path), found.id, found.digest)
    path.write_text(MANIFEST_A.replace("9 to 2", "8 to 3"))
    with pytest.raises(ManifestChanged):
        known.loaded
    path.write_text(MANIFEST_A)
    assert KnownManifest("m.json", str(path), found.id, found.digest).manifest == found.manifest


def test_content_collects_pages_and_drafts(tmp_path):
    files = base_files()
    files[STORY_PATH] = STORY.replace("trust: confirmed\n", "trust: confirmed\ndraft: true\n")
    files["content/pages/about.md"] = "---\ntitle: About\n---\nHello.\n"
    write_tree(tmp_path, files)
    assert [p.url_path for p in load_content(tmp_path).pages] == ["/about/", "/terms/reuse/"]
    assert len(load_content(tmp_path, drafts=True).stories) == 1
    assert load_content(tmp_path, drafts=False).stories == []


def test_missing_site_toml_is_a_finding(tmp_path):
    content = load_content(tmp_path)
    assert content.config is None
    assert [f.code for f in content.findings] == ["LP002"]


@pytest.mark.parametrize("text", [
    "a: 1\nb: [1, 2.5, true, null, 2024-01-01, 2024-01-01T10:00:00Z]\nc: {x: 'y', 3: z}\n",
    "<<: {a: 1}\nb: 2\n", "a: &x [1]\n", "? [1, 2]\n: v\n", "- !!set {a, b}\n", "a: !!binary aGVsbG8=\n",
    "x: 1\nx: 2\n", "a: 0x1F\nb: 1_000\nc: .inf\nd: ~\n", "1: a\nnull: b\ntrue: c\n", "title: 'Quoted'\nn: '5'\n",
])
def test_front_matter_values_are_those_of_the_safe_loader(text: str):
    """Plain mappings, lists and scalars are built straight from the parsed nodes; the rest (merge keys,
    tags, keys that are not scalars) by PyYAML's safe constructor: either way, what yaml.safe_load gives."""
    try:
        expected = yaml.safe_load(text)
    except yaml.YAMLError:
        data, _, findings = parse_yaml(text, "x.md", 0)
        assert data is None and [f.code for f in findings] == ["LP001"]
        return
    data, _, _ = parse_yaml(text, "x.md", 0)
    assert data == expected and type(data) is type(expected)


def test_models_cross_processes_as_they_were():
    """Front matter and manifests are pickled as JSON between the build's processes: what arrives equals what
    left and serializes the same (times with offsets, a date for `updated`, optional parts left out)."""
    import datetime as dt
    import pickle

    from generator.content.models import FrontMatter, Manifest

    shared = {"title": "T", "description": "D", "newsroom": "city", "beat": "transit", "trust": "reported",
              "ledger": [{"manifest": "1", "claims": ["2", "3"]}]}
    matters = [
        FrontMatter.model_validate({**shared, "published": dt.datetime(2026, 11, 21, 10, 30, tzinfo=dt.timezone.utc)}),
        FrontMatter.model_validate({**shared, "published": "2026-11-21T10:30:00.25+05:30", "updated": dt.date(2026, 11, 22),
                                    "key_facts": [{"text": "K", "cites": ["1"]}], "decision_card": {"useful_for": ["x"]},
                                    "related": ["2026-11-20/a"], "draft": True, "slug": "t-1", "edition": "2026-11-21T10"}),
    ]
    manifest = Manifest.model_validate({"id": "1", "title": "M", "source": {"name": "S", "url": "https://example.org/"},
                                        "published": "2026-11-20T08:00:00-04:00", "claims": [{"id": "2", "text": "C"}]})
    for model in (*matters, manifest):
        back = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
        assert back == model and type(back) is type(model) and back.model_dump_json() == model.model_dump_json()
        assert back.published.isoformat() == model.published.isoformat()


def test_a_file_read_without_following_links_is_never_read_through_one(tmp_path: Path):
    """The desk reads a story it checked the path of with follow=False: a link swapped in since is refused."""
    (tmp_path / "outside.md").write_text("not the site's")
    (tmp_path / "story.md").symlink_to(tmp_path / "outside.md")
    assert read_bounded(tmp_path / "story.md", "story.md", 100) == (b"not the site's", [])
    data, found = read_bounded(tmp_path / "story.md", "story.md", 100, follow=False)
    assert data is None and found[0].message == "is not a regular file (a symbolic link): it is not read"
