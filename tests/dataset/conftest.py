"""Fixtures for the data-layer tests: real mirrored files, a loopback HTTP server, no internet."""
from __future__ import annotations

import threading
import urllib.parse
import urllib.request
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from rfbench.dataset import fetch

REPO = Path(__file__).resolve().parents[2]
CONFIG_DIR = REPO / "configs" / "dataset"
_real_open = urllib.request.OpenerDirector.open


def _load_config(name: str) -> dict:
    return OmegaConf.to_container(OmegaConf.load(CONFIG_DIR / f"{name}.yaml"))


@pytest.fixture(scope="session")
def dataset_config():
    """``dataset_config(name)``: a shipped ``configs/dataset/<name>.yaml`` as a fresh dict."""
    return _load_config


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch):
    """Fail any test that would contact a host other than 127.0.0.1 (canonical URLs and redirects included).

    Every urllib opener, the downloader's own included, opens each URL and each
    redirect target through ``OpenerDirector.open``.
    """
    def guarded(opener, url, *args, **kwargs):
        parts = urllib.parse.urlsplit(url if isinstance(url, str) else url.full_url)
        if parts.scheme != "file" and parts.hostname != "127.0.0.1":
            raise AssertionError(f"test tried to contact {url}")
        return _real_open(opener, url, *args, **kwargs)

    monkeypatch.setattr(urllib.request.OpenerDirector, "open", guarded)


@pytest.fixture(scope="session")
def data_cache(tmp_path_factory):
    """One cache for the whole session, so each real file is copied and parsed once."""
    return tmp_path_factory.mktemp("data_cache")


@pytest.fixture(scope="session")
def real_file(mirror, data_cache):
    """``real_file(config, key)``: local path of a file of a shipped config, fetched from the mirror."""
    def get(name: str, key: str) -> Path:
        spec = _load_config(name)["files"][key]
        return fetch(spec, data_cache, mirror).path
    return get


class _Handler(SimpleHTTPRequestHandler):
    """Serves a directory; paths under /short/ announce more bytes than they send, and paths in
    ``server.redirects`` answer 302 with the location given there."""

    def do_GET(self):
        self.server.requests.append(self.path)
        if self.path in self.server.redirects:
            self.send_response(302)
            self.send_header("Location", self.server.redirects[self.path])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if not self.path.startswith("/short/"):
            return super().do_GET()
        body = Path(self.directory, self.path.removeprefix("/short/")).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body) + 100))
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server(tmp_path):
    """A 127.0.0.1 HTTP server in a thread serving ``tmp_path / 'www'``; yields (base_url, root, server)."""
    root = tmp_path / "www"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(root)))
    server.requests, server.redirects = [], {}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", root, server
    server.shutdown()
    server.server_close()
    thread.join()
