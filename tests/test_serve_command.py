"""`ledgerpress serve` run as a user runs it: outside a site it says so, and `--open` opens the browser."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.commands import LEDGERPRESS, as_process
from tests.conftest import base_files, write_tree

WAIT = 30  # seconds: a bound, never a sleep


def _status(url: str, deadline: float) -> int:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=WAIT) as page:
                return page.status
        except urllib.error.HTTPError as err:
            if err.code != 503 or time.monotonic() > deadline:
                return err.code
        time.sleep(0.1)


def test_serve_outside_a_site_says_so_and_exits(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("not a site")
    started = time.monotonic()
    served = as_process("serve", "--port", "0", cwd=tmp_path)
    assert served.returncode == 1 and time.monotonic() - started < WAIT
    assert "no ledgerpress site in this folder" in served.stderr and "ledgerpress init" in served.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no cache, nothing watched


def test_serve_with_a_source_date_epoch_it_cannot_read_says_so_and_exits(site: Path):
    served = as_process("serve", "--port", "0", cwd=site, env={"SOURCE_DATE_EPOCH": "abc"})
    assert served.returncode == 2 and "Traceback" not in served.stderr
    assert "Invalid value for SOURCE_DATE_EPOCH: SOURCE_DATE_EPOCH 'abc' is not a whole number" in served.stderr


def test_serve_open_opens_the_preview_in_the_browser(tmp_path: Path):
    site = write_tree(tmp_path / "site", base_files())
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(f"import sys, pathlib\npathlib.Path({str(opened)!r}).write_text(sys.argv[1])\n")
    env = {**os.environ, "BROWSER": f"{sys.executable} {browser} %s"}
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    server = subprocess.Popen([str(LEDGERPRESS), "serve", "--port", "0", "--open", "-q"], cwd=site, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT
        while not opened.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.05)
        url = opened.read_text()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/")
        assert _status(url, deadline) == 200  # (503, "Building…", until the first build is in)
    finally:
        server.send_signal(signal.SIGINT)
        out, err = server.communicate(timeout=WAIT)
    assert server.returncode == 0, err
    assert f"at {url} (Ctrl-C to stop)" in err and "Stopped." not in err  # -q: no closing note


def test_serve_on_every_interface_prints_a_loopback_url(tmp_path: Path):
    """--host 0.0.0.0: the address printed (and linked to) is one a browser can visit."""
    site = write_tree(tmp_path / "site", base_files())
    server = subprocess.Popen([str(LEDGERPRESS), "serve", "--host", "0.0.0.0", "--port", "0", "-q"], cwd=site,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        found = re.search(r" at (http://\S+/) \(Ctrl-C to stop\)", line)
        assert found and found[1].startswith("http://127.0.0.1:"), line
        port = found[1].rstrip("/").rsplit(":", 1)[1]
        assert server.stderr.readline().strip() == ("Listening on every interface: from another device, use this "
                                                     f"machine's address with port {port}")
        assert _status(found[1], time.monotonic() + WAIT) == 200
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=WAIT)
    assert server.returncode == 0, err


def test_serve_stopped_by_sigterm_stops_as_by_ctrl_c_and_withdraws_its_announcement(tmp_path: Path):
    """A preview stopped by a service manager, `kill` or a closed terminal's SIGTERM left .ledgerpress-cache/
    serve.json behind, pointing agents at a preview that no longer ran."""
    site = write_tree(tmp_path / "site", base_files())
    announcement = site / ".ledgerpress-cache" / "serve.json"
    server = subprocess.Popen([str(LEDGERPRESS), "serve", "--port", "0"], cwd=site, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        found = re.search(r" at (http://\S+/) \(Ctrl-C to stop\)", server.stderr.readline())
        assert found and _status(found[1], time.monotonic() + WAIT) == 200
        deadline = time.monotonic() + WAIT
        while not announcement.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert announcement.exists()
    finally:
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=WAIT)
    assert server.returncode == 0 and "Stopped." in err and "Traceback" not in err, err
    assert not announcement.exists()
