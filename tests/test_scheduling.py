"""Scheduled stories: published after the build's time (--now, else SOURCE_DATE_EPOCH, else the clock), they are
checked but not built; the summary says how many and when the next is due; a build at or after that time
publishes them; the same input and the same --now give the same bytes; the preview shows them under a banner."""

from __future__ import annotations

import datetime as dt
import http.client
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from click.testing import CliRunner

from generator.cli import cli
from generator.engine.clock import BadTime, build_time
from generator.serve import Preview
from tests.conftest import build_in_memory, write_tree
from tests.test_site import story_file

LATER_PATH, LATER = story_file(1, 28, 6)  # 2026-11-28T06:00:00Z
LATER_URL = "stories/2026-11-28/the-birch-report-reaches-the-council/"


def _build(site: Path, *extra: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["build", "--root", str(site), "--no-search", *extra], env=env)


def test_the_build_time_comes_from_now_then_the_environment_then_the_clock():
    epoch = {"SOURCE_DATE_EPOCH": "1795262400"}
    assert build_time("2026-11-28T07:00:00+01:00", epoch) == dt.datetime(2026, 11, 28, 6, tzinfo=dt.timezone.utc)
    assert build_time("2026-11-28T06:00", {}) == dt.datetime(2026, 11, 28, 6, tzinfo=dt.timezone.utc)  # UTC
    assert build_time(None, epoch) == dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc)
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    assert before <= build_time(None, {}) <= dt.datetime.now(dt.timezone.utc)
    with pytest.raises(BadTime, match="--now 'soon' is not an ISO 8601 date and time"):
        build_time("soon", {})
    with pytest.raises(BadTime, match="SOURCE_DATE_EPOCH '1.5e9' is not a whole number"):
        build_time(None, {"SOURCE_DATE_EPOCH": "1.5e9"})


def test_a_scheduled_story_is_absent_then_present_with_now(site: Path):
    write_tree(site, {LATER_PATH: LATER})
    early = _build(site, "--now", "2026-11-27T12:00:00Z")
    assert early.exit_code == 0, early.output
    assert not (site / "public" / LATER_URL).exists()
    assert ("1 story scheduled, not built yet; the next, content/stories/2026-11-28/the-birch-report-reaches-the-"
            "council.md, is due at 2026-11-28T06:00:00Z") in early.stderr
    assert "built 1 story," in early.stderr
    assert "/stories/2026-11-28/" not in (site / "public" / "feed.xml").read_text()
    again = _build(site, "--now", "2026-11-28T05:59:59Z")
    assert "up to date" in again.stderr  # nothing fell due yet
    due = _build(site, "--now", "2026-11-28T06:00:00Z")
    assert due.exit_code == 0 and "built 2 stories" in due.stderr and "story scheduled" not in due.stderr
    assert (site / "public" / LATER_URL / "index.html").is_file()
    assert "/stories/2026-11-28/" in (site / "public" / "feed.xml").read_text()
    back = _build(site, "--now", "2026-11-27T12:00:00Z")  # a time before a story built: it is scheduled again
    assert "built 1 story," in back.stderr and not (site / "public" / LATER_URL).exists()


def test_publish_refuses_a_build_made_for_another_time_than_its_own(site: Path, tmp_path: Path):
    """A build made with a later --now holds a story not due at the time of publishing; one made before a
    scheduled story fell due lacks it."""
    write_tree(site, {LATER_PATH: LATER})

    def publish(moment: str):
        epoch = str(int(dt.datetime.fromisoformat(moment).timestamp()))
        return CliRunner().invoke(cli, ["publish", str(tmp_path / "www"), "--root", str(site)],
                                  env={"SOURCE_DATE_EPOCH": epoch})

    assert _build(site, "--now", "2026-11-28T06:00:00Z").exit_code == 0
    early = publish("2026-11-27T12:00:00+00:00")
    assert early.exit_code == 1 and "public/ was built for a later time (--now)" in early.output, early.output
    assert _build(site, "--now", "2026-11-27T12:00:00Z").exit_code == 0
    late = publish("2026-11-28T07:00:00+00:00")
    assert late.exit_code == 1 and "a scheduled story fell due since public/ was built" in late.output, late.output
    assert publish("2026-11-27T13:00:00+00:00").exit_code == 0
    assert not (tmp_path / "www" / LATER_URL).exists()


def test_source_date_epoch_is_the_build_time_without_now(site: Path):
    write_tree(site, {LATER_PATH: LATER})
    assert "1 story scheduled" in _build(site, env={"SOURCE_DATE_EPOCH": "1795262400"}).stderr  # 2026-11-21
    result = _build(site, "--force", env={"SOURCE_DATE_EPOCH": str(int(dt.datetime(2026, 11, 29).timestamp()))})
    assert "built 2 stories" in result.stderr and "story scheduled" not in result.stderr


def test_a_bad_time_stops_the_build_with_what_is_expected(site: Path):
    result = _build(site, "--now", "next tuesday")
    assert result.exit_code == 2 and "--now 'next tuesday' is not an ISO 8601 date and time" in result.output
    result = _build(site, env={"SOURCE_DATE_EPOCH": "yesterday"})
    assert result.exit_code == 2 and "SOURCE_DATE_EPOCH 'yesterday' is not a whole number" in result.output
    checked = CliRunner().invoke(cli, ["check", "--root", str(site)], env={"SOURCE_DATE_EPOCH": "x"})
    assert checked.exit_code == 2 and checked.exception is None or isinstance(checked.exception, SystemExit)


@pytest.mark.parametrize("given", ["9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00+14:00", "0999-12-31T23:59:59Z"])
def test_a_time_at_the_ends_of_the_calendar_is_refused_not_a_traceback(site: Path, given: str):
    result = _build(site, "--now", given)
    assert result.exit_code == 2 and "is beyond the dates a build can use" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


@pytest.mark.parametrize("epoch", ["１２３", "١٢٣", "1²", "99999999999999"])
def test_source_date_epoch_is_ascii_digits_within_the_calendar(epoch: str):
    with pytest.raises(BadTime, match=f"SOURCE_DATE_EPOCH '{epoch}' is"):
        build_time(None, {"SOURCE_DATE_EPOCH": epoch})


@settings(max_examples=200, deadline=None)
@given(st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30),
                    timezones=st.sampled_from([None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=14)),
                                               dt.timezone(dt.timedelta(hours=-14), "x")])) |
       st.sampled_from([dt.datetime.min, dt.datetime.max]))
def test_any_now_is_a_time_in_the_calendar_or_refused(moment: dt.datetime):
    try:
        utc = build_time(moment.isoformat(), {})
    except BadTime as err:
        assert "beyond the dates" in str(err)
    else:
        assert utc.tzinfo == dt.timezone.utc and 1000 <= utc.year <= 9999


@pytest.mark.parametrize("now", [dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc),
                                 dt.datetime(1000, 1, 1, tzinfo=dt.timezone.utc)])
def test_a_build_at_either_end_of_the_calendar_is_whole(site: Path, now: dt.datetime):
    built = build_in_memory(site, search=False, now=now)
    assert built.report.ok, built.report.findings
    assert "index.html" in built.files and "feed.xml" in built.files


def test_the_same_input_and_now_give_the_same_bytes(site: Path, tmp_path: Path):
    write_tree(site, {LATER_PATH: LATER})
    outputs = []
    for name in ("one", "two"):
        out = tmp_path / name
        assert _build(site, "--force", "--now", "2026-11-27T12:00:00Z", "--out", str(out)).exit_code == 0
        outputs.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()})
    assert outputs[0] == outputs[1]


def test_check_counts_scheduled_stories_and_checks_them(site: Path):
    write_tree(site, {LATER_PATH: LATER.replace("trust: reported", "trust: rumoured")})
    result = CliRunner().invoke(cli, ["check", "--root", str(site)], env={"SOURCE_DATE_EPOCH": "1795262400"})
    assert result.exit_code == 1 and " LP010 trust 'rumoured'" in result.stdout  # errors in it are errors
    assert "2 stories (1 scheduled)" in result.stderr


def test_the_demo_holds_a_story_scheduled_after_its_last_edition():
    from generator.engine import Options
    from generator.engine.site_check import check_site
    from generator.engine.inputs import Run

    checked = check_site(Run(Path(__file__).resolve().parent.parent,
                             Options(now=dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc))))
    assert checked.findings == [] and len(checked.scheduled) == 1
    assert max(story.published for story in checked.stories) < checked.scheduled[0].published


def test_the_preview_shows_a_scheduled_story_under_a_banner(site: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1795262400")  # 2026-11-21T12:00:00Z: the later story waits
    write_tree(site, {LATER_PATH: LATER})
    preview = Preview(site, "127.0.0.1", 0)
    preview.start()
    try:
        assert preview.wait_for(1, 30).files is not None
        host, port = preview.server.server_address[:2]
        pages = {}
        for path in (f"/{LATER_URL}", "/stories/2026-11-21/council-funds-the-quay-street-busway/"):
            connection = http.client.HTTPConnection(host, port, timeout=30)
            connection.request("GET", path)
            pages[path] = connection.getresponse().read().decode()
            connection.close()
    finally:
        preview.close()
    scheduled, published = pages.values()
    assert 'id="ledgerpress-scheduled"' in scheduled and "2026-11-28 06:00 UTC" in scheduled
    assert "ledgerpress-scheduled" not in published
