"""The parsed-array cache: bound to its source and parser, checked on load, rebuilt when damaged."""
import hashlib
import logging

import numpy as np
import pytest

from rfbench.dataset import fetch, load_dataset, parsed_cache, parsers
from rfbench.dataset.parsed_cache import content_sha256, load_parsed

ROWS = "".join(f"{'+1' if i % 3 else '-1'} 1:{i / 7:.6f} 3:{(i * i) % 11}\n" for i in range(200))
N_FEATURES = 3


@pytest.fixture
def toy(tmp_path):
    """A small LIBSVM file fetched into a fresh cache; returns (fetched, cache_dir, true X, true y)."""
    mirror = tmp_path / "mirror" / "toy"
    mirror.mkdir(parents=True)
    (mirror / "toy.libsvm").write_text(ROWS)
    spec = {"path": "toy/toy.libsvm", "sha256": hashlib.sha256(ROWS.encode()).hexdigest(), "format": "libsvm"}
    cache = tmp_path / "cache"
    fetched = fetch(spec, cache, str(tmp_path / "mirror"))
    X, y = parsers.parse_file(fetched.path, "libsvm", {}, N_FEATURES)
    return fetched, cache, X, y


def npz_of(cache):
    (npz,) = (cache / "parsed").glob("*.npz")
    return npz


def load_without_parsing(fetched, cache, monkeypatch):
    def no_parsing(*args, **kwargs):
        raise AssertionError("text was parsed again")
    with monkeypatch.context() as m:
        m.setattr(parsers, "parse_file", no_parsing)
        return load_parsed(fetched, N_FEATURES, cache)


def assert_rebuilt(toy, monkeypatch, caplog, warning):
    """The next load returns the true arrays, says why it reparsed, and leaves a good cache."""
    fetched, cache, X, y = toy
    with caplog.at_level(logging.WARNING, logger="rfbench.dataset.parsed_cache"):
        X2, y2 = load_parsed(fetched, N_FEATURES, cache)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    assert warning in caplog.text
    X3, _ = load_without_parsing(fetched, cache, monkeypatch)
    np.testing.assert_array_equal(X3, X)


def test_the_cache_stores_its_binding_and_a_digest_independent_of_the_parse(toy, monkeypatch):
    fetched, cache, X, y = toy
    load_parsed(fetched, N_FEATURES, cache)
    with np.load(npz_of(cache)) as stored:
        assert f'"source_sha256": "{fetched.sha256}"' in str(stored["binding"])
        assert f'"parser_version": {parsed_cache.PARSER_VERSION}' in str(stored["binding"])
        assert str(stored["content"]) == content_sha256(X, y)
    X2, _ = load_without_parsing(fetched, cache, monkeypatch)
    np.testing.assert_array_equal(X2, X)


def test_content_digest_tells_arrays_apart():
    X, y = np.arange(6.0).reshape(3, 2), np.array([0, 1, 0])
    assert content_sha256(X, y) == content_sha256(X.copy(), y.copy())
    assert content_sha256(X, y) != content_sha256(X.reshape(2, 3), y)
    assert content_sha256(X, y) != content_sha256(X.astype(np.float32), y)
    changed = X.copy()
    changed[2, 1] = np.nextafter(changed[2, 1], 10)
    assert content_sha256(X, y) != content_sha256(changed, y)


@pytest.mark.parametrize("damage", [
    lambda b: b"",
    lambda b: b"not an npz",
    lambda b: b[:len(b) // 2],            # truncated (a killed copy): BadZipFile
    lambda b: b[:100],                    # only the first local header
    lambda b: b[:-10],                    # central directory cut
    lambda b: b[:200] + bytes(50) + b[250:],  # zeroed bytes inside the X member: bad CRC
    lambda b: b"\x93NUMPY" + b[6:],       # claims to be a bare .npy
], ids=["empty", "text", "half", "header", "tail", "zeroed", "npy-magic"])
def test_damaged_npz_is_rebuilt_not_a_crash(toy, monkeypatch, caplog, damage):
    fetched, cache, _, _ = toy
    load_parsed(fetched, N_FEATURES, cache)
    npz = npz_of(cache)
    npz.write_bytes(damage(npz.read_bytes()))
    assert_rebuilt(toy, monkeypatch, caplog, "rebuilding it")


def test_a_bare_npy_in_place_of_the_npz_is_rebuilt(toy, monkeypatch, caplog):
    fetched, cache, X, _ = toy
    load_parsed(fetched, N_FEATURES, cache)
    with open(npz_of(cache), "wb") as f:
        np.save(f, X)
    assert_rebuilt(toy, monkeypatch, caplog, "damaged parse cache")


def test_swapped_arrays_of_the_same_shape_are_detected_and_rebuilt(toy, monkeypatch, caplog):
    fetched, cache, X, y = toy
    load_parsed(fetched, N_FEATURES, cache)
    npz = npz_of(cache)
    with np.load(npz) as stored:
        binding, content = stored["binding"], stored["content"]
    random_X = np.random.default_rng(0).random(X.shape)
    np.savez(npz, X=random_X, y=y, binding=binding, content=content)  # binding and digest copied over
    assert_rebuilt(toy, monkeypatch, caplog, "do not match their recorded sha256")


def test_an_npz_without_binding_is_rebuilt(toy, monkeypatch, caplog):
    fetched, cache, X, y = toy
    load_parsed(fetched, N_FEATURES, cache)
    np.savez(npz_of(cache), X=np.random.default_rng(0).random(X.shape), y=y)  # e.g. written by an old rfbench
    assert_rebuilt(toy, monkeypatch, caplog, "damaged parse cache")


def test_an_npz_bound_to_other_source_bytes_is_rebuilt(toy, monkeypatch, caplog):
    fetched, cache, X, y = toy
    load_parsed(fetched, N_FEATURES, cache)
    npz = npz_of(cache)
    other = np.random.default_rng(1).random(X.shape)
    with np.load(npz) as stored:
        binding = str(stored["binding"]).replace(fetched.sha256, "0" * 64)
    np.savez(npz, X=other, y=y, binding=np.array(binding), content=np.array(content_sha256(other, y)))
    assert_rebuilt(toy, monkeypatch, caplog, "belongs to another source or parser")


def test_a_new_parser_version_does_not_reuse_old_entries(toy, monkeypatch):
    fetched, cache, X, _ = toy
    load_parsed(fetched, N_FEATURES, cache)
    monkeypatch.setattr(parsed_cache, "PARSER_VERSION", parsed_cache.PARSER_VERSION + 1)
    calls = []
    real_parse = parsers.parse_file
    monkeypatch.setattr(parsers, "parse_file", lambda *a, **k: calls.append(a) or real_parse(*a, **k))
    np.testing.assert_array_equal(load_parsed(fetched, N_FEATURES, cache)[0], X)
    assert len(calls) == 1 and len(list((cache / "parsed").glob("*.npz"))) == 2


def test_a_swapped_npz_of_a_real_dataset_never_reaches_the_results(mirror, tmp_path, dataset_config):
    first = load_dataset(dataset_config("spambase"), cache_dir=tmp_path, mirror=mirror)
    npz = npz_of(tmp_path)
    with np.load(npz) as stored:
        kept = {key: stored[key] for key in stored.files}
    kept["X"] = np.random.default_rng(0).random(kept["X"].shape)
    np.savez(npz, **kept)
    again = load_dataset(dataset_config("spambase"), cache_dir=tmp_path, mirror=mirror)
    np.testing.assert_array_equal(again.X_train, first.X_train)
    np.testing.assert_array_equal(again.X_test, first.X_test)
