"""Shared by the launcher tests: a throw-away Ray head on 127.0.0.1."""
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

# Ray on one machine: loopback only, no auth token, no usage statistics (a throw-away test cluster).
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_AUTH_MODE": "disabled",
           "RAY_USAGE_STATS_ENABLED": "0"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def ray_head(tmp_path):
    """A Ray head node bound to 127.0.0.1, started with ``ray start --block`` and stopped after."""
    ray = shutil.which("ray", path=str(Path(sys.executable).parent))
    if ray is None:
        pytest.skip("ray is not installed (pip install -e '.[launchers]')")
    port, log = _free_port(), tmp_path / "ray_head.log"
    # Workers inherit the head's environment, so the data mirror is set here.
    head = subprocess.Popen(
        [ray, "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2",
         "--include-dashboard=false", "--disable-usage-stats"],
        env={**os.environ, **RAY_ENV}, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while "Ray runtime started" not in log.read_text():
            assert head.poll() is None, log.read_text()
            time.sleep(0.2)
        yield f"127.0.0.1:{port}"
    finally:
        head.terminate()  # `ray start --block` stops the processes it started on SIGTERM
        try:
            head.wait(timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(head.pid, signal.SIGKILL)  # whatever of its session is left
