"""The exception types raised by the data layer."""


class DatasetError(ValueError):
    """A dataset cannot be configured, obtained, parsed or split.

    The message names the offending value (file, URL, line, option) and, where
    there is one, the way out: valid choices, an environment variable or a
    fallback config.
    """


class CacheError(DatasetError):
    """The dataset cache cannot be used.

    It is missing, not a directory or unwritable, or a path would lead out of
    it; the message names ``RFBENCH_CACHE``.
    """
