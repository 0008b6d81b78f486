"""Config values are validated before they reach a path, a process, a shell or a page: each bad one is a
finding at its line in site.toml, never a file written elsewhere, a hang or a command run."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.content.config import load_config
from tests.conftest import SITE_TOML, write_tree


def _findings(site: Path, toml: str) -> list[str]:
    write_tree(site, {"content/site.toml": toml})
    config, findings = load_config(site / "content/site.toml", shown="content/site.toml")
    return [str(finding) for finding in findings]


@pytest.mark.parametrize("line, field", [
    ('language = "../../x"', "language"),                    # Pagefind wrote files outside its folders
    ('language = "' + "a" * 5000 + '"', "language"),         # hung Pagefind for a minute
    ('language = "en/../../x"', "language"),
    ('base_url = "https://e.org/\\"><script>"', "base_url"),
    ('base_url = "https://e.org/a b"', "base_url"),
    ('base_url = "javascript://e.org/"', "base_url"),
    ('title = "Line one\\nLine two"', "title"),
    ('title = "Bell \\u0007"', "title"),
    ('manifest_max_age_days = 99999999', "manifest_max_age_days"),  # timedelta overflow in LP023
    ('page_size = 0', "page_size"),
])
def test_a_bad_top_level_value_is_an_lp002(site: Path, line: str, field: str):
    key = line.split(" = ")[0]
    found = _findings(site, "\n".join(line if text.startswith(key + " = ") else text for text in SITE_TOML.splitlines()))
    assert len(found) == 1 and f" LP002 {field}: " in found[0], found


@pytest.mark.parametrize("toml, field", [
    (SITE_TOML + '[verify]\nendpoint = "https://e.org/$(touch /tmp/x)/{id}"\n', "verify.endpoint"),
    (SITE_TOML + '[verify]\nendpoint = "https://e.org/`id`/{id}"\n', "verify.endpoint"),
    (SITE_TOML + '[verify]\nendpoint = "https://e.org/no-placeholder"\n', "verify.endpoint"),
    (SITE_TOML + '[verify]\nendpoint = "https://e.org/{id}"\nheader = "X-Key: a\\r\\nX-Other: b"\n', "verify.header"),
    (SITE_TOML + '[verify]\nendpoint = "https://e.org/{id}"\nheader = "not a header"\n', "verify.header"),
    (SITE_TOML.replace('city = "City"', '"' + "a" * 65 + '" = "Long"'), "newsrooms"),
    (SITE_TOML.replace('city = "City"', 'city = "City\\nDesk"'), "newsrooms.city"),
    (SITE_TOML + '[checks]\n"LP001\\nx" = "off"\n', "checks"),
], ids=["endpoint-command", "endpoint-backticks", "endpoint-no-id", "header-newline", "header-shape", "slug-length",
        "name-newline", "check-code"])
def test_a_bad_value_in_a_table_is_an_lp002(site: Path, toml: str, field: str):
    found = _findings(site, toml)
    assert len(found) == 1 and f" LP002 {field}" in found[0], found


@pytest.mark.parametrize("path", ["../../etc/", "//evil.example/", "/a/../b/", "/a b/", "relative/"])
def test_terms_path_must_be_a_plain_path_on_the_site(site: Path, path: str):
    found = _findings(site, SITE_TOML.replace('terms_path = "/terms/reuse/"', f'terms_path = "{path}"'))
    assert len(found) == 1 and "LP002 reuse.terms_path" in found[0]


@pytest.mark.parametrize("tag", ["en", "en-GB", "zh-Hant-TW", "sr-Latn-RS", "de-CH-1996", "es-419", "x-private",
                                 "en-x-custom"])
def test_real_language_tags_pass(site: Path, tag: str):
    assert _findings(site, SITE_TOML.replace('language = "en"', f'language = "{tag}"')) == []


def test_the_preview_address_is_a_valid_base_url(site: Path):
    from generator.content.config import SiteConfig

    base = SiteConfig.model_validate({"title": "T", "base_url": "http://[::1]:8000", "newsrooms": {"a": "A"},
                                      "beats": {"b": "B"}, "trust": {"c": "C"}})
    assert base.root_url == "http://[::1]:8000"


def test_a_bad_whole_table_is_found_at_its_header_a_top_level_key_before_any_table(site: Path):
    toml = SITE_TOML.replace('city = "City"\nscience = "Science"\n', "")  # [newsrooms] with no newsroom in it
    [found] = _findings(site, toml)
    assert found.startswith(f"content/site.toml:{toml.splitlines().index('[newsrooms]') + 1}:1: LP002 newsrooms"), found
    toml = SITE_TOML.replace("page_size = 2", "page_size = 0")
    [found] = _findings(site, toml)
    assert found.startswith(f"content/site.toml:{toml.splitlines().index('page_size = 0') + 1}:1: LP002"), found


def test_a_key_of_a_table_is_reported_at_its_line_as_a_key(site: Path):
    toml = SITE_TOML.replace("[newsrooms]\n", "[newsrooms]\nCity_Desk = \"City\"\n", 1)
    line = toml.split("\n").index('City_Desk = "City"') + 1
    assert _findings(site, toml) == [
        f"content/site.toml:{line}:1: LP002 newsrooms.City_Desk: the key 'City_Desk' is not a slug: expected "
        "lowercase letters, digits and single hyphens, e.g. city-desk"]
