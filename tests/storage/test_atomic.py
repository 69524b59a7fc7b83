import multiprocessing
import os
import signal
import stat
import time

import pytest

from rfbench.storage import atomic


def test_replaces_only_on_success_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.bin"
    with atomic.atomic_write(target) as handle:
        handle.write(b"old")
    with pytest.raises(KeyboardInterrupt), atomic.atomic_write(target) as handle:
        handle.write(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_permissions_follow_the_umask_like_open(tmp_path):
    with atomic.atomic_write(tmp_path / "a.txt", "w") as handle:
        handle.write("x")
    with open(tmp_path / "b.txt", "w") as handle:
        handle.write("x")
    mode = [stat.S_IMODE(os.stat(tmp_path / name).st_mode) for name in ("a.txt", "b.txt")]
    assert mode[0] == mode[1] == 0o666 & ~atomic._UMASK


def _killed_at_rename(path):
    """A writer killed (SIGKILL) between writing its temporary and renaming it into place."""
    def kill(*_):
        os.kill(os.getpid(), signal.SIGKILL)

    atomic.os.replace = kill
    with atomic.atomic_write(path, "w") as handle:
        handle.write("complete, but never renamed")


def _writing(path, started, release):
    with atomic.atomic_write(path, "w") as handle:
        handle.write("in progress")
        started.set()
        release.wait(30)


def test_only_temporaries_of_dead_writers_are_removed(tmp_path):
    fork = multiprocessing.get_context("fork")
    for _ in range(3):  # as after three kills at rename time
        killed = fork.Process(target=_killed_at_rename, args=(tmp_path / "trials.csv",))
        killed.start()
        killed.join()
        assert killed.exitcode == -signal.SIGKILL
    started, release = fork.Event(), fork.Event()
    live = fork.Process(target=_writing, args=(tmp_path / "summary.csv", started, release))
    live.start()
    assert started.wait(30)
    time.sleep(0.05)  # mtimes have a clock tick's resolution
    before = time.time()
    dead = sorted(tmp_path.glob(".trials.csv.*.part"))
    assert len(dead) == 3
    fresh = tmp_path / ".config.yaml.new.part"  # unlocked, but newer than `before`: maybe not yet locked
    fresh.write_text("")
    os.utime(fresh, (before + 60, before + 60))

    assert sorted(atomic.remove_stale_temporaries(tmp_path, before)) == dead
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [fresh.name, *(p.name for p in tmp_path.glob(".summary.csv.*.part"))])
    release.set()
    live.join()
    assert (tmp_path / "summary.csv").read_text() == "in progress"
    assert [p.name for p in tmp_path.glob(".summary.csv.*")] == []


def test_write_atomic_leaves_no_temporary_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "trials.csv"
    atomic.write_atomic(target, "old\n")

    def boom(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        atomic.write_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["trials.csv"]
