"""update_story is a compare-and-swap across processes: two desks (each its own process, as two `ledgerpress mcp
--allow-write` are) update one draft with the hash they both read while a person's editor saves it the way
editors do (a new file renamed over the old), 200 times. No save is lost: at most one desk is told "saved"
each time, and the editor's save, which comes last or is refused to neither desk, is what the file holds."""

from __future__ import annotations

import multiprocessing
import os
import random
import time
from pathlib import Path

from generator.content.layout import file_digest
from tests.conftest import STORY, STORY_PATH, base_files, write_tree

ROUNDS = 200
DRAFT = STORY.replace("trust: confirmed\n", "trust: confirmed\ndraft: true\n")


def _text(who: str, round_: int) -> bytes:
    return DRAFT.replace("## Why now", f"## Why now\n\nWritten by {who} in round {round_}. [cites: "
                         "1000000000000000002]\n", 1).encode()


def _desk(root: Path, who: str, start, end, results) -> None:
    from generator.desk.errors import DeskError
    from generator.desk.site import Desk
    from generator.desk.drafts import update_story

    desk = Desk(root, allow_write=True)
    for round_ in range(ROUNDS):
        start.wait()
        expected = file_digest(_text("base", round_))
        try:
            update_story(desk, STORY_PATH, _text(who, round_).decode(), expected)
            results.put((round_, who, "saved"))
        except DeskError as err:
            results.put((round_, who, err.code))
        end.wait()


def _editor(root: Path, start, end) -> None:
    path, rng = root / STORY_PATH, random.Random(7)
    for round_ in range(ROUNDS):
        start.wait()
        time.sleep(rng.uniform(0, 0.012))  # a moment before, during or after the desks' writes (a few ms each)
        temporary = path.with_name(f".{path.name}.editor")
        temporary.write_bytes(_text("editor", round_))
        os.rename(temporary, path)
        end.wait()


def test_two_desks_and_an_editor_never_lose_a_save(tmp_path: Path):
    root = write_tree(tmp_path / "site", {**base_files(), STORY_PATH: DRAFT})
    context = multiprocessing.get_context("fork")
    start, end, results = context.Barrier(4), context.Barrier(4), context.Queue()
    workers = [context.Process(target=_desk, args=(root, who, start, end, results)) for who in ("one", "two")]
    workers.append(context.Process(target=_editor, args=(root, start, end)))
    for worker in workers:
        worker.start()
    finals = []
    try:
        for round_ in range(ROUNDS):
            base = root / STORY_PATH
            base.with_name(".base").write_bytes(_text("base", round_))
            os.rename(base.with_name(".base"), base)
            start.wait(timeout=60)
            end.wait(timeout=60)
            finals.append((root / STORY_PATH).read_bytes())
    finally:
        for worker in workers:
            worker.join(timeout=60)
    outcomes: dict[int, list[str]] = {}
    while not results.empty():
        round_, _, outcome = results.get()
        outcomes.setdefault(round_, []).append(outcome)
    assert all(sorted(outcomes[n]) in (["saved", "stale"], ["stale", "stale"]) for n in range(ROUNDS)), outcomes
    lost = [n for n, final in enumerate(finals) if final != _text("editor", n)]
    assert lost == [], f"the editor's save was lost in rounds {lost}"
    saved = sum(outcomes[n].count("saved") for n in range(ROUNDS))
    assert 0 < saved < ROUNDS  # both orders happened: a desk first, and the editor first
    assert not any(name.endswith(".desk") for name in os.listdir(root / STORY_PATH.rsplit("/", 1)[0]))
