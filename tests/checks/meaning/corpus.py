"""The meaning corpus (FORMAT.md): packs of manifests and labelled stories turned into site trees, checked with
the real `check_site`, and scored per error class. Run as a script to look at one pack:

    python -m tests.checks.meaning.corpus tests/checks/meaning/corpus/harbour-budget.yaml [--all]
"""

from __future__ import annotations

import argparse
import copy
import datetime as dt
import json
import re
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from generator.content.findings import Finding

HERE = Path(__file__).parent
PARTS = {"tuned": HERE / "corpus", "holdout": HERE / "holdout"}
ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TEXT_FIELDS = ("title", "description", "body")
CLASSES = ["negation", "direction", "outcome", "wrong_number", "small_count", "wrong_unit", "bad_conversion",
           "wrong_scale", "swapped_figures", "wrong_date", "wrong_period", "wrong_speaker", "wrong_actor",
           "altered_quote", "invented_quote", "unsupported_superlative", "unsupported_absolute",
           "overstated_certainty", "invented_sentence", "invented_paragraph", "wrong_source", "unlisted_claim",
           "retracted_statement", "bad_rounding", "wrong_fraction"]

SITE_TOML = """\
title = "Corpus Desk"
base_url = "https://corpus.example.org"
description = "Labelled stories for the support checks."
language = "en"
manifest_max_age_days = 30
duplicate_window_days = 7
duplicate_threshold = 0.6

[newsrooms]
news = "News"

[beats]
general = "General"

[trust]
reported = "Reported"
confirmed = "Confirmed"

[checks]
LP040 = "off"   # the stories of a pack are variants of each other on purpose
"""


class CorpusError(ValueError):
    """A pack that does not follow FORMAT.md."""


@dataclass
class Case:
    """One labelled story of a pack, as written to its site: where its mistake stands (file lines), if any."""

    pack: str
    part: str
    id: str
    label: str
    path: str                          # as findings name it: content/stories/<date>/<id>.md
    text: str
    place: tuple[int, int] | None      # first and last line of the unit holding the mistake
    note: str = ""
    findings: list[Finding] = field(default_factory=list)

    @property
    def faithful(self) -> bool:
        return self.label == "faithful"

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def caught(self) -> bool:
        """A mistake counts as caught when an error is reported on a line of the unit holding it."""
        return self.place is not None and any(self.place[0] <= f.line <= self.place[1] for f in self.errors)


def packs(part: str) -> list[Path]:
    return sorted(PARTS[part].glob("*.yaml"))


def load(path: Path, part: str) -> tuple[dict[str, str], list[Case]]:
    """The files of a pack's site (relative path -> text) and its cases."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("pack") != path.stem:
        raise CorpusError(f"{path}: expected `pack: {path.stem}` at the top")
    files = {"content/site.toml": SITE_TOML}
    manifests = data.get("manifests") or {}
    for manifest_id, manifest in manifests.items():
        files[f"content/manifests/{manifest_id}.json"] = _manifest(path, manifest_id, manifest)
    written = {story["id"]: story for story in data.get("stories") or []}
    cases = []
    for story in data.get("stories") or []:
        whole, place_text = _resolve(path, story, written)
        text, place = _story_file(path, whole, place_text, manifests)
        published = _moment(whole["published"])
        story_path = f"content/stories/{published.astimezone(dt.timezone.utc).date().isoformat()}/{story['id']}.md"
        if story_path in files:
            raise CorpusError(f"{path}: story id {story['id']!r} twice")
        files[story_path] = text
        label = story.get("label")
        if label != "faithful" and label not in CLASSES:
            raise CorpusError(f"{path}: story {story['id']!r}: unknown label {label!r}")
        if label != "faithful" and place is None:
            raise CorpusError(f"{path}: story {story['id']!r}: a mistake needs `edits` or `at`")
        cases.append(Case(path.stem, part, story["id"], label, story_path, text, place, story.get("note", "")))
    return files, cases


def _manifest(path: Path, manifest_id: str, manifest: dict) -> str:
    if not ID.match(str(manifest_id)):
        raise CorpusError(f"{path}: manifest id {manifest_id!r} is not an id")
    claims = []
    for claim_id, text in (manifest.get("claims") or {}).items():
        if not ID.match(str(claim_id)):
            raise CorpusError(f"{path}: claim id {claim_id!r} of {manifest_id} is not an id")
        claim = {"id": _claim_id(manifest_id, claim_id), "text": text}
        if claim_id in (manifest.get("retracted_claims") or []):
            claim["retracted"] = True
        claims.append(claim)
    record = {"id": str(manifest_id), "title": manifest["title"], "source": manifest["source"],
              "published": _iso(manifest["published"]), "claims": claims}
    if manifest.get("brief"):
        record["brief"] = manifest["brief"]
    if manifest.get("retracted"):
        record["retracted"] = {"date": _iso(manifest["retracted"]["date"]), "note": manifest["retracted"]["note"]}
    return json.dumps(record, indent=2, ensure_ascii=False) + "\n"


def _claim_id(manifest_id: str, claim_id: str) -> str:
    return f"{manifest_id}--{claim_id}"[-64:].lstrip("-_") or str(claim_id)


def _resolve(path: Path, story: dict, written: dict[str, dict]) -> tuple[dict, tuple[str, int, str] | None]:
    """The story's fields, made from its base by its edits; where its mistake stands as (field, offset, text)."""
    if "base" not in story:
        at = story.get("at")
        return story, (_find_once(path, story, at) if at else None)
    base = written.get(story["base"])
    if base is None or "base" in base:
        raise CorpusError(f"{path}: story {story['id']!r}: base {story.get('base')!r} is not a story written whole")
    whole = copy.deepcopy(base)
    for key, value in story.items():
        if key not in ("edits", "base", "note", "features"):
            whole[key] = value
    place = None
    for edit in story.get("edits") or []:
        where, offset, _ = _find_once(path, whole, edit["find"])
        _replace(whole, where, offset, edit["find"], edit["replace"])
        if place is None:
            place = (where, offset, edit["replace"] or edit["find"])
    if "at" in story:
        place = _find_once(path, whole, story["at"])
    return whole, place


def _fields(story: dict) -> list[tuple[tuple, str]]:
    """Every text a reader sees, with where it sits in the story: (field, index, key) -> text."""
    found = [((name,), story.get(name) or "") for name in TEXT_FIELDS]
    for name in ("key_facts", "corrections"):
        for index, item in enumerate(story.get(name) or []):
            found.append(((name, index), item.get("text", "")))
    return found


def _find_once(path: Path, story: dict, needle: str) -> tuple[tuple, int, str]:
    hits = [(where, text.find(needle)) for where, text in _fields(story) if needle in text]
    count = sum(text.count(needle) for _, text in _fields(story))
    if count != 1:
        raise CorpusError(f"{path}: story {story['id']!r}: {needle!r} occurs {count} times (expected once)")
    where, offset = hits[0]
    return where, offset, needle


def _replace(story: dict, where: tuple, offset: int, find: str, replace: str) -> None:
    if len(where) == 1:
        text = story[where[0]]
        story[where[0]] = text[:offset] + replace + text[offset + len(find):]
    else:
        item = story[where[0]][where[1]]
        item["text"] = item["text"][:offset] + replace + item["text"][offset + len(find):]


def _story_file(path: Path, story: dict, place: tuple[tuple, int, str] | None,
                manifests: dict) -> tuple[str, tuple[int, int] | None]:
    """The story file's text, and the lines of the unit that holds `place`."""
    for key in ("id", "title", "description", "published", "ledger", "body"):
        if key not in story:
            raise CorpusError(f"{path}: story {story.get('id')!r} has no {key}")
    lines = ["---", f"title: {json.dumps(story['title'], ensure_ascii=False)}", f"slug: {story['id']}",
             f"description: {json.dumps(story['description'], ensure_ascii=False)}",
             f"published: {_iso(story['published'])}", "newsroom: news", "beat: general",
             f"trust: {story.get('trust', 'confirmed')}", "ledger:"]
    for manifest_id, claim_ids in story["ledger"].items():
        if manifest_id not in manifests:
            raise CorpusError(f"{path}: story {story['id']!r} lists manifest {manifest_id!r}, which the pack lacks")
        unknown = [c for c in claim_ids if c not in (manifests[manifest_id].get("claims") or {})]
        if unknown:
            raise CorpusError(f"{path}: story {story['id']!r}: {unknown} are no claims of {manifest_id}")
        ids = ", ".join(json.dumps(_claim_id(manifest_id, c)) for c in claim_ids)
        lines += [f'  - manifest: "{manifest_id}"', f"    claims: [{ids}]"]
    at: dict[tuple, int] = {("title",): 2, ("description",): 4}
    if story.get("key_facts"):
        lines.append("key_facts:")
        for index, fact in enumerate(story["key_facts"]):
            at[("key_facts", index)] = len(lines) + 1
            cites = ", ".join(json.dumps(c) for c in fact["cites"])
            lines += [f"  - text: {json.dumps(fact['text'], ensure_ascii=False)}", f"    cites: [{cites}]"]
    if story.get("corrections"):
        lines.append("corrections:")
        for index, correction in enumerate(story["corrections"]):
            at[("corrections", index)] = len(lines) + 2
            lines += [f"  - date: {_iso(correction['date'])}",
                      f"    text: {json.dumps(correction['text'], ensure_ascii=False)}"]
            if correction.get("manifest"):
                lines.append(f'    manifest: "{correction["manifest"]}"')
    lines.append("---")
    body_start = len(lines) + 1  # the file line of the body's first line
    body = story["body"].rstrip("\n")
    text = "\n".join(lines) + "\n" + body + "\n"
    if place is None:
        return text, None
    where, offset, _ = place
    if where != ("body",):
        line = at[where]
        return text, (line, line)
    body_lines = body.split("\n")
    row = body[:offset].count("\n")
    first, last = _unit_rows(body_lines, row)
    return text, (body_start + first, body_start + last)


_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def _unit_rows(lines: list[str], row: int) -> tuple[int, int]:
    """The rows of the paragraph, list item or table row that holds `row` (a heading is its own unit)."""
    if lines[row].lstrip().startswith(("|", "#")):
        return row, row
    first = row
    while first > 0 and lines[first - 1].strip() and not _ITEM.match(lines[first]) and not lines[first - 1].lstrip().startswith("|"):
        first -= 1
    last = row
    while last + 1 < len(lines) and lines[last + 1].strip() and not _ITEM.match(lines[last + 1]):
        last += 1
    return first, last


def _moment(value) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)
    return dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _iso(value) -> str:
    return _moment(value).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def check_pack(path: Path, part: str, root: Path) -> list[Case]:
    """Write the pack's site under root, check it, and give each case its findings."""
    from generator.engine import Options
    from generator.engine.site_check import check_site
    from generator.engine.inputs import Run
    from tests.conftest import write_tree

    files, cases = load(path, part)
    site = write_tree(root / path.stem, files)
    by_path: dict[str, list[Finding]] = {}
    for finding in check_site(Run(site, Options(drafts=True))).findings:
        by_path.setdefault(finding.path, []).append(finding)
    stray = [f for p, fs in by_path.items() if not p.startswith("content/stories/") for f in fs]
    if stray:
        raise CorpusError(f"{path}: findings outside the stories: {[str(f) for f in stray]}")
    for case in cases:
        case.findings = by_path.get(case.path, [])
    return cases


def check_all(part: str) -> list[Case]:
    with tempfile.TemporaryDirectory() as folder:
        return [case for path in packs(part) for case in check_pack(path, part, Path(folder))]


@dataclass
class Scores:
    """Per error class: cases and caught; faithful: stories and those with a false alarm."""

    cases: Counter = field(default_factory=Counter)
    caught: Counter = field(default_factory=Counter)
    faithful: int = 0
    false_alarms: int = 0

    @classmethod
    def of(cls, cases: list[Case]) -> "Scores":
        scores = cls()
        for case in cases:
            if case.faithful:
                scores.faithful += 1
                scores.false_alarms += bool(case.errors)
            else:
                scores.cases[case.label] += 1
                scores.caught[case.label] += case.caught
        return scores

    def recall(self, label: str) -> float:
        return self.caught[label] / self.cases[label] if self.cases[label] else 1.0

    @property
    def overall_recall(self) -> float:
        total = sum(self.cases.values())
        return sum(self.caught.values()) / total if total else 1.0

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.faithful if self.faithful else 0.0

    @property
    def precision(self) -> float:
        """Of the stories given an error, the share that had a mistake (caught where it stands, or at all)."""
        flagged = sum(self.caught.values()) + self.false_alarms
        return sum(self.caught.values()) / flagged if flagged else 1.0


def _show(case: Case) -> None:
    mark = ("ok " if not case.errors else "FALSE ALARM ") if case.faithful else ("caught " if case.caught else "MISSED ")
    where = f" at lines {case.place[0]}-{case.place[1]}" if case.place else ""
    print(f"{mark}{case.pack}/{case.id} [{case.label}]{where}")
    for finding in case.findings:
        print(f"    {finding.line}:{finding.col}: {finding.code} {finding.message}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--all", action="store_true", help="show every case, not only misses and false alarms")
    parser.add_argument("--write", type=Path, help="also write each pack's site into this folder")
    args = parser.parse_args()
    cases = []
    with tempfile.TemporaryDirectory() as folder:
        for path in args.files:
            part = "holdout" if path.resolve().parent == PARTS["holdout"].resolve() else "tuned"
            found = check_pack(path, part, args.write or Path(folder))
            cases.extend(found)
    for case in cases:
        if args.all or (case.faithful and case.errors) or (not case.faithful and not case.caught):
            _show(case)
    scores = Scores.of(cases)
    print(f"\n{scores.faithful} faithful, {scores.false_alarms} with a finding; "
          f"{sum(scores.cases.values())} mistakes, {sum(scores.caught.values())} caught")
    for label in CLASSES:
        if scores.cases[label]:
            print(f"  {label:24} {scores.caught[label]}/{scores.cases[label]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
