"""Every example a message gives ("expected e.g. …") is itself a value the rule accepts: a reporter who copies
it is not refused again. Each field's example is validated as the field's own type, and the examples a wrong
date or time is answered with are written into the story and checked."""

from __future__ import annotations

import json
import re
import typing
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, TypeAdapter

from generator.content.author_files import AUTHOR_EXAMPLES, AuthorMatter
from generator.content.models import FrontMatter, Manifest
from generator.content.validate import EXAMPLES, MANIFEST_EXAMPLES
from generator.engine.build_options import Options
from generator.engine.inputs import Run
from generator.engine.site_check import check_site
from tests.conftest import STORY, STORY_PATH, write_tree


def _fields(model: type[BaseModel]) -> typing.Iterator[tuple[str, typing.Any]]:
    """(name, annotation) of every field of the model and of the models its fields hold, at any depth."""
    for name, field in model.model_fields.items():
        yield name, field.annotation
        for inner in _models(field.annotation):
            yield from _fields(inner)


def _models(annotation: typing.Any) -> typing.Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _models(arg)


def _alternatives(example: str) -> list[str]:
    """'2026-11-22 (or 2026-11-22T08:00:00Z)' is two examples; '{…} (a claim: true)' one, with a remark."""
    found = re.fullmatch(r"(.*?) \((?:or )?(.*)\)", example)
    if found is None:
        return [example]
    return [found[1], found[2]] if example.split(" (", 1)[1].startswith("or ") else [found[1]]


CASES = [(model, examples, name, value, parse)
         for model, examples, parse in ((FrontMatter, EXAMPLES, yaml.safe_load), (AuthorMatter, AUTHOR_EXAMPLES, yaml.safe_load),
                                        (Manifest, MANIFEST_EXAMPLES, json.loads))
         for name, example in sorted(examples.items()) for value in _alternatives(example)
         if any(field == name for field, _ in _fields(model))]


@pytest.mark.parametrize("model, examples, name, value, parse", CASES,
                         ids=[f"{case[0].__name__}.{case[2]}={case[3][:30]}" for case in CASES])
def test_every_fields_example_is_accepted_by_the_field(model, examples, name, value, parse):
    annotations = [annotation for field, annotation in _fields(model) if field == name]
    parsed = parse(value)
    errors = []
    for annotation in annotations:  # (one name may be several fields: a claim's text, a key fact's text)
        try:
            TypeAdapter(annotation).validate_python(parsed)
            return
        except Exception as error:  # noqa: BLE001  (pydantic's and a validator's own errors alike)
            errors.append(str(error))
    pytest.fail(f"{model.__name__}'s example for {name}, {value}, is refused: {errors}")


def test_the_cases_cover_every_example():
    assert {case[2] for case in CASES if case[0] is FrontMatter} >= {"published", "updated", "ledger", "corrections"}
    assert len(CASES) > 40


BAD_TIMES = ["2026-10-20", "2026-10-32", "2026-10-20 10:00", '"2026-10-20T10:00"', '"2026-10-20T10:15:30.5"', "soon", "2026-13-01",
             '"20 October 2026"']


def _published(root: Path, value: str) -> list[str]:
    story = STORY.replace("published: 2026-11-21T10:30:00Z", f"published: {value}")
    write_tree(root, {STORY_PATH: story})
    return [str(f) for f in check_site(Run(root, Options(jobs=1))).findings if f.severity == "error"]


@pytest.mark.parametrize("bad", BAD_TIMES)
def test_a_wrong_time_is_answered_with_examples_the_field_accepts(site: Path, bad: str):
    found = [line for line in _published(site, bad) if " LP002 published" in line]
    assert len(found) == 1, found
    examples = re.findall(r"\b\d{4}-\d\d-\d\dT[\d:.]+(?:Z|[+-]\d\d:\d\d)", found[0].split("e.g.", 1)[1])
    assert examples, found[0]
    for example in examples:
        assert not [line for line in _published(site, example) if "LP002" in line], (bad, example)


MISTAKES = {  # a front-matter line as reporters get it wrong, and what the finding must say
    "title: Ferry Road: the council votes": "holds ': '",
    'title: "The council says "yes" to it"': "quotation mark inside",
    'title: "The mayor\'s "final" word"': "quotation mark inside",
    "\ttitle: \"Ferry Road\"": "a tab",
}


@pytest.mark.parametrize("line", MISTAKES)
def test_a_yaml_mistake_is_said_as_its_fix_at_its_line_and_the_fix_is_accepted(site: Path, line: str):
    story = STORY.replace('title: "Council funds the Quay Street busway"', line)
    write_tree(site, {STORY_PATH: story})
    found = [f for f in check_site(Run(site, Options(jobs=1))).findings if f.code == "LP001"]
    assert [(f.line, MISTAKES[line] in f.message) for f in found] == [(2, True)], found
    if "e.g. " in found[0].message:
        fixed = found[0].message.split("e.g. ", 1)[1]
        write_tree(site, {STORY_PATH: story.replace(line, fixed)})
        assert not [f for f in check_site(Run(site, Options(jobs=1))).findings if f.code in ("LP001", "LP002")]
    else:
        write_tree(site, {STORY_PATH: story.replace(line, line.replace("\t", ""))})
        assert not [f for f in check_site(Run(site, Options(jobs=1))).findings if f.code in ("LP001", "LP002")]


@pytest.mark.parametrize("closing, line, col", [("---## The vote", 23, 4), ("--- ## The vote", 23, 4), ("", 1, 1)])
def test_front_matter_whose_closing_line_is_not_alone_says_so_at_that_line(site: Path, closing: str, line: int,
                                                                            col: int):
    head, body = STORY.split("\n---\n", 1)
    write_tree(site, {STORY_PATH: head + "\n" + (closing + "\n" if closing else "") + body.split("\n", 1)[1]})
    found = [f for f in check_site(Run(site, Options(jobs=1))).findings if f.path == STORY_PATH]
    assert [(f.code, f.line, f.col) for f in found] == [("LP001", line, col)], found
    assert "never closed" in found[0].message and "must start with" not in found[0].message


@pytest.mark.parametrize("updated, refused", [("2026-11-20", True), ("2026-11-21T10:29:59Z", True),
                                              ("2026-11-21", False), ("2026-11-21T10:30:00Z", False),
                                              ("2026-11-22T08:00:00+02:00", False)])
def test_an_update_before_the_story_was_published_is_a_finding_at_its_line(site: Path, updated: str, refused: bool):
    story = STORY.replace("published: 2026-11-21T10:30:00Z\n", f"published: 2026-11-21T10:30:00Z\nupdated: {updated}\n")
    write_tree(site, {STORY_PATH: story})
    found = [str(f) for f in check_site(Run(site, Options(jobs=1))).findings if f.code == "LP002"]
    assert found == ([f"{STORY_PATH}:5:1: LP002 updated: {updated.replace('Z', '+00:00')} is before the story's "
                      "published date 2026-11-21T10:30:00+00:00: expected that date or a later one (or no updated: "
                      "field until the story changes)"] if refused else []), found
