import os
import stat

import pytest

from rfbench import atomic


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
