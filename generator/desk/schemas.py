"""What each desk tool answers, as models: the SDK publishes their JSON Schemas as the tools' output schemas, and
checks every answer against them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FindingOut(Out):
    """One problem at one place, exactly as `ledgerpress check` reports it."""

    path: str
    line: int
    column: int
    code: str = Field(description="The rule's code, e.g. LP020; explain_rule explains it.")
    severity: Literal["error", "warning"]
    message: str = Field(description="What is wrong and what is expected.")
    did_you_mean: str | None = Field(description="The id or name the message suggests, when it suggests one.")
    rule: str = Field(description="What the rule checks.")
    text: str = Field(description="The finding as one line: path:line:col: CODE message.")


class CheckResult(Out):
    """A story's findings in its site (drafts: warnings, as `ledgerpress check` gives them)."""

    path: str
    content_hash: str = Field(description="The hash of the text checked.")
    draft: bool = Field(description="Whether the text says `draft: true`.")
    checked_as: Literal["check", "build --drafts"]
    clean: bool = Field(description="No finding at all: the story checks clean.")
    errors: int
    warnings: int
    findings: list[FindingOut]


class ManifestSummary(Out):
    id: str
    title: str
    source_name: str
    source_url: str
    published: str
    retracted: bool = Field(description="The manifest, or one of its claims, was retracted by its source.")
    claims: int
    cited_by: int = Field(description="How many stories list it in their ledger.")
    newsrooms: list[str] = Field(description="The newsrooms of the stories that list it.")
    path: str


class ManifestPage(Out):
    manifests: list[ManifestSummary]
    total: int = Field(description="How many manifests match, on every page.")
    next_cursor: str | None = Field(description="Pass as `cursor` for the next page; null on the last.")
    problems: list[str] = Field(description="Manifest files that do not load, with their findings.")


class ClaimOut(Out):
    id: str
    text: str
    retracted: bool


class Retraction(Out):
    date: str
    note: str


class CitingStory(Out):
    path: str
    url_path: str
    title: str
    published: str
    newsroom: str
    draft: bool
    claims: list[str] = Field(description="The claims its ledger uses from this manifest.")
    corrected: bool = Field(description="It carries a correction naming this manifest.")


class ManifestDetail(Out):
    id: str
    title: str
    source_name: str
    source_url: str
    published: str
    brief: str | None
    path: str
    retracted: Retraction | None
    claims: list[ClaimOut]
    cited_by: list[CitingStory]
    cite_until: str = Field(description="A story citing it must be published from `published` up to this time "
                                        "(manifest_max_age_days, LP023).")
    ledger_entry: str = Field(description="A ledger entry using every claim not retracted, as YAML.")


class StoryText(Out):
    path: str
    content_hash: str = Field(description="Pass as `expected_hash` to update_story.")
    draft: bool
    url_path: str
    text: str


class Written(Out):
    path: str
    content_hash: str = Field(description="The hash of the text now in the file: the next update_story's "
                                          "`expected_hash`.")
    text: str
    check: CheckResult


class ExampleOut(Out):
    note: str
    changes: list[dict[str, str]] = Field(description="Each edit of the example site: path, before, after.")
    files: dict[str, str] = Field(description="Whole files the example adds, by path.")
    findings: list[str]


class RuleOut(Out):
    code: str
    summary: str
    scope: str
    severity: Literal["error", "warning", "off"] = Field(description="As this site's [checks] sets it.")
    explanation: str
    fails: ExampleOut
    passes: ExampleOut
    text: str = Field(description="The rule as `ledgerpress rules CODE` prints it.")


class PreviewOut(Out):
    running: bool = Field(description="A `ledgerpress serve` of this site is running.")
    url: str | None = Field(description="The preview's address.")
    story_url: str | None = Field(description="The story's page in the preview.")
    served: bool | None = Field(description="The preview answered for the story's page.")
    drafts: bool | None = Field(description="The preview shows drafts (serve --drafts).")
    note: str


class BuildOut(Out):
    ok: bool = Field(description="public/ holds the new site: nothing refused, no error found.")
    refused: str | None = Field(description="Why nothing was written: public/ is not the build's to write, "
                                            "another build is writing it, or the disk refused a write.")
    findings: list[FindingOut]
    up_to_date: bool = Field(description="Nothing changed since the last build: the counts are that build's.")
    stories: int
    pages: int
    files: int
    written: int = Field(description="Files written (new or changed).")
    unchanged: int
    deleted: int
    scheduled: list[str] = Field(description="Stories that wait for their publication time, soonest first.")
    notes: list[str] = Field(description="What else the build has to say (a cache it could not save).")
    summary: str = Field(description="The build's closing line, as `ledgerpress build` prints it.")
