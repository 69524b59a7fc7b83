"""The downloader against a loopback HTTP server and file:// mirrors."""
import hashlib
import logging

import pytest

from rfbench.dataset import DatasetError, fetch
from rfbench.dataset.sources import resolve_cache_dir, resolve_mirror

BODY = b"+1 1:0.5\n-1 2:1\n" * 1000
SHA = hashlib.sha256(BODY).hexdigest()


def spec(path="toy/toy.txt", sha256=SHA, urls=()):
    return {"path": path, "sha256": sha256, "format": "libsvm", "urls": list(urls)}


@pytest.fixture(autouse=True)
def online(monkeypatch):
    """Canonical URLs here are loopback ones, so let them be tried."""
    monkeypatch.delenv("RFBENCH_OFFLINE", raising=False)
    monkeypatch.delenv("RFBENCH_DATA_MIRROR", raising=False)


@pytest.fixture
def served(http_server):
    base, root, server = http_server
    (root / "toy").mkdir()
    (root / "toy" / "toy.txt").write_bytes(BODY)
    return base, root, server


def leftovers(cache):
    return sorted(p.name for p in cache.rglob("*") if p.is_file())


def test_good_file_is_downloaded_verified_and_cached_in_the_mirror_layout(served, tmp_path):
    base, _, server = served
    cache = tmp_path / "cache"
    fetched = fetch(spec(), cache, base)
    assert fetched.path == cache / "toy" / "toy.txt" and fetched.path.read_bytes() == BODY
    assert fetched.sha256 == SHA and fetched.source.url == f"{base}/toy/toy.txt"
    again = fetch(spec(), cache, "http://127.0.0.1:9/unused")  # served from cache, no request
    assert again.path == fetched.path and len(server.requests) == 1


def test_file_mirror_and_plain_directory_mirror_work(served, tmp_path):
    _, root, _ = served
    assert fetch(spec(), tmp_path / "a", root.as_uri()).path.read_bytes() == BODY
    assert fetch(spec(), tmp_path / "b", str(root)).path.read_bytes() == BODY


def test_mirror_from_environment_variable(served, tmp_path, monkeypatch):
    base, _, _ = served
    monkeypatch.setenv("RFBENCH_DATA_MIRROR", base)
    assert fetch(spec(), tmp_path / "cache").path.read_bytes() == BODY
    assert resolve_mirror("file:///explicit", "file:///config") == "file:///explicit"
    assert resolve_mirror(None, "file:///config") == base


def test_cache_dir_from_argument_environment_or_repo(tmp_path, monkeypatch):
    monkeypatch.setenv("RFBENCH_CACHE", str(tmp_path / "env"))
    assert resolve_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    assert resolve_cache_dir() == tmp_path / "env"
    monkeypatch.delenv("RFBENCH_CACHE")
    assert resolve_cache_dir().name == "datasets" and (resolve_cache_dir().parent / "rfbench").is_dir()


@pytest.mark.parametrize("url_path, sha256, reason", [
    ("/missing/toy.txt", SHA, "HTTP Error 404"),
    ("/toy/toy.txt", "0" * 64, f"sha256 mismatch: expected {'0' * 64}, got {SHA}"),
    ("/short/toy/toy.txt", SHA, f"truncated transfer: received {len(BODY)} of {len(BODY) + 100} bytes"),
])
def test_failed_download_is_reported_and_leaves_nothing_in_the_cache(served, tmp_path, url_path, sha256, reason):
    base, _, _ = served
    cache = tmp_path / "cache"
    with pytest.raises(DatasetError) as err:
        fetch(spec(sha256=sha256, urls=[{"url": base + url_path, "sha256": sha256}]), cache)
    assert f"{base}{url_path}: " in str(err.value) and reason in str(err.value)
    assert leftovers(cache) == []


def test_truncated_unverified_download_is_still_caught(served, tmp_path):
    base, _, _ = served
    with pytest.raises(DatasetError, match="truncated transfer"):
        fetch(spec(sha256=None), tmp_path, f"{base}/short", allow_unverified=True)


def test_corrupt_cached_file_is_detected_logged_and_replaced(served, tmp_path, caplog):
    base, _, _ = served
    cached = tmp_path / "toy" / "toy.txt"
    cached.parent.mkdir()
    cached.write_bytes(BODY[:100])  # e.g. left by an interrupted copy
    with caplog.at_level(logging.WARNING, logger="rfbench.dataset.sources"):
        fetched = fetch(spec(), tmp_path, base)
    assert fetched.path == cached and cached.read_bytes() == BODY
    assert "corrupt or partial" in caplog.text


def test_canonical_url_is_tried_after_the_mirror_with_its_own_format(served, tmp_path):
    base, _, _ = served
    canonical = {"url": f"{base}/toy/toy.txt", "sha256": SHA, "format": "csv", "options": {"label_column": 0}}
    fetched = fetch(spec(path="toy/other.csv", urls=[canonical]), tmp_path, base)
    assert fetched.source.url == canonical["url"]
    assert (fetched.source.format, fetched.source.options) == ("csv", {"label_column": 0})


def test_unpinned_source_is_refused_without_contact_unless_opted_in(served, tmp_path):
    base, _, server = served
    unpinned = spec(sha256=None)
    with pytest.raises(DatasetError, match="no sha256 is pinned.*dataset.allow_unverified=true"):
        fetch(unpinned, tmp_path, base)
    assert server.requests == []
    fetched = fetch(unpinned, tmp_path, base, allow_unverified=True)
    assert fetched.path == tmp_path / "unverified" / "toy" / "toy.txt" and fetched.sha256 == SHA


def test_offline_mode_tries_only_the_mirror(served, tmp_path, monkeypatch):
    base, _, server = served
    monkeypatch.setenv("RFBENCH_OFFLINE", "1")
    with pytest.raises(DatasetError, match="RFBENCH_OFFLINE is set"):
        fetch(spec(urls=[{"url": f"{base}/toy/toy.txt", "sha256": SHA}]), tmp_path, f"{base}/nothing-here")
    assert server.requests == ["/nothing-here/toy/toy.txt"]


def test_nothing_reachable_lists_every_url_with_its_reason_and_the_mirror_variable(tmp_path):
    urls = [{"url": "http://127.0.0.1:9/a/toy.txt", "sha256": SHA},
            {"url": "file:///nonexistent/toy.txt", "sha256": SHA}]
    with pytest.raises(DatasetError) as err:
        fetch(spec(urls=urls), tmp_path)
    message = str(err.value)
    assert "could not obtain 'toy/toy.txt'" in message and "No mirror is configured" in message
    for entry in urls:
        assert f"  - {entry['url']}: URLError" in message
    assert "RFBENCH_DATA_MIRROR" in message


@pytest.mark.parametrize("bad_spec, message", [
    ({"path": "toy.txt", "sha256": SHA, "format": "csv"}, "must be '<folder>/<file>'"),
    ({"path": "toy/toy.txt", "format": "csv"}, "has no 'sha256' (write sha256: null"),
    (spec(urls=["http://127.0.0.1:9/x"]), "must be a mapping with 'url' and 'sha256'"),
])
def test_malformed_file_specs_are_explained(tmp_path, bad_spec, message):
    with pytest.raises(DatasetError) as err:
        fetch(bad_spec, tmp_path)
    assert message in str(err.value)
