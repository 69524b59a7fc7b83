"""The xdist groups of tests/conftest.py hold: a group's tests run on one worker."""
import subprocess
import sys

GROUPED = '''
import pytest

@pytest.mark.xdist_group("one")
@pytest.mark.parametrize("i", range(4))
def test_grouped(i):
    pass

@pytest.mark.parametrize("i", range(4))
def test_free(i):
    pass
'''


def test_a_group_runs_on_one_worker(tmp_path):
    """pytest-xdist's loadgroup, with the installed pytest, keeps a group on one worker (pytest 9.2 broke it
    silently: pytest-dev/pytest-xdist#1386)."""
    (tmp_path / "test_grouped.py").write_text(GROUPED)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-n", "2", "--dist", "loadgroup",
                           "-p", "no:cacheprovider", "test_grouped.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:]
    ran = [line.split()[0] for line in proc.stdout.splitlines() if "PASSED" in line]
    grouped = [line.split()[0] for line in proc.stdout.splitlines() if "PASSED" in line and "test_grouped[" in line]
    assert len(ran) == 8 and len(grouped) == 4 and len(set(grouped)) == 1, proc.stdout
