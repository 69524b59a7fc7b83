import errno
import gzip
import logging
import multiprocessing
import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from rfbench.engine import config, frames, records
from rfbench.storage import atomic


def test_summarize_matches_pandas_mean_and_sample_std():
    trials = pd.DataFrame({"run_id": ["a"] * 3 + ["b"] * 2,
                           "test_accuracy": [0.9, 0.8, 0.7, 0.5, 0.6],
                           "dataset.name": ["s"] * 5})
    summary = records.summarize(trials).set_index("run_id")
    assert summary.loc["a", "test_accuracy_mean"] == pytest.approx(0.8)
    assert summary.loc["a", "test_accuracy_std"] == pytest.approx(0.1)
    assert summary.loc["b", "test_accuracy_count"] == 2


def _record_every_fourth(path, start):
    for t in range(start, 40, 4):
        records.record_trial(path, {"trial": t, "writer": start})


def test_concurrent_writers_keep_each_others_rows(tmp_path):
    path = tmp_path / "trials.csv"
    workers = [multiprocessing.get_context("fork").Process(target=_record_every_fourth, args=(path, i))
               for i in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    trials = pd.read_csv(path)
    assert list(trials["trial"]) == list(range(40))
    assert list(trials["writer"]) == [t % 4 for t in range(40)]


def test_first_recorded_row_of_a_trial_wins_and_clear_forgets_all(tmp_path):
    path = tmp_path / "trials.csv"
    records.record_trial(path, {"trial": 1, "value": 0.5})
    records.record_trial(path, {"trial": 0, "value": 0.1})
    trials = records.record_trial(path, {"trial": 1, "value": 0.9})
    assert trials.to_dict("list") == {"trial": [0, 1], "value": [0.1, 0.5]}
    assert records.recorded(path) == {0, 1}
    records.clear_trials(path)
    assert records.recorded(path) == set()


def test_a_claimed_trial_is_busy_for_others_until_released(tmp_path):
    with records.claim(tmp_path, 3) as mine:
        with records.claim(tmp_path, 3, wait=False) as other, records.claim(tmp_path, 4, wait=False) as free:
            assert mine and not other and free
    with records.claim(tmp_path, 3, wait=False) as again:
        assert again


def test_a_row_cut_short_is_not_a_recorded_trial_and_is_repaired(tmp_path, caplog):
    path = tmp_path / "trials.csv"
    for t in range(3):
        records.record_trial(path, {"trial": t, "test_accuracy": 0.5 + t / 10, "gram_error": 0.1})
    whole = path.read_text()
    assert whole.endswith("\n2,0.7,0.1\n")
    path.write_text(whole[:-5])  # cut inside the last row: "2,0.7" lost its Gram error
    assert records.recorded(path) == {0, 1}
    assert not records.read_trials(path).isna().any().any()
    with caplog.at_level("WARNING", logger="rfbench"):
        records.repair_trials(path)
    assert path.read_text() == whole[:whole.rindex("2,")]
    assert "incomplete last line" in caplog.text and "'2,0.7'" in caplog.text
    records.repair_trials(path)  # a whole file is left alone
    assert path.read_text() == whole[:whole.rindex("2,")]


def test_a_file_cut_inside_its_header_holds_no_trials(tmp_path):
    path = tmp_path / "trials.csv"
    path.write_text("trial,test_acc")
    assert records.recorded(path) == set() and records.read_trials(path).empty


def test_run_dir_without_trials_is_removed_unless_in_use(tmp_path):
    run = tmp_path / "runs" / config.run_id({"x": 1})  # the folder its config hashes to
    run.mkdir(parents=True)
    (run / "config.yaml").write_text("x: 1\n")
    with records.claim(run, 0):  # another process computing trial 0
        assert not records.remove_if_no_trials(run)
    records.record_trial(run / "trials.csv", {"trial": 1})
    assert not records.remove_if_no_trials(run)
    assert run.is_dir()
    records.clear_trials(run / "trials.csv")
    assert records.remove_if_no_trials(run)
    assert list(tmp_path.joinpath("runs").iterdir()) == []


def test_one_trial_shows_its_mean_without_a_nan_sd():
    summary = records.summarize(pd.DataFrame({"run_id": ["a"], "test_accuracy": [0.91]})).iloc[0]
    assert records.format_mean_sd(summary, "test_accuracy") == "0.9100"
    two = records.summarize(pd.DataFrame({"run_id": ["a", "a"], "test_accuracy": [0.9, 0.8]})).iloc[0]
    assert records.format_mean_sd(two, "test_accuracy") == f"0.8500 +- {0.1 / 2 ** 0.5:.4f}"


def test_where_the_data_came_from_is_not_a_config_column():
    """As in the run id: a URL's pinned hash or a mirror does not split a run into two series."""
    frame = pd.DataFrame(columns=["dataset.name", "dataset.mirror", "dataset.files.data.urls",
                                  "dataset.files.data.sha256", "experiment.trials", "test_accuracy"])
    assert records.config_columns(frame) == ["dataset.name", "dataset.files.data.sha256"]


def test_a_run_id_that_reads_as_a_number_stays_text(tmp_path):
    """Run ids are 12 hex digits: 3425406e1568 (a float's notation) and 012345678901 must survive a resume."""
    path = tmp_path / "trials.csv"
    for run_id in ("3425406e1568", "012345678901"):
        records.record_trial(path, {"run_id": run_id, "trial": 0, "x": 1.0})
        records.record_trial(path, {"run_id": run_id, "trial": 1, "x": 2.0})  # merges with the row read back
        assert records.read_trials(path)["run_id"].tolist() == [run_id, run_id]
        assert path.read_text().count(run_id) == 2
        path.unlink()


def large_frame(trial: int, rows: int = 4000) -> pd.DataFrame:
    """float64 values of every magnitude: 4000 rows of 4 columns are ~330 KB of CSV text, over the threshold."""
    rng = np.random.default_rng(trial)
    values = rng.standard_normal((rows, 4)) * np.exp(rng.uniform(-30, 30, (rows, 4)))
    return pd.DataFrame(values, columns=list("abcd")).assign(trial=trial)


def test_a_frame_over_the_threshold_is_stored_gzipped_and_read_back_bit_for_bit(tmp_path):
    path = tmp_path / "points.csv"
    frame = large_frame(0)
    assert len(frame.to_csv(index=False)) > frames.GZIP_ABOVE_BYTES
    records.record_grid(path, frame)
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["points.csv.gz"]
    assert frames.stored(path) == tmp_path / "points.csv.gz"
    assert records.read_text(path) == frame.to_csv(index=False)
    pd.testing.assert_frame_equal(records.read_trials(path), frame, check_exact=True)
    assert gzip.decompress((tmp_path / "points.csv.gz").read_bytes()).decode() == frame.to_csv(index=False)


def test_the_gzip_bytes_depend_on_the_text_alone(tmp_path):
    """No time, no file name in the header, a fixed level: re-recording a frame changes no committed byte."""
    first, second = tmp_path / "a" / "points.csv", tmp_path / "b" / "other.csv"
    records.record_grid(first, large_frame(0))
    records.record_grid(second, large_frame(0))
    data = frames.gzipped(first).read_bytes()
    assert data == frames.gzipped(second).read_bytes()
    assert data[3] == 0 and data[4:8] == bytes(4) and data[8:10] == b"\x02\x03"  # no FNAME; MTIME 0; XFL 2, OS 3
    assert gzip.decompress(data).decode() == large_frame(0).to_csv(index=False)
    records.record_grid(first, large_frame(0))  # the same trial recorded again: one member appended, read as before
    rows = large_frame(0).to_csv(index=False).partition("\n")[2]
    assert frames.gzipped(first).read_bytes() == data + frames.pack(rows)
    pd.testing.assert_frame_equal(records.read_trials(first), large_frame(0), check_exact=True)


def test_a_small_frame_stays_plain_a_gzipped_one_stays_gzipped_and_one_that_grows_switches(tmp_path):
    small, growing = tmp_path / "small.csv", tmp_path / "growing.csv"
    records.record_grid(small, large_frame(0, rows=10))
    assert small.exists() and not frames.gzipped(small).exists()
    texts = [pd.concat([large_frame(t, rows=7) for t in range(n)]).to_csv(index=False) for n in (3, 4)]
    assert len(texts[0]) <= frames.GZIP_ABOVE_BYTES < len(texts[1])  # ~580 B a trial: over it at the fourth
    for t in range(3):
        records.record_grid(growing, large_frame(t, rows=7))
    assert growing.exists() and not frames.gzipped(growing).exists()
    records.record_grid(growing, large_frame(3, rows=7))
    assert not growing.exists() and frames.gzipped(growing).exists()
    assert records.read_text(growing) == texts[1]
    records.record_grid(growing, large_frame(3, rows=1))  # shrinks below the threshold: still gzipped
    assert not growing.exists() and frames.gzipped(growing).exists() and len(records.read_trials(growing)) == 22


def _bytes_written() -> int:
    """The bytes this process has passed to write(2) so far (Linux's /proc/self/io)."""
    return int(re.search(r"wchar: (\d+)", Path("/proc/self/io").read_text())[1])


def _rows(frame: pd.DataFrame) -> str:
    """A trial's CSV lines without the header: what an append adds to a gzipped frame."""
    return frame.to_csv(index=False).partition("\n")[2]


def test_recording_a_trial_in_a_gzipped_frame_writes_that_trials_member_alone(tmp_path):
    """O(the trial), not O(the frame): each trial costs its own gzip member (and the lock's note), however many
    trials the frame holds already; the frame reads back as recorded."""
    path = tmp_path / "points.csv"
    records.record_grid(path, large_frame(0))  # over the threshold: gzipped from the first trial
    written = []
    for t in range(1, 16):
        before = _bytes_written()
        records.record_grid(path, large_frame(t, rows=500))
        written.append(_bytes_written() - before)
    members = [len(frames.pack(_rows(large_frame(t, rows=500)))) for t in range(1, 16)]
    assert written == [member + len(records._APPENDING) for member in members]
    assert frames.gzipped(path).stat().st_size > 5 * max(written)  # the frame is much larger than an append
    whole = pd.concat([large_frame(0), *(large_frame(t, rows=500) for t in range(1, 16))], ignore_index=True)
    pd.testing.assert_frame_equal(records.read_trials(path), whole, check_exact=True)


def test_a_trial_appended_again_after_a_kill_is_read_from_its_latest_member(tmp_path):
    run = tmp_path / "runs" / "abc"
    path = run / "points.csv"
    records.record_grid(path, large_frame(0))
    records.record_trial(run / "trials.csv", {"trial": 0})
    records.record_grid(path, large_frame(1, rows=50).assign(a=0.0))  # killed before its row: no result
    records.record_grid(path, large_frame(2, rows=50))
    records.record_trial(run / "trials.csv", {"trial": 2})
    records.record_grid(path, large_frame(1, rows=50))  # computed again by the next run
    records.record_trial(run / "trials.csv", {"trial": 1})
    assert len(frames.load(frames.gzipped(path)).members) == 4
    whole = pd.concat([large_frame(0), large_frame(1, rows=50), large_frame(2, rows=50)], ignore_index=True)
    pd.testing.assert_frame_equal(records.read_trials(path), whole, check_exact=True)  # sorted by trial, as before
    assert records.read_text(path) == whole.to_csv(index=False)  # what a migration rewrites


def test_rows_with_other_columns_rewrite_the_gzipped_frame_whole(tmp_path):
    path = tmp_path / "points.csv"
    records.record_grid(path, large_frame(0))
    records.record_grid(path, large_frame(1, rows=5).assign(e=1.5))
    assert len(frames.load(frames.gzipped(path)).members) == 1
    read = records.read_trials(path)
    assert read["e"].isna().sum() == 4000 and (read.loc[read["trial"] == 1, "e"] == 1.5).all()


def _killed_mid_append(path: Path) -> None:
    """Record trial 1 in the gzipped frame ``path``, killed (SIGKILL) once half its member is on disk."""
    write = os.write

    def half_then_killed(fd, data):
        write(fd, bytes(data[:len(data) // 2]))
        os.kill(os.getpid(), signal.SIGKILL)
    atomic.os.write = half_then_killed
    records.record_grid(path, large_frame(1, rows=500))


@pytest.mark.parametrize("resumed", [True, False])
def test_an_append_killed_midway_is_refused_then_cut_off_by_the_resume_or_the_next_writer(tmp_path, caplog, resumed):
    run = tmp_path / "runs" / "abc"
    path, packed = run / "points.csv", run / "points.csv.gz"
    records.record_grid(path, large_frame(0))
    records.record_trial(run / "trials.csv", {"trial": 0})
    size = packed.stat().st_size
    killed = multiprocessing.get_context("fork").Process(target=_killed_mid_append, args=(path,))
    killed.start()
    killed.join()
    assert killed.exitcode == -signal.SIGKILL and packed.stat().st_size > size
    with pytest.raises(records.RecordError, match=re.escape(f"{packed} is cut short (its gzip stream ends early)")):
        records.read_trials(path)  # never read in part
    with caplog.at_level("WARNING", logger="rfbench"):
        if resumed:  # the run, resuming
            records.repair_run(run, started=time.time())
            assert packed.stat().st_size == size and records.recorded(run / "trials.csv") == {0}
        records.record_grid(path, large_frame(1, rows=500))  # else another run at work, after the kill
    assert "keeping its whole gzip members" in caplog.text
    records.record_trial(run / "trials.csv", {"trial": 1})
    whole = pd.concat([large_frame(0), large_frame(1, rows=500)], ignore_index=True)
    pd.testing.assert_frame_equal(records.read_trials(path), whole, check_exact=True)
    assert records._lock_of(path).read_bytes() == b""


def test_a_reader_that_meets_an_append_under_way_waits_for_its_writer(tmp_path):
    path = tmp_path / "points.csv"
    records.record_grid(path, large_frame(0))
    member = frames.pack(_rows(large_frame(1, rows=50)))
    read = []
    with records.locked(records._lock_of(path)), open(frames.gzipped(path), "ab") as handle:
        handle.write(member[:100])
        handle.flush()
        reader = threading.Thread(target=lambda: read.append(records.read_trials(path)))
        reader.start()
        time.sleep(0.3)  # the reader meets the member cut short, and waits for the lock
        handle.write(member[100:])
    reader.join()
    whole = pd.concat([large_frame(0), large_frame(1, rows=50)], ignore_index=True)
    pd.testing.assert_frame_equal(read[0], whole, check_exact=True)


def test_a_damaged_gzipped_frame_is_refused_to_its_writer_too(tmp_path):
    """The writer holds the frame's lock: its own read of a damaged member refuses it, never waits for itself."""
    path = tmp_path / "points.csv"
    records.record_grid(path, large_frame(0))
    records.record_grid(path, large_frame(1, rows=50))
    packed = frames.gzipped(path)
    packed.write_bytes(packed.read_bytes()[:-100])  # damage the last member, not by an append (no note)
    raised = []

    def record() -> None:
        try:
            records.record_grid(path, large_frame(2, rows=50).assign(e=1.0))  # other columns: the frame is read
        except records.RecordError as err:
            raised.append(str(err))
    writer = threading.Thread(target=record)
    writer.start()
    writer.join(timeout=60)
    assert not writer.is_alive() and raised and f"{packed} is cut short" in raised[0]


def _killed_between_gz_and_unlink(path):
    """Record a trial that switches ``path`` to gzip, killed (SIGKILL) once the .gz is in place."""
    Path.unlink = lambda self, missing_ok=False: os.kill(os.getpid(), signal.SIGKILL)
    records.record_grid(path, large_frame(1))


def test_an_interrupted_switch_to_gzip_reads_the_gz_and_is_finished_by_the_run(tmp_path, caplog):
    run = tmp_path / "runs" / "abc"
    path = run / "points.csv"
    records.record_grid(path, large_frame(0, rows=10))  # plain: under the threshold
    records.record_trial(run / "trials.csv", {"trial": 0})
    killed = multiprocessing.get_context("fork").Process(target=_killed_between_gz_and_unlink, args=(path,))
    killed.start()
    killed.join()
    assert killed.exitcode == -signal.SIGKILL
    assert path.exists() and frames.gzipped(path).exists()  # the trace of the interrupted switch
    assert records.read_trials(path)["trial"].value_counts().to_dict() == {0: 10, 1: 4000}  # the .gz: every row
    with caplog.at_level("WARNING", logger="rfbench"):
        records.repair_run(run, started=time.time())  # the run itself, resuming
    assert not path.exists() and "a switch to gzip was interrupted" in caplog.text
    assert records.read_trials(path)["trial"].value_counts().to_dict() == {0: 10, 1: 4000}  # every row kept


@pytest.mark.parametrize("damage, says", [
    (lambda data: data[:len(data) // 2], "cut short (its gzip stream ends early)"),
    (lambda data: data[:-8], "cut short (its gzip stream ends early)"),  # the CRC and length lost
    (lambda data: data[:5000] + bytes([data[5000] ^ 0xFF]) + data[5001:], "damaged (not a whole gzip stream"),
    (lambda data: data[:-8] + bytes(8), "damaged (not a whole gzip stream"),  # a wrong CRC
    (lambda data: data + b"x", "damaged (bytes after its gzip stream)"),
])
def test_a_cut_or_corrupt_gzip_frame_is_an_error_or_damage_never_read_in_part(tmp_path, damage, says):
    path = tmp_path / "points.csv"
    records.record_grid(path, large_frame(0))
    packed = frames.gzipped(path)
    packed.write_bytes(damage(packed.read_bytes()))
    with pytest.raises(records.RecordError, match=re.escape(f"{packed} is {says}")):
        records.read_trials(path)
    assert says in records.table_damage(path) and not records.complete(path)


def test_records_are_found_in_either_form_by_their_csv_name(tmp_path):
    for name in ("runs/a/grid.csv", "runs/b/grid.csv.gz", "runs/b/trials.csv", "runs/c/points.csv.gz"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).touch()
    assert frames.record_paths(tmp_path, "runs/*/grid.csv") == [tmp_path / "runs/a/grid.csv",
                                                                 tmp_path / "runs/b/grid.csv"]
    assert frames.frame_paths(tmp_path / "runs/b") == [tmp_path / "runs/b/grid.csv"]


@pytest.mark.parametrize("rows, damage, kept", [
    (6, lambda data: data[:-7], [0, 1]),  # a plain frame's last line cut (under the threshold): trial 2 is recomputed
    # a .gz is trial 0's member, written whole (over the threshold), then trial 1's and 2's, appended
    (4000, lambda data: data[:1000], []),  # cut inside its first member: nothing whole is left
    (4000, lambda data: data[:-1000], [0, 1]),  # cut inside trial 2's member: the members before it are whole
    (4000, lambda data: data[:-8] + bytes(8), [0, 1]),  # trial 2's member failing its CRC: the others pass theirs
])
def test_a_resume_keeps_the_whole_trials_of_a_damaged_frame_and_forgets_the_others(tmp_path, caplog, rows, damage,
                                                                                   kept):
    run = tmp_path / "runs" / "abc"
    path = run / "points.csv"
    for t in range(3):
        records.record_grid(path, large_frame(t, rows=rows))
        records.record_trial(run / "trials.csv", {"trial": t})
    found = frames.stored(path)
    found.write_bytes(damage(found.read_bytes()))
    with caplog.at_level("WARNING", logger="rfbench"):
        records.repair_run(run, started=time.time())
    assert "computed again" in caplog.text
    assert records.recorded(run / "trials.csv") == set(kept)
    if kept:
        whole = pd.concat([large_frame(t, rows) for t in kept], ignore_index=True)
        pd.testing.assert_frame_equal(records.read_trials(path), whole, check_exact=True)
    else:
        assert records.read_trials(path).empty


def test_a_repair_stopped_before_rewriting_the_frame_is_finished_by_the_next_resume(tmp_path, monkeypatch):
    run = tmp_path / "runs" / "abc"
    path = run / "points.csv"
    for t in range(3):
        records.record_grid(path, large_frame(t, rows=6))  # plain: under the threshold
        records.record_trial(run / "trials.csv", {"trial": t})
    path.write_bytes(path.read_bytes()[:-7])  # trial 2's last row cut
    write_frame = records.write_frame

    def stopped(record, text):  # stopped before rewriting the frame; the table of trials is written
        if record == path:
            raise KeyboardInterrupt
        write_frame(record, text)
    with monkeypatch.context() as patch:
        patch.setattr(records, "write_frame", stopped)
        with pytest.raises(KeyboardInterrupt):
            records.repair_run(run, started=time.time())
    assert records.recorded(run / "trials.csv") == {0, 1}  # the table forgot first: trial 2 is not taken as done
    records.repair_run(run, started=time.time())
    assert records.recorded(run / "trials.csv") == {0, 1}
    whole = pd.concat([large_frame(t, 6) for t in (0, 1)], ignore_index=True)
    pd.testing.assert_frame_equal(records.read_trials(path), whole, check_exact=True)


# A run folder proves its identity (issue 48, point 1).

RUN_CONFIG = {"kernel": {"name": "gaussian", "sigma": 2.0}, "experiment": {"name": "exp", "seed": 0}}


def write_run(root: Path, cfg=RUN_CONFIG, accuracies=(0.75, 0.5)) -> Path:
    """A run folder as the runner leaves it: config.yaml, then one trials.csv row per trial."""
    run = root / "exp" / "runs" / config.run_id(cfg)
    run.mkdir(parents=True)
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    for t, accuracy in enumerate(accuracies):
        records.record_trial(run / "trials.csv", {**config.flatten(cfg), "run_id": run.name, "trial": t,
                                                  "test_accuracy": accuracy})
    return run


def test_a_run_whose_trials_outgrow_the_threshold_keeps_trials_csv_gzipped_and_every_reader_finds_it(tmp_path):
    """A new run comes out compact by itself: its index switches to trials.csv.gz once over the threshold, read
    back bit for bit by the readers (collect globs either form); summary.csv stays plain."""
    accuracies = np.random.default_rng(0).uniform(0, 1, 40)
    run = write_run(tmp_path, accuracies=accuracies)
    index = run / "trials.csv"
    assert not index.exists() and frames.stored(index) == frames.gzipped(index)
    text = gzip.decompress(frames.gzipped(index).read_bytes()).decode()
    assert len(text) > frames.GZIP_ABOVE_BYTES and records.read_text(index) == text
    trials = records.read_trials(index)
    assert trials["test_accuracy"].tolist() == accuracies.tolist()  # float64 bit for bit
    pd.testing.assert_frame_equal(records.collect(tmp_path), trials, check_exact=True)
    assert records.recorded(index) == set(range(40))
    records.write_csv(run / frames.DERIVED, records.summarize(trials))
    assert records.record_paths(run) == [run / frames.DERIVED, index]
    assert frames.frame_paths(run) == []


@pytest.mark.parametrize(("damage", "says", "kept"), [
    (lambda data: data[:-8] + bytes(8), "damaged (not a whole gzip stream", 0),  # a wrong CRC: no line trusted
    (lambda data: data[:len(data) // 2], "cut short (its gzip stream ends early)", None),  # its whole lines kept
])
def test_a_damaged_gzipped_index_is_refused_by_every_reader_and_cut_to_its_whole_lines_by_the_resume(
        tmp_path, caplog, damage, says, kept):
    run = write_run(tmp_path, accuracies=np.linspace(0, 1, 40))
    packed = frames.gzipped(run / "trials.csv")
    whole = records.read_trials(run / "trials.csv")
    packed.write_bytes(damage(packed.read_bytes()))
    for read in (records.read_trials, records.recorded, lambda path: records.collect(tmp_path)):
        with pytest.raises(records.RecordError, match=re.escape(f"trials.csv.gz is {says}")):
            read(run / "trials.csv")
    shown = frames.load(packed).cut.count("\n") - 1  # the rows whole in what the cut member still shows
    with caplog.at_level(logging.WARNING, "rfbench"):
        records.repair_run(run, started=time.time())
    assert f"trials.csv.gz is {says}" in caplog.text and "keeping the rows of its whole lines" in caplog.text
    left = records.read_trials(run / "trials.csv")
    if kept == 0:
        assert left.empty and records.recorded(run / "trials.csv") == set()
    else:  # a cut member shows some of its rows whole, not all
        assert 0 < shown < 40 and len(left) == shown
        pd.testing.assert_frame_equal(left, whole.iloc[:shown], check_exact=True)


def test_a_run_folder_whose_config_was_edited_is_refused_naming_both_ids_and_the_repair(tmp_path):
    run = write_run(tmp_path)
    edited = {**RUN_CONFIG, "kernel": {"name": "gaussian", "sigma": 7.5}}
    (run / "config.yaml").write_text(yaml.safe_dump(edited))
    with pytest.raises(records.RecordError, match=rf"hashes to run id {config.run_id(edited)}, not {run.name}.*"
                                                  r"git checkout .*python -m rfbench.engine.migrate"):
        records.recorded(run / "trials.csv")
    with pytest.raises(records.RecordError, match=config.run_id(edited)):
        records.collect(tmp_path)


def test_rows_of_another_run_are_refused_naming_their_lines_and_ids(tmp_path):
    run = write_run(tmp_path)
    text = (run / "trials.csv").read_text().splitlines()
    (run / "trials.csv").write_text("\n".join([*text[:2], text[2].replace(run.name, "0123456789ab")]) + "\n")
    with pytest.raises(records.RecordError, match=rf"line\(s\) 3 carry run id\(s\) \['0123456789ab'\], not {run.name}"):
        records.read_trials(run / "trials.csv")


@pytest.mark.parametrize(("value", "says"), [(None, "identical copies: rerun the run's command"),
                                             ("0.25", "with different values: remove the wrong row")])
def test_a_trial_recorded_twice_is_refused_by_every_reader_naming_its_lines(tmp_path, value, says):
    run = write_run(tmp_path)
    lines = (run / "trials.csv").read_text().splitlines()
    copy = lines[1] if value is None else lines[1].replace(",0.75", f",{value}")
    (run / "trials.csv").write_text("\n".join([*lines, copy]) + "\n")
    for read in (records.read_trials, records.recorded, lambda path: records.collect(tmp_path)):
        with pytest.raises(records.RecordError, match=rf"trial\(s\) \[0\] recorded more than once \(lines 2, 4\), "
                                                      f"{says}"):
            read(run / "trials.csv")


def test_the_resume_drops_exact_copies_saying_so_and_keeps_conflicting_rows_for_the_readers(tmp_path, caplog):
    run = write_run(tmp_path)
    lines = (run / "trials.csv").read_text().splitlines()
    (run / "trials.csv").write_text("\n".join([*lines, lines[1], lines[2]]) + "\n")
    with caplog.at_level(logging.WARNING, "rfbench"):
        records.repair_run(run, started=time.time())
    assert "dropped line(s) 4, 5, exact copies of earlier rows of trial(s) [0, 1]" in caplog.text
    assert (run / "trials.csv").read_text().splitlines() == lines
    (run / "trials.csv").write_text("\n".join([*lines, lines[1].replace(",0.75", ",0.25")]) + "\n")
    records.repair_run(run, started=time.time())
    with pytest.raises(records.RecordError, match="with different values"):
        records.recorded(run / "trials.csv")


@pytest.mark.parametrize(("text", "says"), [("", "is empty, not the mapping"), ("[1, 2]\n", "is a YAML list"),
                                            ("a: [1\n", "is not YAML")])
def test_a_config_that_is_no_mapping_is_refused(tmp_path, text, says):
    run = write_run(tmp_path)
    (run / "config.yaml").write_text(text)
    with pytest.raises(records.RecordError, match=says):
        records.read_trials(run / "trials.csv")


def test_the_config_is_checked_against_the_rows_it_says_it_ran(tmp_path):
    run = write_run(tmp_path)
    trials = records.read_trials(run / "trials.csv")
    assert records.disagreement(RUN_CONFIG, trials) is None
    edited = {**RUN_CONFIG, "kernel": {"name": "gaussian", "sigma": 7.5}}
    assert records.disagreement(edited, trials) == "kernel.sigma=7.5 in config.yaml, 2.0 in its trials"
    assert records.disagreement({**RUN_CONFIG, "experiment": {"name": "x", "seed": 0}}, trials) is None


# Faults of the machine are one line (issue 48, point 2).

def test_a_fifo_or_a_folder_where_a_record_belongs_is_refused_without_blocking(tmp_path):
    run = write_run(tmp_path)
    (run / "trials.csv").unlink()
    os.mkfifo(run / "trials.csv")  # opening it for reading would wait for a writer forever
    with pytest.raises(records.RecordError, match="trials.csv is a FIFO, not a regular file"):
        records.recorded(run / "trials.csv")
    os.mkfifo(run / ".grid.csv.lock")
    with pytest.raises(records.RecordError, match="is not a regular file"):
        records.record_grid(run / "grid.csv", pd.DataFrame({"trial": [0]}))
    (run / "grid.csv").mkdir()
    with pytest.raises(records.RecordError, match="grid.csv is a folder, not a regular file"):
        records.read_text(run / "grid.csv")


@pytest.mark.parametrize("gzipped", [False, True])
def test_bytes_that_are_not_utf8_are_refused_naming_the_file_and_offset(tmp_path, gzipped):
    data = b"trial,x\n0,\xff\n"
    path = tmp_path / ("grid.csv.gz" if gzipped else "grid.csv")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    with pytest.raises(records.RecordError, match=r"grid.csv(.gz)? is not UTF-8 text \(byte 0xff at offset 10\)"):
        records.read_trials(tmp_path / "grid.csv")


@pytest.mark.parametrize(("code", "says"), [(errno.EROFS, "the file system is read-only"),
                                            (errno.ENOSPC, "the file system is full"),
                                            (errno.EACCES, "permission denied")])
def test_a_refused_write_is_one_line_and_leaves_the_records_as_they_were(tmp_path, monkeypatch, code, says):
    run = write_run(tmp_path)
    before = (run / "trials.csv").read_bytes()

    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(run / "trials.csv"))

    monkeypatch.setattr(atomic.os, "fsync", refuse)
    with pytest.raises(records.MachineFault, match=rf"cannot use {run}/trials.csv: {says} .*rerun the same command "
                                                   "to resume"), records.machine_faults():
        records.record_trial(run / "trials.csv", {**config.flatten(RUN_CONFIG), "run_id": run.name, "trial": 2})
    assert (run / "trials.csv").read_bytes() == before and not list(run.glob(".*.part"))


def test_a_file_where_a_folder_belongs_is_named(tmp_path):
    (tmp_path / "runs").write_text("")
    with pytest.raises(records.MachineFault, match=rf"cannot use {tmp_path}/runs: a file stands where a folder "
                                                   "belongs"), records.machine_faults():
        (tmp_path / "runs" / "abc").mkdir(parents=True, exist_ok=True)


# Waiting says who is holding (issue 48, point 5).

def _hold_claim(run: Path, held) -> None:
    with records.claim(run, 3):
        held.set()
        time.sleep(60)


def test_a_waiting_run_names_the_holder_of_a_claim_and_sees_it_stopped(tmp_path, caplog, monkeypatch):
    held = multiprocessing.get_context("fork").Event()
    child = multiprocessing.get_context("fork").Process(target=_hold_claim, args=(tmp_path, held), daemon=True)
    child.start()
    try:
        assert held.wait(30)
        lock = tmp_path / ".claims" / "trial-3.lock"
        running = rf"pid {child.pid} on host \S+ since \d\d:\d\d:\d\d UTC \(running: .*"
        assert re.fullmatch(running, records.holder(lock))
        os.kill(child.pid, signal.SIGSTOP)
        time.sleep(0.2)
        assert f"(stopped: suspended by Ctrl-Z or SIGSTOP; resume it with fg in its shell or kill -CONT {child.pid}" \
            in records.holder(lock)
        threading.Timer(1.5, os.kill, (child.pid, signal.SIGKILL)).start()  # the kernel frees a dead holder's lock
        monkeypatch.setattr(records, "CLAIM_POLL_SECONDS", 0.1)
        with caplog.at_level(logging.WARNING, "rfbench"), records.claim(tmp_path, 3) as mine:
            assert mine
        assert f"trial 3 of run {tmp_path.name} is claimed by pid {child.pid}" in caplog.text
        assert "(stopped: " in caplog.text
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.join()
