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
    assert frames.read(path) == (frames.gzipped(path), frames.Stored(["trial\n0\n"], "", len(frames.pack("trial\n0\n")),
                                                                     None))
    frames.gzipped(path).unlink()
    with pytest.raises(FileNotFoundError):
        frames.read(path)


def test_the_index_is_stored_as_a_frame_is_and_the_summary_always_plain(tmp_path):
    large = "trial\n" + "".join(f"{t}\n" for t in range(frames.GZIP_ABOVE_BYTES // 2))
    index, summary = tmp_path / frames.INDEX, tmp_path / frames.DERIVED
    assert frames.stored_gzipped(index, large) and not frames.stored_gzipped(index, "trial\n0\n")
    assert not frames.stored_gzipped(summary, large)
    summary.write_text("trial\n0\n")
    frames.gzipped(summary).write_bytes(frames.pack("trial\n0\n1\n"))  # not rfbench's: never read
    assert frames.stored(summary) == summary and frames.read(summary)[1].text == "trial\n0\n"


def test_a_frame_of_appended_members_is_read_member_by_member_and_its_damage_named(tmp_path):
    path = tmp_path / "grid.csv.gz"
    first, second = frames.pack("trial,x\n0,1\n"), frames.pack("1,2\n")
    path.write_bytes(first + second)
    assert frames.load(path) == frames.Stored(["trial,x\n0,1\n", "1,2\n"], "", len(first + second), None)
    assert gzip.decompress(path.read_bytes()).decode() == "trial,x\n0,1\n1,2\n"  # zcat reads one CSV
    cut = frames.pack("2,3\n3,4\n")[:-3]  # an append killed before its CRC and length were written
    path.write_bytes(first + second + cut)
    held = frames.load(path)
    assert held.members == ["trial,x\n0,1\n", "1,2\n"] and held.end == len(first + second)
    assert held.damage == "cut short (its gzip stream ends early)" and held.cut == "2,3\n3,4\n"
    path.write_bytes(first + b"\x1f\x8b" + bytes(20))  # a member's magic, then no gzip member
    assert frames.load(path).damage.startswith("damaged (not a whole gzip stream")
    path.write_bytes(first + b"x")
    bytes_after = "damaged (bytes after its gzip stream)"
    assert frames.load(path) == frames.Stored(["trial,x\n0,1\n"], "", len(first), bytes_after)


def test_the_header_of_a_gzipped_frame_is_read_without_inflating_the_rest(tmp_path):
    path = tmp_path / "grid.csv.gz"
    path.write_bytes(frames.pack("trial,x\n" + "0,1\n" * 10) + b"not a member")
    assert frames.header(path) == "trial,x"
    path.write_bytes(frames.pack("trial,x")[:-12])  # no whole line
    assert frames.header(path) is None
