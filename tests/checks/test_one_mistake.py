"""One mistake, one finding: what follows from a mistake is not reported again (checks.resolve, checks.follow)."""

from __future__ import annotations

from pathlib import Path

from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run
from tests.conftest import MANIFEST_A, STORY, STORY_PATH, base_files, write_tree

A = "1000000000000000001"
B = "1000000000000000002"


def _lines(root: Path) -> list[str]:
    return [str(f) for f in check_site(Run(root, Options(drafts=True))).findings]


def test_a_mistyped_cite_is_one_finding_with_the_id_meant(tmp_path: Path):
    story = STORY.replace(f"rose 14% in a year, the transit agency says. [cites: {B}]",
                          "rose 14% in a year, the transit agency says. [cites: 100000000000000002]")
    story = story.replace(f"- Supporters pointed to the ridership figures. [cites: {B}]",
                          f"- Supporters pointed to the ridership figures. [cites: {A}]")
    story = story.replace(f"- Two members voted against. [cites: {A}, {B}]", f"- Two members voted against. [cites: {A}]")
    assert _lines(write_tree(tmp_path, {**base_files(), STORY_PATH: story})) == [
        f"{STORY_PATH}:31:78: LP020 cites manifest '100000000000000002', which is not in the ledger: expected an id the ledger lists (did you mean '{B}'?)"]


def test_a_mistyped_ledger_id_the_body_cites_right_is_one_finding_at_the_ledger(tmp_path: Path):
    story = STORY.replace(f'- manifest: "{B}"', '- manifest: "1000000000000000020"')
    assert _lines(write_tree(tmp_path, {**base_files(), STORY_PATH: story})) == [
        f"{STORY_PATH}:11:5: LP022 manifest '1000000000000000020' does not exist: expected a file "
        f"content/manifests/1000000000000000020.json (did you mean '{B}', which the story cites?)"]


def test_a_broken_manifest_file_is_reported_on_that_file_only(tmp_path: Path):
    files = {**base_files(), f"content/manifests/{A}.json": MANIFEST_A.replace('"claims": [', '"claims": [,')}
    found = _lines(write_tree(tmp_path, files))
    assert len(found) == 1 and found[0].startswith(f"content/manifests/{A}.json:") and " LP100 " in found[0]


def test_a_manifest_id_written_as_a_number_is_reported_on_that_file_only(tmp_path: Path):
    files = {**base_files(), f"content/manifests/{A}.json": MANIFEST_A.replace(f'"id": "{A}"', f'"id": {A}')}
    found = _lines(write_tree(tmp_path, files))
    assert len(found) == 1 and found[0].startswith(f"content/manifests/{A}.json:2:3: LP004 ")


def test_a_misnamed_manifest_file_is_reported_on_that_file_only(tmp_path: Path):
    files = {**base_files(), f"content/manifests/{A}.json": MANIFEST_A.replace(f'"id": "{A}"', '"id": "1000000000000000009"')}
    found = _lines(write_tree(tmp_path, files))
    assert [line.split(": ")[1].split()[0] for line in found] == ["LP101"]


def test_a_claim_listed_under_another_manifest_names_the_one_it_belongs_to(tmp_path: Path):
    story = STORY.replace('claims: ["2000000000000000021"]', 'claims: ["2000000000000000021", "2000000000000000012"]')
    assert _lines(write_tree(tmp_path, {**base_files(), STORY_PATH: story})) == [
        f"{STORY_PATH}:12:37: LP024 claim '2000000000000000012' does not belong to manifest '{B}': it is a claim of "
        f"'{A}': expected it under that manifest's ledger entry"]


def test_a_claim_of_a_manifest_outside_the_ledger_is_named_from_the_whole_site(tmp_path: Path):
    other = MANIFEST_A.replace(A, "1000000000000000003").replace("2000000000000000011", "2000000000000000031") \
        .replace("2000000000000000012", "2000000000000000032")
    story = STORY.replace('claims: ["2000000000000000021"]', 'claims: ["2000000000000000021", "2000000000000000031"]')
    files = {**base_files(), "content/manifests/1000000000000000003.json": other, STORY_PATH: story}
    [found] = _lines(write_tree(tmp_path, files))
    assert found.startswith(f"{STORY_PATH}:12:37: LP024 claim '2000000000000000031' does not belong to manifest '{B}'")
    assert "it is a claim of manifest '1000000000000000003', which the ledger does not list" in found


def test_a_related_story_that_failed_to_load_is_not_also_missing(tmp_path: Path):
    broken = STORY.replace('title: "Council funds the Quay Street busway"\n', "").replace("2026-11-21T10:30", "2026-11-20T10:30")
    story = STORY.replace("key_facts:", 'related: ["2026-11-20/old-busway-story"]\nkey_facts:')
    files = {**base_files(), STORY_PATH: story, "content/stories/2026-11-20/old-busway-story.md": broken}
    found = _lines(write_tree(tmp_path, files))
    assert [line.split(": ")[1].split()[0] for line in found] == ["LP002"]
    assert found[0].startswith("content/stories/2026-11-20/old-busway-story.md:")


def test_a_claim_id_listed_twice_in_its_manifest_is_its_one_finding(tmp_path: Path):
    manifest = MANIFEST_A.replace('{"id": "2000000000000000012", "text": "The vote was 9 to 2."}',
                                  '{"id": "2000000000000000012", "text": "The vote was 9 to 2."},\n'
                                  '    {"id": "2000000000000000011", "text": "The budget is 12,500,000 dollars."}')
    found = _lines(write_tree(tmp_path, {**base_files(), f"content/manifests/{A}.json": manifest}))
    assert [line.split(": ")[1].split()[0] for line in found] == ["LP102"]
