"""What `ledgerpress check --explain PATH:LINE` shows: the unit a reader sees at that line of a story (a paragraph,
list item, table row, key fact, title, description, heading, caption or correction), each of its sentences with
the claims it rests on, and the findings there."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..checks.alignment import ClaimRef, Place, aligned, rests_on
from ..content.body import parse_body
from ..content.config import CONFIG_NAME, load_config
from ..content.findings import Finding
from ..content.manifest_files import load_manifest
from ..content.limits import MAX_STORY_BYTES
from ..content.models import Story
from ..content.source import read_bounded
from ..content.story_files import load_story, story_files


@dataclass(frozen=True)
class Explained:
    """One unit of a story and how it reads against its claims."""

    kind: str
    lines: range
    cited: tuple[str, ...]
    sentences: list[tuple[str, tuple[ClaimRef, ...]]]

    def holds(self, finding: Finding, shown: str) -> bool:
        return finding.path == shown and finding.line in self.lines


def explain(root: Path, shown: str, line: int) -> Explained | str:
    """The unit of the story at `shown` (a path as findings print it) that holds `line`, or why there is none."""
    if shown not in {name for _, name in story_files(root)}:
        return f"{shown}: no story file of this site: expected a path under content/stories/, as findings print it"
    config, _ = load_config(root / "content" / CONFIG_NAME, None, f"content/{CONFIG_NAME}")
    data, _ = read_bounded(root / shown, shown, MAX_STORY_BYTES)
    if config is None or data is None:
        return f"{shown} cannot be read with content/{CONFIG_NAME}: `ledgerpress check` says why"
    story, _ = load_story(root / shown, shown, data, config.edition)
    if not isinstance(story, Story):
        return f"{shown}: the story does not load: `ledgerpress check` says why"
    manifests = {}
    for entry in story.meta.ledger:
        found, _ = load_manifest(root / "content" / "manifests" / f"{entry.manifest}.json",
                                 f"content/manifests/{entry.manifest}.json")
        if found is not None:
            manifests[found.manifest.id] = found
    body = parse_body(story.body, story.body_line)
    places, claims = aligned(story, body, manifests)
    place = next((p for p in places if line in _lines(story, p)), None)
    if place is None:
        return f"{shown}:{line}: no paragraph, list item, table row, key fact, heading or front-matter line a reader sees"
    return Explained(place.kind, _lines(story, place), place.cited,
                     [(sentence.text, rests_on(sentence, place, claims)) for sentence in place.sentences])


def _lines(story: Story, place: Place) -> range:
    if place.unit is not None:
        rows = [line for line, _, _ in place.unit.source] or [place.unit.line]
        return range(place.unit.line, max(rows) + 1)
    if place.loc is not None:
        line, _ = story.source.at(place.loc)
        return range(line, line + 1)
    return range(place.line, place.line + 1)
