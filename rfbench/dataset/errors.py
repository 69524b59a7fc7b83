"""The single exception type raised by the data layer."""


class DatasetError(ValueError):
    """A dataset cannot be configured, obtained, parsed or split.

    The message names the offending value (file, URL, line, option) and, where
    there is one, the way out: valid choices, an environment variable or a
    fallback config.
    """
