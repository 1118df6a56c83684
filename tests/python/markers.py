"""The line numbers the tests expect in error messages: kernel files mark a line with a
trailing comment (`# OOB tag`, `# DIV tag`), found here by its text."""


def marked_line(path, marker):
    """The 1-based number of the line of `path` that ends with `marker`."""
    with open(path) as fh:
        for n, text in enumerate(fh, 1):
            if text.rstrip().endswith(marker):
                return n
    raise AssertionError("no line of %s ends with %r" % (path, marker))
