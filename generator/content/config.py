"""The typed site configuration: site.toml, every default, and CLI overrides merged once. Every value is
checked here for what it may become (a URL, a path, an HTML attribute, a word of a shell command), so that
nothing downstream has to trust it."""

from __future__ import annotations

import datetime as dt
import os
import re
import tomllib
import zoneinfo
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    create_model,
)

from .findings import Finding
from .kinds import site_tables
from .limits import MAX_CONFIG_BYTES
from .slugs import SLUG_PATTERN, slugify
from .source import read_bounded, refused_symlink
from .validate import field_loc

CONFIG_NAME = "site.toml"

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\ufdd0-\ufdef\ufffe\uffff]")
_CONTROL_IN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufdd0-\ufdef\ufffe\uffff]")


def _no_control(pattern: re.Pattern) -> AfterValidator:
    def check(value: str) -> str:
        found = pattern.search(value)
        if found:
            raise ValueError(f"has a control character (U+{ord(found[0]):04X}) at position {found.start() + 1}")
        return value
    return AfterValidator(check)


Line = Annotated[str, _no_control(_CONTROL)]                # one line of text: a name, a title, a credit
Text = Annotated[str, _no_control(_CONTROL_IN_TEXT)]        # text that may hold tabs and newlines
Slug = Annotated[str, StringConstraints(pattern=SLUG_PATTERN, max_length=64)]
Name = Annotated[Line, StringConstraints(min_length=1, max_length=100)]
SeverityOverride = Literal["error", "warning", "off"]

# RFC 5646 language tags (without the grandfathered irregular ones): what `lang` attributes, feeds and the
# search index are given. Only letters, digits and '-' can pass, so it can never name a path.
LANGUAGE_TAG = re.compile(
    r"(?:(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?"
    r"(?:-(?:[A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*"
    r"(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?|[Xx](?:-[A-Za-z0-9]{1,8})+)")


def _language(value: str) -> str:
    if len(value) > 64 or not LANGUAGE_TAG.fullmatch(value):
        raise ValueError("must be a language tag (BCP 47) such as en, en-GB or zh-Hant-TW")
    return value
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = rf"(?:{_LABEL}(?:\.{_LABEL})*\.?|\[[0-9A-Fa-f:.]+\])(?::[0-9]{{1,5}})?"
_PATH = r"(?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*)*"  # RFC 3986 path-abempty, ASCII only
_QUERY = r"(?:\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*)?"
BASE_URL = rf"^https?://{_HOST}{_PATH}$"
ENDPOINT = rf"^https?://{_HOST}{_PATH}{_QUERY}$"  # checked with "{id}" in it replaced by an id
SITE_PATH = re.compile(r"/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-Fa-f]{2})*")  # a path on the site
HEADER = r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}: ?[\x20-\x7e]{0,1000}$"  # an HTTP header line, printable ASCII


def _endpoint(value: str) -> str:
    if value.count("{id}") < 1 or not re.fullmatch(ENDPOINT, value.replace("{id}", "ID")):
        raise ValueError("must be an http(s) URL of ASCII characters (percent-encode the rest) with {id} in it")
    return value


def _site_path(value: str) -> str:
    if not SITE_PATH.fullmatch(value) or value.startswith("//"):
        raise ValueError("must be a path on the site: '/' first, then ASCII letters, digits, '-._~' and '/' "
                         "(percent-encode the rest)")
    if any(part in (".", "..") for part in value.split("/")):
        raise ValueError("may not hold a '.' or '..' segment")
    return value


def _time_zone(name: str) -> str:
    """An IANA time zone the system (or the tzdata package) knows."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone '{name}': expected an IANA name, e.g. \"Europe/Berlin\" or \"UTC\"") from None
    return name


_SAMPLE = dt.datetime(2026, 11, 20, 17, 45, tzinfo=dt.timezone.utc)


def _date_pattern(pattern: str) -> str:
    """A strftime pattern that formats a date (one with no % code would show every date the same)."""
    if "%" not in pattern:
        raise ValueError(f"'{pattern}' has no % code: expected a strftime pattern, e.g. \"%-d %B %Y, %H:%M %Z\"")
    try:
        _SAMPLE.strftime(pattern)
    except ValueError as err:
        raise ValueError(f"'{pattern}' is not a strftime pattern ({err})") from None
    return pattern


TimeZone = Annotated[str, AfterValidator(_time_zone)]
DatePattern = Annotated[str, StringConstraints(min_length=2, max_length=100), AfterValidator(_date_pattern)]
ImageWidth = Annotated[int, Field(ge=16, le=8192)]


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class ReuseTable(Table):
    """The reuse terms printed under every story."""

    version: Annotated[Line, StringConstraints(min_length=1, max_length=40)] = "v1"
    text: Annotated[Text, StringConstraints(max_length=2000)] = "Free to read and quote with credit and a link to the story."
    credit: Annotated[Line, StringConstraints(max_length=200)] = ""
    terms_path: Annotated[str, StringConstraints(max_length=500), AfterValidator(_site_path)] = "/terms/reuse/"


class VerifyTable(Table):
    """How a reader fetches a manifest themselves; `{id}` in endpoint is replaced by the id."""

    endpoint: Annotated[str, StringConstraints(max_length=2000), AfterValidator(_endpoint)]
    header: Annotated[str, StringConstraints(pattern=HEADER)] | None = None


class ManifestsTable(Table):
    """Where `ledgerpress manifests pull` fetches manifests: `{id}` in store is replaced by the id."""

    store: Annotated[str, StringConstraints(max_length=2000), AfterValidator(_endpoint)]
    timeout: float = Field(default=10.0, gt=0, le=300)     # seconds to connect, and between bytes of an answer
    retries: int = Field(default=3, ge=0, le=10)           # retries after a 5xx answer or a failed connection
    backoff: float = Field(default=0.5, ge=0, le=60)       # first wait between tries in seconds, doubled each time
    max_bytes: int = Field(default=5_000_000, ge=1_000)    # a longer answer is refused, not read


class SiteSettings(Table):
    """site.toml, validated; the one place where defaults live (the tables declaring the terms of the kinds,
    [newsrooms], [beats], [trust], [series], come from content/kinds.py: SiteConfig, below)."""

    title: Annotated[Line, StringConstraints(min_length=1, max_length=200)]
    base_url: Annotated[str, StringConstraints(pattern=BASE_URL, max_length=500)]
    description: Annotated[Text, StringConstraints(max_length=1000)] = ""
    language: Annotated[str, AfterValidator(_language)] = "en"
    manifest_max_age_days: int = Field(default=30, ge=0, le=36500)
    duplicate_window_days: int = Field(default=7, ge=0, le=36500)
    duplicate_threshold: float = Field(default=0.6, gt=0, le=1)
    page_size: int = Field(default=20, ge=1, le=10000)
    front_page_size: int = Field(default=30, ge=1, le=10000)     # stories on the front page, grouped by edition
    edition: Literal["hour", "day"] = "hour"                      # what an edition is: an hour (UTC) or a day
    timezone: TimeZone = "UTC"                                    # dates shown to readers are in this zone
    date_format: DatePattern = "%Y-%m-%d %H:%M %Z"                # a date and time shown to readers
    day_format: DatePattern = "%Y-%m-%d"                          # a day shown to readers (a dated note, an edition)
    image_widths: list[ImageWidth] = Field(default=[640, 1280], min_length=1, max_length=8)
    reuse: ReuseTable = ReuseTable()
    verify: VerifyTable | None = None
    manifests: ManifestsTable | None = None
    checks: dict[Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}[0-9]{3}$")], SeverityOverride] = {}

    @property
    def root_url(self) -> str:
        """base_url without its trailing slash, so that root_url + '/path/' is canonical."""
        return self.base_url.rstrip("/")

    @property
    def base_path(self) -> str:
        """The path of root_url ('' for a site at its host's root): what every link within the site starts with."""
        return urlsplit(self.root_url).path

    def url(self, path: str) -> str:
        return self.root_url + path

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.timezone)

    @property
    def widths(self) -> list[int]:
        """image_widths without repeats, narrowest first."""
        return sorted(set(self.image_widths))


def _declared_tables() -> dict[str, Any]:
    """A table slug = name for each kind whose terms site.toml declares: at least one term where every story
    must name one."""
    return {kind.declared: (dict[Slug, Name], Field(min_length=1) if kind.required else Field(default={}))
            for kind in site_tables()}


SiteConfig = create_model("SiteConfig", __base__=SiteSettings, __module__=__name__, __doc__=SiteSettings.__doc__,
                          **_declared_tables())


def load_config(path: Path, base_url: str | None = None, shown: str | None = None) -> tuple[SiteConfig | None, list[Finding]]:
    """Read site.toml; problems come back as findings (at `shown`, the path as printed), never as exceptions."""
    shown = shown or str(path)
    if not path.exists() and not path.is_symlink():
        return None, [Finding(shown, 1, 1, "LP002", "site.toml is missing")]
    if path.is_symlink():  # as every file of content/: a link leading out of it is not followed
        why = refused_symlink(os.path.realpath(path), os.path.realpath(path.parent))
        if why:
            return None, [Finding(shown, 1, 1, "LP001", why)]
    data, refused = read_bounded(path, shown, MAX_CONFIG_BYTES)
    if data is None:
        return None, refused
    try:
        raw = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        return None, [Finding(shown, 1, 1, "LP001", f"not UTF-8 ({err.reason})")]
    except tomllib.TOMLDecodeError as err:
        line, col = _toml_position(str(err))
        return None, [Finding(shown, line, col, "LP001", f"site.toml is not valid TOML: {err}")]
    except RecursionError:
        return None, [Finding(shown, 1, 1, "LP001", "site.toml is not valid TOML: arrays or tables nested too deep")]
    except ValueError as err:  # an integer of thousands of digits
        return None, [Finding(shown, 1, 1, "LP001", f"site.toml is not valid TOML: {err}")]
    if base_url is not None:
        raw["base_url"] = base_url
    try:
        return SiteConfig.model_validate(raw), []
    except ValidationError as err:
        return None, [_config_finding(path, shown, e) for e in err.errors()]


def _toml_position(message: str) -> tuple[int, int]:
    """tomllib says '(at line 3, column 7)'; anything else points at the top."""
    found = re.search(r"line (\d+), column (\d+)", message)
    return (int(found[1]), int(found[2])) if found else (1, 1)


def _config_finding(path: Path, shown: str, error: dict) -> Finding:
    loc = field_loc(tuple(error["loc"]))
    name = ".".join(str(part) for part in loc)
    code = "LP003" if error["type"] == "extra_forbidden" else "LP002"
    line = toml_line(path, loc)
    if error["loc"][-1:] == ("[key]",):  # a key of a table of the user's ([newsrooms], [beats], [checks], …)
        key = str(loc[-1])
        if (error.get("ctx") or {}).get("pattern") == SLUG_PATTERN:
            return Finding(shown, line, 1, code, f"{name}: the key '{key}' is not a slug: expected lowercase "
                                                 f"letters, digits and single hyphens, e.g. {slugify(key) or 'news'}")
        return Finding(shown, line, 1, code, f"{name}: the key '{key}': {error['msg']}")
    return Finding(shown, line, 1, code, f"{name}: {error['msg']}")


def toml_line(path: Path, loc: tuple) -> int:
    """The line that sets the last key of loc (tomllib keeps no positions)."""
    data, _ = read_bounded(path, str(path), MAX_CONFIG_BYTES)
    if data is None:
        return 1
    lines = data.decode("utf-8", "replace").splitlines()
    keys = [part for part in loc if isinstance(part, str)]
    table, key = (keys[0], keys[-1]) if len(keys) > 1 else (None, keys[0] if keys else "")
    in_table = table is None  # a top-level key is set before the first table
    for number, text in enumerate(lines, start=1):
        stripped = text.strip()
        if stripped.startswith("["):
            name = stripped.strip("[] ")
            if table is None and name == key:
                return number  # the key is a whole table: its header
            in_table = name == table
            continue
        if in_table and stripped.split("=", 1)[0].strip().strip('"') == key:
            return number
    return 1
