"""LP032's calibration set: labelled paragraphs (calibration/paragraphs.yaml) judged against their manifests,
with the precision and recall docs/checks.md states held as thresholds; and the demo, which must pass."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

from generator.checks.support import pool, verdict
from generator.checks.wording import text_terms
from generator.engine import Options
from generator.engine.site_check import check_site
from generator.engine.inputs import Run

HERE = Path(__file__).parent / "calibration"
REPO = Path(__file__).resolve().parent.parent.parent
DOCS = REPO / "docs" / "checks.md"
EXPECT_FINDING = {"wrong_source", "invented"}
LABELS = ["supported", "paraphrase", "analysis", "wrong_source", "invented"]
MIN_PRECISION, MIN_RECALL, MIN_WRONG_SOURCE_RECALL = 0.95, 0.7, 1.0


def judged() -> list[tuple[dict, bool, str | None]]:
    """Each labelled paragraph, whether LP032 finds it, and the manifest a wrong-source finding names."""
    manifests = yaml.safe_load((HERE / "manifests.yaml").read_text(encoding="utf-8"))
    data = yaml.safe_load((HERE / "paragraphs.yaml").read_text(encoding="utf-8"))
    found = []
    for item in data["paragraphs"]:
        ledger = data["ledgers"][item["ledger"]]
        pools = {key: pool(manifests[key]["title"], manifests[key]["claims"]) for key in ledger}
        result = verdict(text_terms(item["text"]), item["cites"], pools)
        flagged = result.wrong_source or result.unsupported
        found.append((item, flagged, result.other if result.wrong_source else None))
    return found


def table() -> tuple[Counter, Counter]:
    """(paragraphs, findings) per label."""
    counts, flagged = Counter(), Counter()
    for item, hit, _ in judged():
        counts[item["label"]] += 1
        flagged[item["label"]] += hit
    return counts, flagged


def rates(counts: Counter, flagged: Counter) -> tuple[float, float]:
    true = sum(flagged[label] for label in EXPECT_FINDING)
    false = sum(flagged[label] for label in counts if label not in EXPECT_FINDING)
    positives = sum(counts[label] for label in EXPECT_FINDING)
    return true / (true + false), true / positives


def markdown() -> str:
    """The calibration table docs/checks.md shows, from this run."""
    counts, flagged = table()
    precision, recall = rates(counts, flagged)
    rows = ["| label | paragraphs | LP032 findings | expected |", "|---|---|---|---|"]
    for label in LABELS:
        rows.append(f"| {label} | {counts[label]} | {flagged[label]} | {'a finding' if label in EXPECT_FINDING else 'none'} |")
    total = sum(counts.values())
    rows += ["", f"Precision {precision:.0%} and recall {recall:.0%} over {total} labelled paragraphs "
                 f"(a finding expected on {sum(counts[label] for label in EXPECT_FINDING)})."]
    return "\n".join(rows)


def test_the_set_has_every_kind_and_enough_of_them():
    counts, _ = table()
    assert sum(counts.values()) >= 60 and all(counts[label] >= 10 for label in LABELS)


def test_precision_and_recall_hold_their_thresholds():
    counts, flagged = table()
    precision, recall = rates(counts, flagged)
    assert precision >= MIN_PRECISION and recall >= MIN_RECALL
    assert flagged["wrong_source"] / counts["wrong_source"] >= MIN_WRONG_SOURCE_RECALL
    assert flagged["paraphrase"] == flagged["analysis"] == flagged["supported"] == 0


def test_a_wrong_source_finding_names_the_manifest_the_paragraph_rests_on():
    for item, hit, named in judged():
        if item["label"] == "wrong_source":
            assert hit and named == item["source"], item["text"]


def test_docs_state_the_measured_figures():
    text = DOCS.read_text(encoding="utf-8")
    start, end = text.index("<!-- calibration:start -->\n"), text.index("<!-- calibration:end -->")
    assert text[start + len("<!-- calibration:start -->\n"): end].strip() == markdown()


@pytest.mark.parametrize("root", [REPO])
def test_the_demo_has_no_lp032_finding(root: Path):
    assert [str(f) for f in check_site(Run(root, Options(drafts=True))).findings if f.code == "LP032"] == []


if __name__ == "__main__":
    print(markdown())
