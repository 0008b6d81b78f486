"""Write a ledgerpress site's stories as a Hugo site and a Pelican site (same stories, same Markdown bodies,
`[cites: id]` markers left in as text), with the themes and settings in others/: bench_others.py's peers."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import yaml

OTHERS = Path(__file__).resolve().parent / "others"


def read_story(path: Path) -> tuple[dict, str]:
    _, front, body = path.read_text(encoding="utf-8").split("---\n", 2)
    return yaml.safe_load(front), body.lstrip("\n")


def hugo_story(meta: dict, body: str) -> str:
    edition = meta.get("edition") or meta["published"].strftime("%Y-%m-%dT%H")
    return (f"---\ntitle: {json.dumps(meta['title'])}\ndate: {meta['published'].isoformat()}\n"
            f"description: {json.dumps(meta['description'])}\nbeats: [{meta['beat']}]\n"
            f"editions: [\"{edition}\"]\ntrust: {meta['trust']}\n---\n{body}")


def pelican_story(meta: dict, body: str, site: dict) -> str:
    return (f"Title: {meta['title']}\nDate: {meta['published'].isoformat()}\n"
            f"Category: {site['newsrooms'][meta['newsroom']]}\nTags: {site['beats'][meta['beat']]}\n"
            f"Summary: {meta['description']}\nSlug: {meta['slug']}\n\n{body}")


def convert(ours: Path, hugo: Path, pelican: Path) -> None:
    """Write ours' stories as a Hugo and a Pelican site, with their templates and settings."""
    site = tomllib.loads((ours / "content" / "site.toml").read_text(encoding="utf-8"))
    for folder in (hugo, pelican):
        shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(OTHERS / "hugo", hugo)
    shutil.copytree(OTHERS / "pelican", pelican)
    for slug, name in site["newsrooms"].items():
        (hugo / "content" / slug).mkdir(parents=True)
        (hugo / "content" / slug / "_index.md").write_text(f"---\ntitle: {json.dumps(name)}\n---\n")
    for path in sorted((ours / "content" / "stories").glob("*/*.md")):
        meta, body = read_story(path)
        meta.setdefault("slug", path.stem)
        day = path.parent.name
        (hugo / "content" / meta["newsroom"] / day).mkdir(exist_ok=True)
        (hugo / "content" / meta["newsroom"] / day / path.name).write_text(hugo_story(meta, body), encoding="utf-8")
        (pelican / "content" / day).mkdir(parents=True, exist_ok=True)
        (pelican / "content" / day / path.name).write_text(pelican_story(meta, body, site), encoding="utf-8")
