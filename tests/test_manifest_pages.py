"""Manifest pages: every record, every claim, and complete backlinks to the stories that cite it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from markupsafe import escape

from tests.conftest import build_in_memory

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo():
    result = build_in_memory(REPO)
    assert result.ok, [str(f) for f in result.findings]
    return result.files


def _json(files, path):
    return json.loads(files[path])


def test_every_manifest_has_html_and_json(demo):
    ids = sorted(p.stem for p in (REPO / "content/manifests").glob("*.json"))
    for manifest_id in ids:
        assert f"manifests/{manifest_id}/index.html" in demo
        page = _json(demo, f"manifests/{manifest_id}/index.json")
        assert page["id"] == manifest_id and isinstance(page["id"], str)


def test_backlinks_are_complete_and_exact(demo):
    expected: dict[str, dict[str, list[str]]] = {}
    for path, data in demo.items():
        if path.startswith("stories/") and path.endswith("index.json"):
            story = json.loads(data)
            for row in story["ledger"]:
                expected.setdefault(row["manifest_id"], {})[story["path"]] = [c["id"] for c in row["claims"]]
    for path, data in demo.items():
        if path.startswith("manifests/") and path.endswith("index.json"):
            page = json.loads(data)
            assert {link["path"]: link["claims_used"] for link in page["stories"]} == expected.get(page["id"], {})
            for claim in page["claims"]:
                users = {link["key"] for link in page["stories"] if claim["id"] in link["claims_used"]}
                assert set(claim["used_by"]) == users
            assert page["unused_claims"] == sum(not claim["used_by"] for claim in page["claims"])


def test_unused_claims_are_visible(demo):
    pages = [json.loads(d) for p, d in demo.items() if p.startswith("manifests/") and p.endswith(".json")]
    with_unused = [page for page in pages if page["unused_claims"]]
    assert with_unused, "the demo should show an unused claim"
    html = demo[f"manifests/{with_unused[0]['id']}/index.html"].decode()
    assert html.count('class="unused"') == with_unused[0]["unused_claims"] and "Unused" in html


def test_story_shows_evidence_under_each_cited_passage(demo):
    for path, data in demo.items():
        if path.startswith("stories/") and path.endswith("index.json"):
            story = json.loads(data)
            html = demo[path.replace("index.json", "index.html")].decode()
            resting = sum(any(t["claims"] for t in p["sentences"]) for s in story["sections"] for p in s["paragraphs"])
            facts = sum(any(t["claims"] for t in f["sentences"]) for f in story["key_facts"])
            assert html.count('<details class="evidence">') == resting + facts
            for row in story["ledger"]:
                assert f'href="{row["manifest_path"]}"' in html
                for claim in row["claims"]:
                    assert str(escape(claim["text"])) in html


def test_manifest_cited_by_nothing_says_so(site: Path):
    extra = (site / "content/manifests/1000000000000000002.json").read_text().replace(
        "1000000000000000002", "1000000000000000003").replace("2000000000000000021", "2000000000000000031")
    (site / "content/manifests/1000000000000000003.json").write_text(extra)
    result = build_in_memory(site)
    page = json.loads(result.files["manifests/1000000000000000003/index.json"])
    assert page["stories"] == [] and page["unused_claims"] == 1
    assert "No published story cites this record yet." in result.files["manifests/1000000000000000003/index.html"].decode()


def test_a_manifests_html_and_json_are_made_from_one_view(monkeypatch):
    """index.html and index.json share the view made for the first (made one after the other, in one process)."""
    import generator.site.manifest_pages as manifest_pages

    made = []
    view = manifest_pages.manifest_view
    monkeypatch.setattr(manifest_pages, "manifest_view", lambda found, *rest: made.append(found.manifest.id)
                        or view(found, *rest))
    result = build_in_memory(REPO, jobs=1)
    assert result.ok
    ids = sorted(p.stem for p in (REPO / "content/manifests").glob("*.json"))
    assert sorted(made) == ids
    for manifest_id in ids:
        page = _json(result.files, f"manifests/{manifest_id}/index.json")
        assert escape(page["title"]) in result.files[f"manifests/{manifest_id}/index.html"].decode()
