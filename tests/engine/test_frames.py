import gzip

import pytest

from rfbench.engine import frames


def test_pack_is_a_gzip_member_whose_header_holds_no_time_name_or_python_version():
    text = "a,b\n" + "".join(f"{i},{i * i}\n" for i in range(5000))
    data = frames.pack(text)
    assert gzip.decompress(data).decode() == text
    assert data[:10] == b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03"
    assert frames.pack(text) == data


def test_a_reader_that_meets_a_switch_to_gzip_reads_the_gz(tmp_path, monkeypatch):
    """The .csv was there when the reader looked, and gone (the .gz whole) when it opened it."""
    path = tmp_path / "grid.csv"
    frames.gzipped(path).write_bytes(frames.pack("trial\n0\n"))
    monkeypatch.setattr(frames, "stored", lambda p: p)  # what stored() returned before the switch
    assert frames.read_text(path) == "trial\n0\n"
    frames.gzipped(path).unlink()
    with pytest.raises(FileNotFoundError):
        frames.read_text(path)


def test_the_index_is_always_read_plain(tmp_path):
    index = tmp_path / frames.INDEX
    index.write_text("trial\n0\n")
    frames.gzipped(index).write_bytes(frames.pack("trial\n0\n1\n"))  # not rfbench's: never read
    assert frames.stored(index) == index and frames.read_text(index) == "trial\n0\n"
