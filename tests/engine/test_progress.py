"""Run progress: bars on a terminal, plain done/total lines elsewhere."""
import contextlib
import fcntl
import io
import logging
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import time

import pytest

from rfbench.engine import progress
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


def run_rfbench(results_dir, env=None, **popen) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rfbench", f"experiment.results_dir={results_dir}", "experiment.trials=2",
           "experiment.n_gram=100", "classifier.log2_C=[0]"]
    return subprocess.Popen(cmd, cwd=REPO, env={**os.environ, **(env or {})}, **popen)


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
    assert "trial 1/2: test_accuracy=" in shown  # the log lines show either way (1-based)
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
