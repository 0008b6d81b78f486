"""A brief fuzzing run (benchmarks/fuzz.py is the long one): generated front matter, bodies, manifests,
site.toml, pages and templates, each checked and built in a child process, must give findings or a site,
never a traceback, a crash, a hang past SECONDS of CPU or memory past MEMORY_BYTES; and the preview server's
parsing of paths and Host headers takes any text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzzing import INPUTS, SECONDS, run_example

EXAMPLES = 8  # each: a fork, a check and a build of a one-story site (the whole file stays near 30 s)


@pytest.mark.parametrize("kind", list(INPUTS))
def test_no_generated_input_gives_a_traceback(kind: str):
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(INPUTS[kind])
    def one(example: tuple) -> None:
        outcome = run_example(kind, example)
        assert outcome.kind == "ok" and outcome.cpu < SECONDS, outcome

    one()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80), st.text(max_size=40))
def test_the_preview_parses_any_path_and_host(target: str, host: str):
    from generator.serve.preview_server import site_key

    key = site_key("/" + target)
    assert key is None or ".." not in key.split("/")
    server = _server()
    assert server.host_allowed(host) in (True, False)


_SERVERS: list = []


def _server():
    from generator.serve.preview_server import PreviewServer
    from generator.serve.live import Live

    if not _SERVERS:
        _SERVERS.append(PreviewServer("127.0.0.1", 0, Live()))
    return _SERVERS[0]


def teardown_module() -> None:
    for server in _SERVERS:
        server.server_close()
