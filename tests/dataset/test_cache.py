"""The cache directory: resolution, refusal of unusable ones, and no path leading out of it."""
import os
import tempfile

import pytest

from rfbench.dataset import DatasetError
from rfbench.dataset.cache import cache_file, cache_writer, read_record, resolve_cache_dir, write_record
from rfbench.dataset.errors import CacheError


def test_cache_dir_from_argument_environment_or_repo(tmp_path, monkeypatch):
    monkeypatch.setenv("RFBENCH_CACHE", str(tmp_path / "env"))
    assert resolve_cache_dir(tmp_path / "arg") == tmp_path / "arg" and (tmp_path / "arg").is_dir()
    assert resolve_cache_dir() == tmp_path / "env" and (tmp_path / "env").is_dir()
    monkeypatch.delenv("RFBENCH_CACHE")
    assert resolve_cache_dir().name == "datasets" and (resolve_cache_dir().parent / "rfbench").is_dir()


def test_relative_cache_dir_is_resolved_against_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RFBENCH_CACHE", "cache")
    assert resolve_cache_dir() == tmp_path / "cache"


@pytest.mark.parametrize("kind, message", [("file", "is not a directory"),
                                           ("missing", "does not exist, nor does its parent")])
def test_unusable_cache_dir_from_the_environment_is_a_cache_error_naming_the_variable(tmp_path, monkeypatch,
                                                                                       kind, message):
    path = tmp_path / "cache" if kind == "file" else tmp_path / "no" / "cache"
    if kind == "file":
        path.write_text("x")
    monkeypatch.setenv("RFBENCH_CACHE", str(path))
    with pytest.raises(CacheError) as err:
        resolve_cache_dir()
    text = str(err.value)
    assert message in text and f"RFBENCH_CACHE={path}" in text
    assert "export RFBENCH_CACHE=/path/to/cache" in text


def test_unwritable_cache_is_a_cache_error_naming_the_variable(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path))
    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # as if the directory were read-only (root ignores modes)
    with pytest.raises(CacheError, match=r"cannot write .*Permission denied.*set RFBENCH_CACHE to a writable"):
        with cache_writer(cache_file(tmp_path, "toy", "toy.txt"), tmp_path) as f:
            f.write(b"never")
    assert not (tmp_path / "toy" / "toy.txt").exists()


def test_errors_inside_the_write_block_pass_through_and_leave_nothing(tmp_path):
    with pytest.raises(ZeroDivisionError):
        with cache_writer(cache_file(tmp_path, "toy", "toy.txt"), tmp_path) as f:
            f.write(b"half")
            1 / 0
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize("names", [("..", "x"), ("toy", ".."), ("/etc", "x"), ("toy", "a/b"), ("toy", "a\\b"),
                                   ("toy", ""), ("toy", "."), ("toy", "x\0y")])
def test_names_that_are_not_plain_are_refused(tmp_path, names):
    with pytest.raises(DatasetError, match="is not a plain file name"):
        cache_file(tmp_path, *names)


def test_a_symlinked_folder_leading_out_of_the_cache_is_refused(tmp_path):
    cache, outside = tmp_path / "cache", tmp_path / "outside"
    cache.mkdir()
    outside.mkdir()
    (cache / "toy").symlink_to(outside)
    with pytest.raises(CacheError, match=f"leads to {outside / 'toy.txt'}, outside the dataset cache {cache}"):
        cache_file(cache, "toy", "toy.txt")
    (cache / "inner").mkdir()
    (cache / "alias").symlink_to(cache / "inner")  # a link that stays inside is fine
    assert cache_file(cache, "alias", "toy.txt") == cache / "alias" / "toy.txt"


def test_a_folder_swapped_for_an_outside_symlink_after_the_check_is_caught_before_writing(tmp_path, monkeypatch):
    cache, outside = tmp_path / "cache", tmp_path / "outside"
    cache.mkdir()
    outside.mkdir()
    target = cache_file(cache, "toy", "toy.txt")   # checked while toy/ does not exist yet
    (cache / "toy").symlink_to(outside)
    with pytest.raises(CacheError, match="outside the dataset cache"):
        with cache_writer(target, cache) as f:
            f.write(b"x")
    assert list(outside.iterdir()) == []


def test_record_round_trip_and_unreadable_records(tmp_path):
    path = cache_file(tmp_path, "toy", "toy.txt")
    assert read_record(path) is None
    write_record(path, tmp_path, "ab" * 32, "file:///mirror/toy/toy.txt", pinned=True)
    assert read_record(path) == {"sha256": "ab" * 32, "source": "file:///mirror/toy/toy.txt", "pinned": True}
    for junk in ("{not json", "[1, 2]", '{"sha256": 5}'):
        (tmp_path / "toy" / "toy.txt.record.json").write_text(junk)
        assert read_record(path) is None
    assert not os.path.exists(tmp_path / "toy" / "toy.txt")  # a record never creates its file
