"""Ctrl-C and SIGTERM: one line saying how far the run got, the shell's exit status, no traceback.

While :func:`interruptible` runs, SIGINT and SIGTERM raise :class:`Interrupted` (a KeyboardInterrupt,
so the runner's cleanup, e.g. removing a run folder that holds no trial, runs as for Ctrl-C).  The
runner notes its trials recorded and planned on the exception (:func:`note_trials`); the program then prints
``<prog>: interrupted after k of N trials; rerun the same command to resume`` and exits with
128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell reports a killed command.

The exception is not raised where raising would break the run instead of ending it (see
:func:`_unsafe_to_raise`): there the signal is delivered again a moment later, until the main thread
is out of that place.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

#: The signals that end a run politely.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """Raised by the signal handler; ``signum`` is the signal received."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class WorkerKilled(Interrupted):
    """A worker process of the run ended by signal ``signum`` (SIGKILL: the OOM killer's), reported as an
    interruption: one line with how far the run got, the exit status of a command killed so."""

    def __init__(self, signum: int, who: str = "a trial worker"):
        super().__init__(signum)
        self.who = who


#: The signal being handled, once one arrived: an error raised while unwinding from it (a library that
#: turned the KeyboardInterrupt into its own exception, a cleanup it broke) is reported as that signal.
_received: int | None = None


#: Seconds after which a signal that arrived at an unsafe place is delivered again.
RETRY = 0.02


def _raise(signum: int, frame: FrameType | None) -> None:
    global _received
    if _unsafe_to_raise(frame):
        # To the main thread itself: a signal the kernel gives to another thread would not wake it from a sleep.
        retry = threading.Timer(RETRY, signal.pthread_kill, (threading.main_thread().ident, signum))
        retry.daemon = True  # not a thread the exit waits for (see _busy_threads)
        retry.start()
        return
    _received = signum
    raise Interrupted(signum)


def _unsafe_to_raise(frame: FrameType | None) -> bool:
    """Whether an exception raised at ``frame`` would hang or be lost instead of ending the run.

    - Inside llvmlite's LLVM lock (numba compiling a kernel or loading it from its cache): raised between
      the lock's acquire and its callbacks, it skips the release, and the next compile, in a model's pool
      thread, waits for the lock forever.
    - Inside a ``__del__`` (llvmlite disposes its objects there): Python prints the exception and drops it,
      and the run goes on as if no signal had come.
    """
    if _holds_llvm_lock():
        return True
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def _holds_llvm_lock() -> bool:
    """Whether this thread holds llvmlite's lock (an RLock; False when llvmlite was never imported).

    Read through llvmlite's private attributes: a version that renames them reads as "not held" here,
    never as an error inside the handler, and the test of a signal inside the lock then fails.
    """
    lock = getattr(getattr(getattr(sys.modules.get("llvmlite.binding.ffi"), "lib", None), "_lock", None), "_lock", None)
    return lock is not None and lock._is_owned()


def as_interruption(err: BaseException) -> BaseException:
    """``err`` itself, or an :class:`Interrupted` caused by it when a signal arrived first."""
    if isinstance(err, KeyboardInterrupt) or _received is None:
        return err
    interrupted = Interrupted(_received)
    interrupted.__cause__ = err
    return interrupted


@contextlib.contextmanager
def interruptible(prog: str) -> Iterator[None]:
    """Run the block with SIGINT and SIGTERM raising :class:`Interrupted`; end the program on one.

    Outside the main thread (where handlers cannot be set) the signals keep their handlers, and a
    KeyboardInterrupt is still reported in one line.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, _raise) for sig in SIGNALS} if main else {}
    try:
        yield
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
        print(f"{prog}: {message(err)}", file=sys.stderr)
        if _busy_threads():  # a model's fits still running in its pool: exiting would first wait for them
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + signum)
        sys.exit(128 + signum)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _busy_threads() -> bool:
    """Whether threads other than this one would keep the interpreter from exiting (pool workers in a fit).

    Their work is abandoned: every record is written atomically, and the run's cleanup has run.
    """
    return any(t.is_alive() and t is not threading.current_thread() and not t.daemon for t in threading.enumerate())


def message(err: KeyboardInterrupt) -> str:
    """'interrupted after k of N trials; rerun ...' from the counts :func:`note_trials` noted on ``err``."""
    trials, unit = getattr(err, "trials", None), getattr(err, "unit", "trials")
    where = f"before starting a {unit[:-1]}" if trials is None else f"after {trials[0]} of {trials[1]} {unit}"
    if isinstance(err, WorkerKilled):
        oom = "; out of memory?" if err.signum == signal.SIGKILL else ""
        return f"{err.who} was killed (signal {err.signum}{oom}) {where}; rerun the same command to resume"
    return f"interrupted {where}; rerun the same command to resume"


def note_trials(err: KeyboardInterrupt, done: int, total: int, unit: str = "trials") -> None:
    """Note on ``err`` that ``done`` of the run's ``total`` trials (or other ``unit``) are recorded (for
    :func:`message`)."""
    err.trials, err.unit = (done, total), unit
