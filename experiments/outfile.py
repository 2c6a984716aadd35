"""outfile.py -- how the experiments' scripts write their outputs: never
through a symbolic link planted where an output goes.

- replacing(path, prog): a whole output (a table, a CSV, a figure's data)
  is written into a new file beside path and renamed over it when complete.
  A link at path is replaced by the output, its target untouched; an output
  that fails half-way leaves path as it was.
- appending(path, prog) and truncating(path, prog): a stream of rows written
  as they finish (a resumable run's rows, an index); a link at path is
  refused (O_NOFOLLOW), so its target is never written.

A path that cannot be written ends the script: SystemExit with
"PROG: PATH: REASON" (exit status 1).
"""
import contextlib
import os
import tempfile


def _fail(prog, path, err):
    return SystemExit(f"{prog}: {path}: {err.strerror or err}")


def _umask():
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def replacing(path, prog, newline=None):
    """A text file to write path's new content into; renamed over path when
    the block ends without an exception, removed when it raises."""
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                                   prefix="." + os.path.basename(path) + ".")
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp's 0600 made as open() would
        fh = os.fdopen(fd, "w", encoding="utf-8", newline=newline)
    except OSError as e:
        raise _fail(prog, path, e) from None
    try:
        with fh:
            yield fh
        os.replace(tmp, path)
        tmp = None
    except OSError as e:
        raise _fail(prog, path, e) from None
    finally:
        if tmp is not None and os.path.lexists(tmp):
            os.remove(tmp)


def replace_text(path, text, prog):
    """path's content replaced by text (replacing)."""
    with replacing(path, prog) as fh:
        fh.write(text)


def _open_stream(path, prog, flags, newline):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | flags, 0o644)
    except OSError as e:
        if os.path.islink(path):
            raise SystemExit(f"{prog}: {path}: a symbolic link; an output is never written "
                             "through one (remove it to write here)") from None
        raise _fail(prog, path, e) from None
    return os.fdopen(fd, "w", encoding="utf-8", newline=newline)


def appending(path, prog, newline=None):
    """path opened to append to (created if missing); a link is refused."""
    return _open_stream(path, prog, os.O_APPEND, newline)


def truncating(path, prog, newline=None):
    """path opened empty, to write rows into as they finish; a link is refused."""
    return _open_stream(path, prog, os.O_TRUNC, newline)
