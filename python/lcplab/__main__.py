"""``python -m lcplab ARGS`` and the ``lcplab`` command of a pip-installed
package: the lcplab program (cli/; docs/usage.md) with ARGS, in place of
this process (docs/python.md, "The lcplab command").

The program is the package's own (_program.program): a wheel ships it as
bin/lcplab, built from the program's sources; nothing of it is written
again in Python.  A wheel's program was compiled for no fixed folder, so it
is told where the package's figure scripts are (LCPLAB_EXPERIMENTS, unless
already set).
"""

import os
import sys

from . import _program


def main(argv=None):
    """Replaces this process with the lcplab program run with argv
    (default: sys.argv[1:]); returns only when it cannot be run (exit 2
    with a message)."""
    args = sys.argv[1:] if argv is None else list(argv)
    prog = _program.program()
    if prog is None:
        sys.stderr.write("lcplab: this lcplab package has no lcplab program beside it (a pip "
                         "install ships one; `make install` installs it in its bindir): "
                         "docs/python.md, \"The lcplab command\"\n")
        return 2
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(prog, [prog] + args, _program.environment(prog))
    except OSError as e:
        sys.stderr.write(f"lcplab: cannot run {prog}: {e.strerror}\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
