"""The user guide in docs/ keeps up with the code: every setting, field, command and option is documented, and
every link between the pages leads somewhere."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import click
import pytest

from generator.cli import cli
from generator.content.config import ManifestsTable, ReuseTable, SiteConfig, VerifyTable
from generator.content.kinds import site_tables
from generator.content.models import Claim, FrontMatter, Manifest, Source

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"


def _text(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a page's headings."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")) + ["../README.md"])
def test_links_between_pages_lead_somewhere(page: str):
    source = DOCS / page
    text = source.read_text(encoding="utf-8")
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))  # examples are not links
    for link in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", link):
            continue
        path, _, fragment = link.partition("#")
        target = (source.parent / path).resolve() if path else source
        assert target.exists(), f"{page} links to {link}"
        if fragment and target.suffix == ".md":
            assert fragment in _anchors(target.read_text(encoding="utf-8")), f"{page} links to {link}"


def _table_keys(text: str) -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", text, re.M))


def test_every_site_toml_key_is_documented_with_its_default():
    text = _text("site-toml.md")
    keys = _table_keys(text)
    for model in (SiteConfig, ReuseTable, VerifyTable, ManifestsTable):
        for name, field in model.model_fields.items():
            if name in {*(kind.declared for kind in site_tables()), "reuse", "verify", "manifests", "checks"}:
                assert f"[{name}]" in text, name
                continue
            assert name in keys, f"{model.__name__}.{name} is not in docs/site-toml.md"
            if not field.is_required() and isinstance(field.default, int | float | str):
                shown = re.search(rf"^\| `{name}` \| `([^`]+)` \|", text, re.M)
                assert shown and tomllib.loads(f"x = {shown[1]}")["x"] == field.default, f"the default of {name}"


def test_every_story_and_manifest_field_is_documented():
    stories, manifests = _table_keys(_text("stories.md")), _table_keys(_text("manifests.md"))
    assert set(FrontMatter.model_fields) <= stories
    assert set(Manifest.model_fields) <= manifests
    text = _text("manifests.md")
    for model in (Source, Claim):
        for name in model.model_fields:
            assert f'"{name}"' in text or f"`{name}`" in text, name


def test_every_command_and_option_is_in_the_cli_page():
    text = _text("cli.md")
    stack: list[tuple[str, click.Command]] = list(cli.commands.items())
    while stack:
        name, command = stack.pop()
        if isinstance(command, click.Group):
            stack.extend((f"{name} {sub}", child) for sub, child in command.commands.items())
            continue
        assert f"ledgerpress {name}" in text, name
        for param in command.params:
            for option in param.opts if isinstance(param, click.Option) else ():
                if option.startswith("--") and option not in ("--help", "--root", "--quiet", "--verbose"):
                    assert option in text, f"{name} {option}"
