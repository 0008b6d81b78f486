"""The typed site configuration: site.toml, every default, and CLI overrides merged once."""

from __future__ import annotations

import datetime as dt
import tomllib
import zoneinfo
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from .findings import Finding

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]
SeverityOverride = Literal["error", "warning", "off"]
CONFIG_NAME = "site.toml"


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

    version: str = "v1"
    text: str = "Free to read and quote with credit and a link to the story."
    credit: str = ""
    terms_path: str = "/terms/reuse/"


class VerifyTable(Table):
    """How a reader fetches a manifest themselves; `{id}` in endpoint is replaced by the id."""

    endpoint: Annotated[str, StringConstraints(pattern=r"^https?://\S*\{id\}\S*$")]
    header: str | None = None


class ManifestsTable(Table):
    """Where `ledgerpress manifests pull` fetches manifests: `{id}` in store is replaced by the id."""

    store: Annotated[str, StringConstraints(pattern=r"^https?://\S*\{id\}\S*$")]
    timeout: float = Field(default=10.0, gt=0, le=300)     # seconds to connect, and between bytes of an answer
    retries: int = Field(default=3, ge=0, le=10)           # retries after a 5xx answer or a failed connection
    backoff: float = Field(default=0.5, ge=0, le=60)       # first wait between tries in seconds, doubled each time
    max_bytes: int = Field(default=5_000_000, ge=1_000)    # a longer answer is refused, not read


class SiteConfig(Table):
    """site.toml, validated; the one place where defaults live."""

    title: str = Field(min_length=1)
    base_url: Annotated[str, StringConstraints(pattern=r"^https?://[^\s/]+(/\S*)?$")]
    description: str = ""
    language: str = "en"
    manifest_max_age_days: int = Field(default=30, ge=0)
    duplicate_window_days: int = Field(default=7, ge=0)
    duplicate_threshold: float = Field(default=0.6, gt=0, le=1)
    page_size: int = Field(default=20, ge=1)
    front_page_size: int = Field(default=30, ge=1)               # stories on the front page, grouped by edition
    edition: Literal["hour", "day"] = "hour"                      # what an edition is: an hour (UTC) or a day
    timezone: TimeZone = "UTC"                                    # dates shown to readers are in this zone
    date_format: DatePattern = "%Y-%m-%d %H:%M %Z"                # a date and time shown to readers
    day_format: DatePattern = "%Y-%m-%d"                          # a day shown to readers (a dated note, an edition)
    image_widths: list[ImageWidth] = Field(default=[640, 1280], min_length=1, max_length=8)
    newsrooms: dict[Slug, str] = Field(min_length=1)
    beats: dict[Slug, str] = Field(min_length=1)
    trust: dict[Slug, str] = Field(min_length=1)
    reuse: ReuseTable = ReuseTable()
    verify: VerifyTable | None = None
    manifests: ManifestsTable | None = None
    checks: dict[str, SeverityOverride] = {}

    @property
    def root_url(self) -> str:
        """base_url without its trailing slash, so that root_url + '/path/' is canonical."""
        return self.base_url.rstrip("/")

    def url(self, path: str) -> str:
        return self.root_url + path

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.timezone)

    @property
    def widths(self) -> list[int]:
        """image_widths without repeats, narrowest first."""
        return sorted(set(self.image_widths))


def load_config(path: Path, base_url: str | None = None, shown: str | None = None) -> tuple[SiteConfig | None, list[Finding]]:
    """Read site.toml; problems come back as findings (at `shown`, the path as printed), never as exceptions."""
    shown = shown or str(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, [Finding(shown, 1, 1, "LP002", "site.toml is missing")]
    except UnicodeDecodeError as err:
        return None, [Finding(shown, 1, 1, "LP001", f"not UTF-8 ({err.reason})")]
    except tomllib.TOMLDecodeError as err:
        line, col = _toml_position(str(err))
        return None, [Finding(shown, line, col, "LP001", f"site.toml is not valid TOML: {err}")]
    if base_url is not None:
        raw["base_url"] = base_url
    try:
        return SiteConfig.model_validate(raw), []
    except ValidationError as err:
        return None, [_config_finding(path, shown, e) for e in err.errors()]


def _toml_position(message: str) -> tuple[int, int]:
    """tomllib says '(at line 3, column 7)'; anything else points at the top."""
    import re

    found = re.search(r"line (\d+), column (\d+)", message)
    return (int(found[1]), int(found[2])) if found else (1, 1)


def _config_finding(path: Path, shown: str, error: dict) -> Finding:
    loc = ".".join(str(part) for part in error["loc"])
    code = "LP003" if error["type"] == "extra_forbidden" else "LP002"
    line = toml_line(path, error["loc"])
    return Finding(shown, line, 1, code, f"{loc}: {error['msg']}")


def toml_line(path: Path, loc: tuple) -> int:
    """The line that sets the last key of loc (tomllib keeps no positions)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return 1
    keys = [part for part in loc if isinstance(part, str)]
    table, key = (keys[0], keys[-1]) if len(keys) > 1 else (None, keys[0] if keys else "")
    in_table = table is None
    for number, text in enumerate(lines, start=1):
        stripped = text.strip()
        if stripped.startswith("["):
            in_table = table is None or stripped.strip("[] ") == table
            if table is not None and in_table and len(keys) == 1:
                return number
            continue
        if in_table and stripped.split("=", 1)[0].strip().strip('"') == key:
            return number
    return 1
