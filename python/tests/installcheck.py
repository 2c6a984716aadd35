"""`make installcheck`'s check of the installed Python package: run with
PYTHONPATH at the installed pyexecdir (DESTDIR included) and LD_LIBRARY_PATH
at the installed libdir, outside the build tree.  The package and the
libraries it loads must be the installed ones, libtool's .la must not be
there, importlib.metadata must know it (the dist-info make install writes)
at the package's version, and it must solve a 2 x 2
LCP whose solution is known: A = [[2, 1], [1, 2]], b = (-1, -1), x = (1/3,
1/3), w = 0; `python -m lcplab` must run the installed lcplab program
(without DESTDIR, where it is installed).  Usage: python3 installcheck.py PYEXECDIR LIBDIR (both with
DESTDIR)."""

import os
import sys


def main(pyexecdir, libdir):
    import lcplab
    here = os.path.realpath(os.path.dirname(lcplab.__file__))
    if here != os.path.realpath(os.path.join(pyexecdir, "lcplab")):
        return f"lcplab imported from {here}, not from {pyexecdir}"
    ext = os.path.realpath(lcplab._lcplab.__file__)
    if os.path.dirname(ext) != here:
        return f"the extension {ext} is not beside the package in {here}"
    with open("/proc/self/maps") as f:
        maps = [line.split()[-1] for line in f if "libsolvers.so" in line]
    lib = os.path.realpath(libdir)
    if not maps or not all(os.path.realpath(m).startswith(lib + os.sep) for m in maps):
        return f"libsolvers loaded from {sorted(set(maps))}, not from {libdir}"
    stray = [f for f in os.listdir(here) if f.endswith(".la")]
    if stray:
        return f"libtool's {stray} installed in {here}"
    import importlib.metadata
    try:
        meta = importlib.metadata.version("lcplab")
    except importlib.metadata.PackageNotFoundError:
        return f"importlib.metadata does not know lcplab (no dist-info beside {here})"
    if meta != lcplab.__version__:
        return f"the metadata's version {meta} is not the package's {lcplab.__version__}"
    r = lcplab.solve(lcplab.Problem([[2.0, 1.0], [1.0, 2.0]], [-1.0, -1.0]), "lemke")
    if not r.converged or max(abs(r.x[0] - 1 / 3), abs(r.x[1] - 1 / 3)) > 1e-14:
        return f"the 2 x 2 LCP: {r}, x = {r.x}, expected (1/3, 1/3)"
    if "nsgs" not in lcplab.solvers():
        return f"lcplab.solvers() lacks nsgs: {lcplab.solvers()}"
    # python -m lcplab runs the installed program ($(bindir)/lcplab; not there
    # under a DESTDIR, where the module says so and exits 2)
    installed = os.path.join(lcplab._lcplab.BINDIR, "lcplab")
    if os.path.exists(installed):
        import subprocess
        if os.path.realpath(lcplab._program.program() or "") != os.path.realpath(installed):
            return f"python -m lcplab would run {lcplab._program.program()}, not {installed}"
        r = subprocess.run([sys.executable, "-m", "lcplab", "--version"], capture_output=True,
                           text=True)
        if r.returncode != 0 or r.stdout.strip() != f"lcplab {lcplab.__version__}":
            return f"python -m lcplab --version: exit {r.returncode}, {r.stdout!r} {r.stderr!r}"
    print(f"ok   - the installed package ({here}) solves with {maps[0]}")
    return None


if __name__ == "__main__":
    err = main(sys.argv[1], sys.argv[2])
    if err:
        print(f"FAIL - installed Python package: {err}")
        sys.exit(1)
