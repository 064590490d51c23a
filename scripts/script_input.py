"""What the project's Python scripts share: reading an input file safely, one-line errors."""

import os
import stat


class BadInput(Exception):
    """One line for the user, exit 2."""


def read_regular_text(path):
    """The whole UTF-8 text of `path`; refuses directories, FIFOs and devices unread."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise BadInput(f"{path}: not a regular file")
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput(f"{path}: cannot read: {e.__class__.__name__}") from None
