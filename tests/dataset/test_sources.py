"""The downloader against a loopback HTTP server and file:// mirrors."""
import hashlib
import json
import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from rfbench.dataset import DatasetError, fetch, load_dataset
from rfbench.dataset.errors import CacheError
from rfbench.dataset.sources import resolve_mirror

REPO = Path(__file__).resolve().parents[2]

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
    with pytest.raises(DatasetError, match="no sha256 is pinned") as err:
        fetch(unpinned, tmp_path, base)
    # one consistent message: the file was not read unverified, not "the mirror has no toy/toy.txt"
    assert "has sha256: null in its dataset config" in str(err.value) and "allow_unverified: true" in str(err.value)
    assert "has no toy/toy.txt" not in str(err.value)
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
    assert "set RFBENCH_DATA_MIRROR=file:///path/to/mirror" in message
    assert "pass dataset.mirror=file:///path/to/mirror" in message and "pass mirror=" not in message


def test_the_suggested_mirror_override_is_a_valid_hydra_override():
    with initialize_config_dir(str(REPO / "configs"), version_base="1.3"):
        cfg = compose("config", overrides=["dataset.mirror=file:///path/to/mirror"])
    assert cfg.dataset.mirror == "file:///path/to/mirror"


@pytest.mark.parametrize("bad_spec, message", [
    ({"path": "toy.txt", "sha256": SHA, "format": "csv"}, "must be '<folder>/<file>'"),
    ({"path": "toy/toy.txt", "format": "csv"}, "has no 'sha256' (write sha256: null"),
    (spec(urls=["http://127.0.0.1:9/x"]), "must be a mapping with 'url' and 'sha256'"),
])
def test_malformed_file_specs_are_explained(tmp_path, bad_spec, message):
    with pytest.raises(DatasetError) as err:
        fetch(bad_spec, tmp_path)
    assert message in str(err.value)


# --- Item: verified data in the cache is used, with or without a mirror -------------------------

def canonical(base, sha256=None):
    return [{"url": f"{base}/canonical/toy.txt", "sha256": sha256}]


def test_verified_cache_is_used_without_a_mirror_even_offline(served, tmp_path, monkeypatch):
    base, _, server = served
    fetch(spec(urls=canonical(base)), tmp_path, base)  # e.g. `make run`, which sets the mirror
    monkeypatch.setenv("RFBENCH_OFFLINE", "1")
    again = fetch(spec(urls=canonical(base)), tmp_path)  # no mirror; the canonical URL is unpinned
    assert again.path == tmp_path / "toy" / "toy.txt" and again.sha256 == SHA
    assert server.requests == ["/toy/toy.txt"]


def test_download_leaves_a_record_of_what_was_verified(served, tmp_path):
    base, _, _ = served
    fetch(spec(), tmp_path, base)
    record = json.loads((tmp_path / "toy" / "toy.txt.record.json").read_text())
    assert record == {"sha256": SHA, "source": f"{base}/toy/toy.txt", "pinned": True}


def test_a_recorded_file_is_trusted_without_a_pinned_hash_until_it_changes(served, tmp_path, monkeypatch):
    base, _, server = served
    fetch(spec(), tmp_path, base)
    monkeypatch.setenv("RFBENCH_OFFLINE", "1")
    unpinned = spec(sha256=None, urls=canonical(base))
    assert fetch(unpinned, tmp_path).path == tmp_path / "toy" / "toy.txt"  # re-hashed against the record
    (tmp_path / "toy" / "toy.txt").write_bytes(BODY[:-1] + b"2")
    with pytest.raises(DatasetError, match="could not obtain 'toy/toy.txt'"):
        fetch(unpinned, tmp_path)
    assert server.requests == ["/toy/toy.txt"]


def test_a_record_never_overrules_a_newly_pinned_sha256(served, tmp_path, monkeypatch, caplog):
    base, root, _ = served
    fetch(spec(), tmp_path, base)
    (root / "toy" / "toy.txt").write_bytes(BODY + BODY)  # the publisher's new version, pinned anew
    new = hashlib.sha256(BODY + BODY).hexdigest()
    with caplog.at_level(logging.WARNING, logger="rfbench.dataset.sources"):
        fetched = fetch(spec(sha256=new, urls=canonical(base)), tmp_path, base)  # the old file matches its record
    assert fetched.sha256 == new and fetched.path.read_bytes() == BODY + BODY
    assert caplog.text.count("corrupt or partial") == 1  # judged once


def test_an_unverified_download_is_reused_only_when_opted_in_and_unchanged(served, tmp_path):
    base, _, server = served
    unpinned = spec(sha256=None)
    fetch(unpinned, tmp_path, base, allow_unverified=True)
    assert json.loads((tmp_path / "unverified" / "toy" / "toy.txt.record.json").read_text())["pinned"] is False
    assert fetch(unpinned, tmp_path, base, allow_unverified=True).sha256 == SHA
    assert len(server.requests) == 1  # from the cache
    with pytest.raises(DatasetError, match="no sha256 is pinned"):
        fetch(unpinned, tmp_path, base)  # an unverified record is no verification
    (tmp_path / "unverified" / "toy" / "toy.txt").write_bytes(b"tampered")
    assert fetch(unpinned, tmp_path, base, allow_unverified=True).path.read_bytes() == BODY
    assert len(server.requests) == 2  # the changed file was downloaded again


# --- Item: a cache problem is reported as one, not as a failed mirror ---------------------------

def test_unwritable_cache_is_a_cache_error_and_no_url_is_contacted(served, tmp_path, monkeypatch):
    base, _, server = served

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # a read-only cache (root ignores file modes)
    with pytest.raises(CacheError) as err:
        fetch(spec(), tmp_path, base)
    assert "RFBENCH_CACHE" in str(err.value) and "could not obtain" not in str(err.value)
    assert server.requests == []


@pytest.mark.parametrize("kind", ["file", "missing"])
def test_cli_reports_an_unusable_rfbench_cache_and_exits_2(tmp_path, kind):
    cache = tmp_path / "cache" if kind == "file" else tmp_path / "no" / "cache"
    if kind == "file":
        cache.write_text("x")
    env = {**os.environ, "RFBENCH_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "rfbench", f"experiment.results_dir={tmp_path / 'results'}"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("rfbench: error: dataset cache") and f"RFBENCH_CACHE={cache}" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- Item: the downloader never writes outside its cache ----------------------------------------

@pytest.mark.parametrize("path", ["../../x", "../x", "/abs/x", "toy/../../x", "toy/sub/x", "toy/..", "./x",
                                  "toy/", "toy\\..\\x/y", "unverified/x", "parsed/x"])
def test_hostile_file_paths_are_refused_before_anything_is_written(served, tmp_path, path):
    base, _, server = served
    cache = tmp_path / "deep" / "er" / "cache"
    cache.mkdir(parents=True)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(DatasetError, match="must be '<folder>/<file>'|are the cache's own"):
        fetch(spec(path=path), cache, base)
    assert sorted(tmp_path.rglob("*")) == before and server.requests == []


def test_hostile_path_in_a_dataset_config_fails_the_run_before_any_download(tmp_path, dataset_config):
    cfg = dataset_config("spambase")
    cfg["files"]["data"]["path"] = "../../x"
    with pytest.raises(DatasetError, match=r"file path '../../x' must be '<folder>/<file>'"):
        load_dataset(cfg, cache_dir=tmp_path, mirror="http://127.0.0.1:9")


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/a/..", "http://127.0.0.1:9/", "http://127.0.0.1:9/a/%2e%2e/.."])
def test_url_whose_file_name_is_not_plain_is_refused(tmp_path, url):
    with pytest.raises(DatasetError, match="the file name of URL .* is not a plain file name"):
        fetch(spec(urls=[{"url": url, "sha256": SHA}]), tmp_path)


def test_a_symlinked_cache_folder_is_not_followed_out_of_the_cache(served, tmp_path):
    base, _, server = served
    cache, outside = tmp_path / "cache", tmp_path / "outside"
    cache.mkdir()
    outside.mkdir()
    (cache / "toy").symlink_to(outside)
    with pytest.raises(CacheError, match="outside the dataset cache"):
        fetch(spec(), cache, base)
    assert list(outside.iterdir()) == [] and server.requests == []


@pytest.mark.parametrize("location", ["ftp://127.0.0.1:9/toy.txt", "file:///etc/passwd", "data:,hello"])
def test_redirects_to_other_schemes_than_http_are_refused(served, tmp_path, location):
    base, _, server = served
    server.redirects["/moved/toy.txt"] = location
    with pytest.raises(DatasetError) as err:
        fetch(spec(urls=[{"url": f"{base}/moved/toy.txt", "sha256": SHA}]), tmp_path / "cache")
    # urllib itself refuses file: and data:; the downloader also refuses ftp:, which urllib would follow.
    reason = str(err.value).split(f"{base}/moved/toy.txt: ", 1)[1].splitlines()[0]
    assert reason.startswith("HTTPError: HTTP Error 302") and location in reason
    assert "refused: only http(s) redirects are followed" in reason or "is not allowed" in reason
    assert leftovers(tmp_path / "cache") == []


def test_redirects_to_http_are_followed(served, tmp_path):
    base, _, server = served
    server.redirects["/moved/toy.txt"] = f"{base}/toy/toy.txt"
    fetched = fetch(spec(urls=[{"url": f"{base}/moved/toy.txt", "sha256": SHA}]), tmp_path)
    assert fetched.path.read_bytes() == BODY and server.requests == ["/moved/toy.txt", "/toy/toy.txt"]


def test_an_unpinned_file_in_a_local_mirror_gets_the_sha256_to_pin(tmp_path):
    # A user's own YAML with sha256: null, its file in a local mirror: one message, naming the hash to pin.
    (tmp_path / "mirror" / "toy").mkdir(parents=True)
    (tmp_path / "mirror" / "toy" / "toy.txt").write_bytes(BODY)
    with pytest.raises(DatasetError) as err:
        fetch(spec(sha256=None), tmp_path / "cache", str(tmp_path / "mirror"))
    assert f"sha256: {SHA} (the mirror's toy.txt)" in str(err.value)
    assert "has no toy/toy.txt" not in str(err.value)
