"""rfbench: random-feature papers reproduced from raw public data (README.md)."""
import os as _os

# matplotlib keeps its font cache and config in $HOME (~/.cache/matplotlib, ~/.config/matplotlib)
# unless told otherwise; rfbench writes only into its cache and results folders, so the reports'
# matplotlib gets a folder of the data cache (set before any module imports matplotlib).
if "MPLCONFIGDIR" not in _os.environ:
    from rfbench.storage.locations import default_cache_dir as _default_cache_dir

    _os.environ["MPLCONFIGDIR"] = str(
        _os.path.join(_os.environ.get("RFBENCH_CACHE") or _default_cache_dir(), "matplotlib"))

# numba caches compiled kernels (cache=True) beside their source unless told otherwise, which would
# write into the checkout or site-packages; it reads NUMBA_CACHE_DIR once, at its import. Its cache
# goes where rfbench's is put (RFBENCH_CACHE), else to the user's cache folder, never the checkout.
if "NUMBA_CACHE_DIR" not in _os.environ:
    from rfbench.storage.locations import user_cache_dir as _user_cache_dir

    _os.environ["NUMBA_CACHE_DIR"] = _os.path.join(_os.environ.get("RFBENCH_CACHE") or _user_cache_dir(),
                                                   "numba")
