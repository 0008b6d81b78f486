"""The desk's tools as an agent sees them: names, descriptions (the docstrings), input schemas (from these
signatures, less `desk`) and output schemas (from the models they return). Each calls one function of the
desk's other modules."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, create_model

from .calls import guarded
from .checking import check_text
from .manifest_search import MAX_LIMIT, ManifestQuery, get_manifest, list_manifests
from .paths import SHAPE
from .preview import build, preview_url
from .explain_rule import explain_rule
from .schemas import BuildOut, CheckResult, ManifestDetail, ManifestPage, PreviewOut, RuleOut, StoryText, Written
from .site import Desk
from .drafts import draft_story, read_story, update_story
from ..content.new_story import StoryAsked

StoryPath = Annotated[str, Field(description=f"The story file: {SHAPE}.", max_length=200)]
Hash = Annotated[str, Field(description="The `content_hash` the story had when you read it.", max_length=100)]
Drafts = Annotated[bool, Field(description="Check as `ledgerpress build --drafts` sees the site (drafts take part "
                                           "in it: their findings are errors, site-wide rules compare them).")]
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
REPLACE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
BUILD = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def list_manifests_tool(
        desk: Desk,
        text: Annotated[str, Field(description="Words that must all appear in the manifest (id, title, brief, "
                                               "source, claims), any case.", max_length=500)] = "",
        newsroom: Annotated[str | None, Field(description="Only manifests that stories of this newsroom cite "
                                                          "(a key of [newsrooms] in site.toml).")] = None,
        published_after: Annotated[str | None, Field(description="ISO 8601 date or date and time: published "
                                                                 "at or after it.")] = None,
        published_before: Annotated[str | None, Field(description="ISO 8601 date (the whole day) or date and "
                                                                  "time: published at or before it.")] = None,
        cursor: Annotated[str | None, Field(description="`next_cursor` of the page before.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Manifests a page.")] = 20) -> ManifestPage:
    """Find the site's manifests (source records), newest first, one page at a time."""
    # (each parameter is a field of the tool's input schema, which the SDK makes from this signature)
    return list_manifests(desk.checks, ManifestQuery(text, newsroom, published_after, published_before), cursor, limit)


def get_manifest_tool(
        desk: Desk,
        id: Annotated[str, Field(description="The manifest's id.", max_length=64)]) -> ManifestDetail:  # noqa: A002
    """One manifest: its claims (cite their ids in a ledger), its retraction, the stories citing it, and the
    dates a story citing it may be published."""
    return get_manifest(desk.checks, id)


def check_story_tool(
        desk: Desk,
        text: Annotated[str, Field(description="The whole story file: YAML front matter and Markdown body.")],
        path: Annotated[str | None, Field(description=f"Where it goes: {SHAPE}. Default: where its front "
                                                      "matter places it (published date, slug).",
                                          max_length=200)] = None,
        drafts: Drafts = False) -> CheckResult:
    """Check a story's text in this site exactly as `ledgerpress check` would if it were saved there; nothing
    is written. Each finding has its line, column, code, message and `did_you_mean` hint."""
    return check_text(desk.checks, path, text, drafts)


def explain_rule_tool(
        desk: Desk,
        code: Annotated[str, Field(description="A rule code, e.g. LP020.", max_length=20)]) -> RuleOut:
    """What a rule checks, with an example that fails and one that passes."""
    return explain_rule(desk, code)


def read_story_tool(desk: Desk, path: StoryPath) -> StoryText:
    """A story file's text and its content hash (update_story wants the hash back)."""
    return read_story(desk, path)


def draft_story_tool(
        desk: Desk,
        title: Annotated[str, Field(description="The headline, 1 to 200 characters.", max_length=1000)],
        newsroom: Annotated[str, Field(description="A key of [newsrooms] in site.toml.", max_length=100)],
        beat: Annotated[str, Field(description="A key of [beats] in site.toml.", max_length=100)],
        trust: Annotated[str | None, Field(description="A key of [trust] in site.toml (default: the first).",
                                           max_length=100)] = None,
        date: Annotated[str | None, Field(description="Publication date or date and time, ISO 8601 (default: "
                                                      "now; no offset means UTC).", max_length=40)] = None,
        slug: Annotated[str | None, Field(description="a-z, 0-9, single '-' (default: from the title).",
                                          max_length=100)] = None,
        authors: Annotated[list[str], Field(description="Author slugs (content/authors/<slug>.md).",
                                            max_length=20)] = []) -> Written:  # noqa: B006 - copied by pydantic
    """Start a new draft exactly as `ledgerpress new` does (never replacing a file): returns its path, text,
    content hash and findings; each placeholder it holds is a finding until you replace it (update_story)."""
    # (each parameter is a field of the tool's input schema, which the SDK makes from this signature)
    return draft_story(desk, StoryAsked(title, newsroom, beat, trust, True, date, slug, tuple(authors)))


def update_story_tool(
        desk: Desk,
        path: StoryPath,
        text: Annotated[str, Field(description="The whole new file; it must keep `draft: true`.")],
        expected_hash: Hash) -> Written:
    """Replace a draft's text, only if the file is unchanged since you read it (its hash is `expected_hash`);
    returns the new hash and the findings. Published stories are never changed."""
    return update_story(desk, path, text, expected_hash)


def preview_url_tool(desk: Desk, path: StoryPath) -> PreviewOut:
    """The story's page in the running `ledgerpress serve` preview, if one runs."""
    return preview_url(desk, path)


def build_tool(
        desk: Desk,
        drafts: Annotated[bool, Field(description="Build drafts too (build --drafts).")] = False,
        search: Annotated[bool, Field(description="Build the search index (off: build --no-search).")] = True,
) -> BuildOut:
    """Build the site into public/ as `ledgerpress build` does (only when the desk allows building)."""
    return build(desk, drafts, search)


TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [
    ("list_manifests", list_manifests_tool, READ),
    ("get_manifest", get_manifest_tool, READ),
    ("check_story", check_story_tool, READ),
    ("explain_rule", explain_rule_tool, READ),
    ("read_story", read_story_tool, READ),
    ("draft_story", draft_story_tool, WRITE),
    ("update_story", update_story_tool, REPLACE),
    ("preview_url", preview_url_tool, READ),
    ("build", build_tool, BUILD),
]


def register(app: MCPServer, desk: Desk) -> None:
    """Every tool, on one server, bound to one desk."""
    for name, run, hints in TOOLS:
        app.add_tool(guarded(desk, name, functools.partial(run, desk)), name=name, description=inspect.getdoc(run),
                     annotations=hints, structured_output=True)


def argument_models() -> dict[str, type[BaseModel]]:
    """Each tool's arguments as a model, from the same signatures as its input schema: to say what is wrong."""
    models = {}
    for name, run, _ in TOOLS:
        parameters = list(inspect.signature(run, eval_str=True).parameters.values())[1:]  # less `desk`
        fields: dict[str, Any] = {parameter.name: (parameter.annotation, ... if parameter.default is parameter.empty
                                                   else parameter.default) for parameter in parameters}
        models[name] = create_model(f"{name}_arguments", **fields)
    return models
