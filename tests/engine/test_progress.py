"""Run progress and the console of a run: bars on a terminal, plain done/total lines elsewhere; the model's
path once, each trial's line in run.log, the run folder named, a resume's count of recorded trials."""
import contextlib
import fcntl
import io
import logging
import multiprocessing
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from rfbench.engine import progress, runner
from tests.conftest import REPO


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("ci, expected", [(None, True), ("true", False), ("1", False), ("false", True)])
def test_bars_only_on_a_terminal_outside_ci(monkeypatch, ci, expected):
    monkeypatch.delenv("CI", raising=False)
    if ci is not None:
        monkeypatch.setenv("CI", ci)
    assert progress.interactive(FakeTerminal()) is expected
    assert progress.interactive(io.StringIO()) is False


def test_plain_lines_count_trials_and_give_an_eta(caplog):
    stream = io.StringIO()
    with caplog.at_level(logging.INFO, logger="rfbench"), progress.trial_progress(4, 1, stream) as bar:
        for _ in range(3):
            bar.fits(1, 2)
            bar.trial_done()
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split(",")[0] for line in lines] == [f"progress: {n}/4 trials" for n in (2, 3, 4)]
    assert all("ETA" in line for line in lines) and lines[-1].endswith("ETA 00:00")
    assert stream.getvalue() == ""  # no bar


def test_plain_lines_report_fits_at_most_once_per_interval(caplog, monkeypatch):
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 0.0)
    with caplog.at_level(logging.INFO, logger="rfbench"), progress.trial_progress(2, 0, io.StringIO()) as bar:
        bar.fits(3, 55)
    assert caplog.records[-1].getMessage() == "progress: trial 1/2, model selection 3/55 fits"
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 1e9)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="rfbench"), progress.trial_progress(2, 0, io.StringIO()) as bar:
        bar.fits(3, 55)
    assert caplog.records == []


def test_plain_lines_name_the_run(caplog, monkeypatch):
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 0.0)
    with caplog.at_level(logging.INFO, logger="rfbench"), \
            progress.trial_progress(2, 0, io.StringIO(), name="run 1f53369a7940") as bar:
        bar.fits(3, 55)
        bar.trial_done()
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == "progress: run 1f53369a7940, trial 1/2, model selection 3/55 fits"
    assert lines[1].startswith("progress: run 1f53369a7940, 1/2 trials, ")


def test_terminal_bars_show_trials_and_fits(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    terminal = FakeTerminal()
    with progress.trial_progress(3, 1, terminal) as bar:
        bar.fits(1, 5)
        assert "fits:" in terminal.getvalue() and "/5 " in terminal.getvalue()
        bar.trial_done()
    shown = terminal.getvalue()  # tqdm redraws at most every 0.1 s, and when a bar closes
    assert "trials:" in shown and "2/3 " in shown and "\r" in shown


def test_fits_of_several_trials_at_work_add_up_on_the_bar(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    terminal = FakeTerminal()
    with progress.trial_progress(4, 1, terminal) as bar:
        bar.fits(3, 10, 1)
        bar.fits(4, 10, 2)  # two workers' trials at once
        assert bar._fits.n == 7 and bar._fits.total == 20
        bar.trial_done(1)
        bar.fits(5, 10, 2)
        assert bar._fits.n == 5 and bar._fits.total == 10


def test_plain_fit_lines_name_the_trials_at_work(caplog, monkeypatch):
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 0.0)
    with caplog.at_level(logging.INFO, logger="rfbench"), progress.trial_progress(10, 2, io.StringIO()) as bar:
        bar.fits(3, 55, 2)
        bar.fits(4, 55, 3)
    assert caplog.records[-1].getMessage() == "progress: trials 3-4/10, model selection 7/110 fits"


def _send_fits(fits) -> None:
    fits.put((5, 2, 8))


def test_the_workers_fits_reach_the_parents_bar():
    """A forked worker's (trial, done, total) on the queue moves the parent's count inside that trial."""
    context = multiprocessing.get_context("fork")
    fits = context.Queue()
    with progress.trial_progress(10, 0, io.StringIO()) as bar, runner._forwarded_fits(fits, bar):
        worker = context.Process(target=_send_fits, args=(fits,))
        worker.start()
        worker.join()
        deadline = time.monotonic() + 10
        while not bar._fit_counts and time.monotonic() < deadline:
            time.sleep(0.05)
    assert bar._fit_counts == {5: (2, 8)}


def test_the_model_line_passes_once_per_run(caplog):
    with caplog.at_level(logging.INFO, logger="rfbench"):
        with progress.trial_progress(3, 0, io.StringIO()):
            for _ in range(3):
                progress.log.info("model: solver=newton, exact, on %d rows", 40)
            progress.log.info("model: LibLinear -s 1 on dense features")  # another path: shown too
        with progress.trial_progress(3, 0, io.StringIO()):  # the next run shows its own
            progress.log.info("model: solver=newton, exact, on %d rows", 40)
    assert [r.getMessage() for r in caplog.records] == [
        "model: solver=newton, exact, on 40 rows", "model: LibLinear -s 1 on dense features",
        "model: solver=newton, exact, on 40 rows"]


def run_rfbench(results_dir, env=None, trials=2, **popen) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rfbench", f"experiment.results_dir={results_dir}", f"experiment.trials={trials}",
           "experiment.n_gram=100", "classifier.log2_C=[0,4]"]
    return subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})}, **popen)


def console(results_dir: Path, trials: int) -> str:
    """What a run of ``trials`` trials prints in CI (stdout and stderr, as a CI log shows them)."""
    proc = run_rfbench(results_dir, {"CI": "true"}, trials, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    return out


@pytest.mark.slow
def test_the_console_of_a_run_is_quiet_and_names_its_folder(tmp_path):
    out = console(tmp_path, 3)  # trial 1 here, trials 2 and 3 in forked workers (2 cores)
    (run,) = (tmp_path / "default" / "runs").iterdir()
    messages = [line.split(" - ", 1)[1] for line in out.splitlines()]
    assert messages[0] == f"run {run.name}: dataset=spambase kernel=gaussian feature_map=rff M/d=2 -> {run}"
    assert messages[1] == "0 of 3 trials already recorded; computing 3"
    assert sum(m.startswith("model: ") for m in messages) == 1  # not once per trial
    assert [m.split(",")[1] for m in messages if m.startswith("progress:")] == [" 1/3 trials", " 2/3 trials",
                                                                                 " 3/3 trials"]
    assert not [m for m in messages if re.match(r"trial \d", m)]  # each trial's line is in run.log
    assert messages[-2].startswith("summary over 3 trial(s): test_accuracy = ")
    assert messages[-1] == (f"results in {run}: trials.csv (a row per trial), grid.csv, summary.csv, config.yaml, "
                            "run.log (each trial's line)")
    assert len(messages) == 8
    logged = re.findall(r"INFO trial (\d)/3: test_accuracy=", (run / "run.log").read_text())
    assert sorted(logged) == ["1", "2", "3"]
    resumed = console(tmp_path, 4)
    assert "3 of 4 trials already recorded; computing 1" in resumed


@pytest.mark.slow
def test_output_to_a_file_has_done_total_lines_and_no_bar(tmp_path):
    proc = run_rfbench(tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out
    assert re.findall(r"progress: run [0-9a-f]{12}, (\d/\d) trials, \S+ elapsed, ETA \S+", out) == ["1/2", "2/2"]
    assert "\r" not in out and "\x1b[" not in out and "trials:" not in out
    assert re.search(r"summary over 2 trial\(s\): test_accuracy = 0\.\d{4} \+- 0\.\d{4};", out)


def read_terminal(results_dir, env) -> str:
    """Run rfbench on a pseudo-terminal of 100 columns; return what it showed."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    proc = run_rfbench(results_dir, env, stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    shown = b""
    with contextlib.suppress(OSError):  # EIO once the run has exited
        while chunk := os.read(controller, 4096):
            shown += chunk
    os.close(controller)
    assert proc.wait(timeout=600) == 0, shown.decode()
    return shown.decode()


@pytest.mark.slow
@pytest.mark.parametrize("ci", ["", "true"])
def test_a_terminal_shows_a_trial_bar_unless_ci(tmp_path, ci):
    shown = read_terminal(tmp_path, {"CI": ci})
    assert "0 of 2 trials already recorded; computing 2" in shown  # the log lines show either way
    assert "trial 1/2: test_accuracy=" not in shown  # in run.log
    if ci:
        assert re.search(r"progress: run [0-9a-f]{12}, 2/2 trials", shown) and "trials:" not in shown
    else:
        assert re.search(r"\rrun [0-9a-f]{12} trials: 100%\|.*\| 2/2 \[", shown) and "progress:" not in shown


@pytest.mark.parametrize("fits", [(0, 0), (10, 56)])
def test_a_silent_trial_gets_a_line_after_the_silence_limit(caplog, monkeypatch, fits):
    """A fit longer than SILENCE_LIMIT still gets lines: the heartbeat says where the trial is."""
    monkeypatch.setattr(progress, "SILENCE_LIMIT", 0.5)
    monkeypatch.setattr(progress, "FIT_LOG_INTERVAL", 1e9)
    with caplog.at_level(logging.INFO, logger="rfbench"), \
            progress.trial_progress(3, 1, io.StringIO(), name="run 1f53369a7940") as bar:
        bar.fits(*fits)
        deadline = time.monotonic() + 10
        while not caplog.records and time.monotonic() < deadline:
            time.sleep(0.05)
    message = caplog.records[0].getMessage()
    assert message.startswith("progress: run 1f53369a7940, trial 2/3 still at work, 00:0")
    assert message.endswith(", model selection 10/56 fits" if fits[1] else "into it")
