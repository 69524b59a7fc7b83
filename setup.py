"""The wheel's packages: ``rfbench`` and its subpackages, plus ``rfbench.configs``.

``rfbench.configs`` is the repository's top-level ``configs/`` folder (the one source of the Hydra
configs), installed inside the package so that a non-editable install finds it
(``rfbench/storage/locations.py``).  pyproject.toml alone cannot combine discovered packages with one mapped
from another folder; everything else about the build is in pyproject.toml.
"""
import atexit
import shutil
import tempfile

from setuptools import find_namespace_packages, setup

# hydra_plugins: the campaign sweeper (Hydra instantiates sweepers from that namespace only)
own = find_namespace_packages(include=["rfbench*", "hydra_plugins*"], exclude=["rfbench.configs*"])
configs = ["rfbench.configs", *(f"rfbench.configs.{group}" for group in find_namespace_packages("configs"))]
# setuptools builds in <checkout>/build/ by default, which `pip install .` would leave behind: a temporary
# folder instead, removed when the build ends.
build_base = tempfile.mkdtemp(prefix="rfbench-build-")
atexit.register(shutil.rmtree, build_base, ignore_errors=True)
setup(packages=[*own, *configs], options={"build": {"build_base": build_base}})
