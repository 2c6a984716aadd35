"""`make install`'s record of the Python package for importlib.metadata and
pip (the .dist-info directory of the installed-package format, PEP 376 /
the core metadata 2.1): python3 dist_info.py PYPROJECT VERSION PYEXECDIR.

The name, summary and dependencies come from pyproject.toml (the one place
that states them; tomllib needs Python 3.11, older interpreters write the
name and version only), the version from configure.ac through make. No
RECORD is written, so pip removes none of the files (INSTALLER names
make; `make uninstall` removes them)."""

import os
import sys


def project_table(pyproject):
    try:
        import tomllib
    except ImportError:
        return {}
    with open(pyproject, "rb") as f:
        return tomllib.load(f).get("project", {})


def metadata(project, version):
    lines = ["Metadata-Version: 2.1", f"Name: {project.get('name', 'lcplab')}",
             f"Version: {version}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def main(pyproject, version, pyexecdir):
    project = project_table(pyproject)
    name = project.get("name", "lcplab")
    where = os.path.join(pyexecdir, f"{name}-{version}.dist-info")
    os.makedirs(where, exist_ok=True)
    with open(os.path.join(where, "METADATA"), "w") as f:
        f.write(metadata(project, version))
    with open(os.path.join(where, "INSTALLER"), "w") as f:
        f.write("make\n")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: dist_info.py PYPROJECT VERSION PYEXECDIR")
    sys.exit(main(*sys.argv[1:]))
