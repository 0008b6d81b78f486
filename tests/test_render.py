"""Formatting filters: YAML that round-trips, Markdown that stays plain, JSON-LD that cannot break out."""

from __future__ import annotations

import json
import random

import yaml
from hypothesis import given
from hypothesis import strategies as st

from generator.content.safe_yaml import LOADER
from generator.render.formats import (
    json_ld,
    md_cell,
    md_text,
    month_day_time,
    yaml_ids,
    yaml_scalar,
)


class _Html:
    """Something that renders itself as HTML (as a template's value may)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __html__(self) -> str:
        return f"<b>{self.text}</b>"


@given(st.text(min_size=0, max_size=60))
def test_yaml_scalar_round_trips(text):
    assert yaml.safe_load(f"k: {yaml_scalar(text)}") == {"k": text}


def test_yaml_scalar_quotes_only_when_needed():
    assert yaml_scalar("Plain title") == "Plain title"
    assert yaml_scalar("Post-training: 4-bit RL") == '"Post-training: 4-bit RL"'
    assert yaml_scalar("0123") == '"0123"'
    assert yaml_scalar("yes") == '"yes"'


def test_yaml_ids_are_quoted_strings():
    assert yaml.safe_load(f"k: {yaml_ids(['0123', '9'])}") == {"k": ["0123", "9"]}


def test_markdown_escapes():
    assert md_text("a *b* <i>") == r"a \*b\* \<i\>"
    assert md_cell("a | b") == r"a \| b"


def test_ledger_date():
    assert month_day_time("2026-10-19T00:00:00Z") == "10-19 00:00"


def test_json_ld_cannot_close_the_script():
    text = str(json_ld({"headline": "</script><script>alert(1)</script>"}))
    assert "</script>" not in text and json.loads(text)["headline"].startswith("</script>")


@given(st.recursive(st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4)))
def test_json_ld_writes_what_json_dumps_writes(value):
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert str(json_ld(value)) == expected.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def test_referenced_templates_are_found_as_jinja_finds_them():
    from jinja2 import Environment, meta

    from generator.render.templates import referenced_templates
    env = Environment()
    for source in ['{% extends "base.html" %}', '{% include name %}', '{% include ["a.html", "b.html"] %}',
                   '{%- from "m.html" import x -%}', '{% import "m.html" as m %}', '{% extends layout %}',
                   '{% include "a.html" ignore missing %}', '{% include "a" ~ x %}', "no tags at all"]:
        assert sorted(referenced_templates(source), key=str) == sorted(
            meta.find_referenced_templates(env.parse(source)), key=str), source


def test_yaml_scalars_written_plain_without_the_parser_read_back_as_themselves():
    """Most titles and URLs are written plain without asking PyYAML: every such string must read back as
    itself, exactly as when the parser decides."""
    rng = random.Random(5)
    alphabet = "aAyYnNoOtT01 .,;:()'/_+%&?=-#\"[]{}!*|>@`~é"
    samples = ["yes", "No", "ON", "Null", "y", "x", "https://a.org/b?c=d&e=f#g", "a: b", "a:b", "a #b", "Don't", "a:"]
    samples += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 8))) for _ in range(30000)]
    for text in samples:
        written = yaml_scalar(text)
        assert yaml.load(f"k: {written}", Loader=LOADER) == {"k": text}, (text, written)  # (the loader we read with)


def test_pluralize_gives_the_suffix_of_a_counted_noun():
    from generator.render.templates import pluralize
    assert [f"source{pluralize(n)}" for n in (0, 1, 2)] == ["sources", "source", "sources"]
    assert pluralize(3, "es") == "es" and pluralize(1, "es") == ""


def test_escaped_templates_print_no_value_an_if_without_else_may_leave_undefined():
    """`{{ "s" if n != 1 }}` prints an undefined value when the test fails, which escaping probes for
    `__html__` at the cost of an exception, on every story page: the templates write {% if %} or a filter."""
    from jinja2 import Environment, nodes

    from generator.content.layout import builtin_templates
    from generator.render.templates import _ESCAPED

    env = Environment()
    found = []
    for path in sorted(builtin_templates().iterdir()):
        if path.suffix.lstrip(".") in _ESCAPED:
            for output in env.parse(path.read_text("utf-8")).find_all(nodes.Output):
                found += [f"{path.name}:{expr.lineno}" for expr in output.find_all(nodes.CondExpr) if expr.expr2 is None]
    assert found == []


def test_a_table_whose_first_header_cell_is_empty_has_row_headers():
    """Newsrooms write a table of figures with an empty corner and a label at the start of each row: an empty
    <th> left the labels' column without a header (Lighthouse's td-has-header)."""
    from lxml import html

    from generator.content.body import MD

    page = html.fromstring(MD.render("| | Figure | Source |\n|---|---:|---|\n| Heat gap | 4.6 °C | Preprint |\n"
                                     "| Trees | 5,500 | Plan |\n"))
    assert [cell.tag for cell in page.xpath("//thead//tr/*")] == ["td", "th", "th"]
    rows = [[(cell.tag, cell.get("scope"), cell.text) for cell in row] for row in page.xpath("//tbody/tr")]
    assert rows == [[("th", "row", "Heat gap"), ("td", None, "4.6 °C"), ("td", None, "Preprint")],
                    [("th", "row", "Trees"), ("td", None, "5,500"), ("td", None, "Plan")]]
    assert page.xpath("//tbody/tr[1]/td[1]")[0].get("style") == "text-align:right"
    plain = html.fromstring(MD.render("| A | B |\n|---|---|\n| 1 | 2 |\n"))
    assert [cell.tag for cell in plain.xpath("//tr/*")] == ["th", "th", "td", "td"]
