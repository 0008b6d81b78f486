"""Write a deterministic, valid ledgerpress site of N stories (~1,200 words each) for benchmarks.

    python benchmarks/corpus.py OUT_DIR --stories 4000 [--seed 7] [--words 1200]

Every story passes `ledgerpress check`: quoted ids, recent manifests, every paragraph cites a
ledger manifest and restates one of its claims (so its wording and its figure are the claim's: LP031,
LP032), no figure in a title, description or heading, no two stories alike.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
from pathlib import Path

SITE_TOML = """\
title = "Benchmark Ledger"
base_url = "https://bench.example.org"
description = "A generated archive for timing ledgerpress."
language = "en"
manifest_max_age_days = 30
duplicate_window_days = 7
duplicate_threshold = 0.6
page_size = 20

[newsrooms]
city = "City"
science = "Science"
technology = "Technology"
business = "Business"

[beats]
policy = "Policy"
research = "Research"
industry = "Industry"

[trust]
reported = "Reported"
confirmed = "Confirmed"

[reuse]
version = "v1"
text = "Free to quote with credit and a link."
credit = "Benchmark Ledger"
terms_path = "/terms/reuse/"
"""

STORIES_PER_DAY = 40
MANIFESTS_PER_DAY = 16
START = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
SYLLABLES = ["ka", "lo", "mi", "ren", "sa", "tor", "vel", "un", "dri", "po", "zan", "qui", "bel", "nor", "ta",
             "fe", "gri", "mo", "sil", "ux", "pra", "den", "ol", "ver", "cas", "tim", "ro", "hal", "jes", "wi"]


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 3))) for _ in range(size * 2)}
    return sorted(words)[:size]


def figure(rng: random.Random) -> str:
    kind = rng.randrange(4)
    if kind == 0:
        return f"{rng.randint(1000, 99999):,}"
    if kind == 1:
        return f"{rng.randint(1, 99)}.{rng.randint(1, 9)}%"
    if kind == 2:
        return f"${rng.randint(2, 950)}"
    return f"{rng.randint(100, 999)}"


def tag(number: int) -> str:
    """A number in syllables: it keeps titles apart without being a figure the ledger would have to state."""
    digits = []
    while True:
        number, digit = divmod(number, len(SYLLABLES))
        digits.append(SYLLABLES[digit])
        if not number:
            return "".join(reversed(digits))


def sentence(rng: random.Random, words: list[str], length: int) -> str:
    text = " ".join(rng.choice(words) for _ in range(length))
    return text[0].upper() + text[1:] + "."


def make_manifest(rng: random.Random, words: list[str], number: int, day: int) -> dict:
    published = START + dt.timedelta(days=day, hours=6, minutes=number % 60)
    claims = [{"id": f"{number:08d}{c:02d}", "text": f"{sentence(rng, words, 10)[:-1]} at {figure(rng)}."}
              for c in range(5)]
    return {"id": f"m{number:08d}", "title": sentence(rng, words, 6)[:-1],
            "source": {"name": f"source-{number % 50}", "url": f"https://source{number % 50}.example.org/{number}"},
            "published": published.strftime("%Y-%m-%dT%H:%M:%SZ"), "brief": sentence(rng, words, 20),
            "claims": claims}


def make_story(rng: random.Random, words: list[str], number: int, manifests: list[dict], total_words: int) -> tuple[str, str]:
    day = number // STORIES_PER_DAY
    published = START + dt.timedelta(days=day, hours=8 + (number % STORIES_PER_DAY) // 4, minutes=number % 4 * 15)
    cited = manifests[: rng.randint(1, 3)]
    title = f"{sentence(rng, words, 7)[:-1]} {tag(number)}"
    slug = "-".join(title.lower().split())[:70].strip("-")
    ledger = "".join(f'  - manifest: "{m["id"]}"\n    claims: [{", ".join(json.dumps(c["id"]) for c in m["claims"][:3])}]\n'
                     for m in cited)
    paragraphs, sections = [], ["Background", "What changed", "What comes next", "The numbers"]
    for index in range(max(total_words // 150, 1)):
        manifest = cited[index % len(cited)]
        claim = manifest["claims"][index % 3]
        body = " ".join(sentence(rng, words, rng.randint(10, 18)) for _ in range(10))
        if index % 2 == 0:
            paragraphs.append(f"## {sections[index // 2 % len(sections)]} {index // 2 + 1}\n")
        paragraphs.append(f"{body} The record says that {claim['text'][0].lower()}{claim['text'][1:]} [cites: {manifest['id']}]\n")
    front = (f'---\ntitle: "{title}"\ndescription: "{sentence(rng, words, 18)}"\n'
             f'published: {published.strftime("%Y-%m-%dT%H:%M:%SZ")}\nnewsroom: {rng.choice(["city", "science", "technology", "business"])}\n'
             f'beat: {rng.choice(["policy", "research", "industry"])}\ntrust: {rng.choice(["reported", "confirmed"])}\n'
             f"ledger:\n{ledger}key_facts:\n  - text: \"{sentence(rng, words, 12)}\"\n    labels: [\"record\"]\n"
             f'    cites: ["{cited[0]["id"]}"]\nunresolved:\n  - "{sentence(rng, words, 9)}"\n---\n\n')
    return f"{published.date().isoformat()}/{slug}.md", front + "\n".join(paragraphs)


def write_corpus(out: Path, stories: int, seed: int = 7, total_words: int = 1200) -> None:
    rng = random.Random(seed)
    words = vocabulary(rng)
    shutil.rmtree(out / "content", ignore_errors=True)
    (out / "content" / "manifests").mkdir(parents=True)
    (out / "content" / "site.toml").write_text(SITE_TOML)
    (out / "content" / "pages" / "terms").mkdir(parents=True)
    (out / "content" / "pages" / "terms" / "reuse.md").write_text("---\ntitle: Reuse\n---\nQuote with credit.\n")
    days = stories // STORIES_PER_DAY + 1
    by_day = []
    for day in range(days):
        batch = [make_manifest(rng, words, day * MANIFESTS_PER_DAY + i, day) for i in range(MANIFESTS_PER_DAY)]
        for manifest in batch:
            (out / "content" / "manifests" / f"{manifest['id']}.json").write_text(json.dumps(manifest, indent=2) + "\n")
        by_day.append(batch)
    for number in range(stories):
        day = number // STORIES_PER_DAY
        pool = [m for d in range(max(day - 3, 0), day) for m in by_day[d]] or by_day[0][:0]
        if not pool:  # the first day cites manifests published the same morning
            pool = by_day[0]
        rng.shuffle(pool)
        relative, text = make_story(rng, words, number, pool, total_words)
        path = out / "content" / "stories" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--stories", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--words", type=int, default=1200)
    args = parser.parse_args()
    write_corpus(args.out, args.stories, args.seed, args.words)


if __name__ == "__main__":
    main()
