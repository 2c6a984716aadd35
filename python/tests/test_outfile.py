"""experiments/outfile.py: the experiments' scripts never write through a
symbolic link planted where an output goes.  A whole output replaces the
link (its target untouched), a stream refuses it, and a path that cannot be
written ends the script with a message naming it (exit status 1)."""

import json
import os
import stat
import subprocess
import sys

import pytest

from conftest import EXPERIMENTS, experiment_module

NOTES = "a user's notes\n"


@pytest.fixture(name="outfile")
def fixture_outfile():
    return experiment_module("outfile")


def _plant(tmp_path, name):
    """A user's file and a link to it at tmp_path/name."""
    target = tmp_path / "notes.txt"
    target.write_text(NOTES)
    link = tmp_path / name
    link.symlink_to(target)
    return target, link


def _leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_replace_text_replaces_a_planted_link(outfile, tmp_path):
    target, link = _plant(tmp_path, "table.md")
    outfile.replace_text(str(link), "| a | b |\n", "prog")
    assert not link.is_symlink()
    assert link.read_text() == "| a | b |\n"
    assert target.read_text() == NOTES
    mask = os.umask(0o22)
    os.umask(mask)
    assert stat.S_IMODE(link.stat().st_mode) == 0o666 & ~mask
    assert _leftovers(tmp_path) == []


def test_a_failed_output_leaves_the_old_one(outfile, tmp_path):
    old = tmp_path / "rows.csv"
    old.write_text("the last run's rows\n")
    with pytest.raises(ValueError):
        with outfile.replacing(str(old), "prog") as fh:
            fh.write("half a row")
            raise ValueError("the run failed")
    assert old.read_text() == "the last run's rows\n"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("opener", ["appending", "truncating"])
def test_a_stream_refuses_a_planted_link(outfile, tmp_path, opener):
    target, link = _plant(tmp_path, "rows.jsonl")
    with pytest.raises(SystemExit) as e:
        getattr(outfile, opener)(str(link), "prog")
    assert str(e.value) == (f"prog: {link}: a symbolic link; an output is never written "
                            "through one (remove it to write here)")
    assert target.read_text() == NOTES


def test_streams_append_and_truncate(outfile, tmp_path):
    rows = tmp_path / "rows.jsonl"
    for k in range(2):
        with outfile.appending(str(rows), "prog") as fh:
            fh.write(json.dumps({"row": k}) + "\n")
    assert rows.read_text() == '{"row": 0}\n{"row": 1}\n'
    with outfile.truncating(str(rows), "prog") as fh:
        fh.write("new\n")
    assert rows.read_text() == "new\n"


@pytest.mark.parametrize("how", ["replace_text", "appending"])
def test_a_missing_folder_is_named(outfile, tmp_path, how):
    path = tmp_path / "no such folder" / "out.md"
    with pytest.raises(SystemExit) as e:
        if how == "replace_text":
            outfile.replace_text(str(path), "x", "prog")
        else:
            outfile.appending(str(path), "prog")
    assert str(e.value) == f"prog: {path}: No such file or directory"


def test_convergence_change_replaces_planted_links(tmp_path):
    """A script end to end: experiments/convergence_change.py's CSV and table
    through planted links."""
    raw = tmp_path / "raw.tsv"
    ok = json.dumps({"status": "converged", "n": 4, "iterations": 7, "res_rel": 1e-9})
    raw.write_text(f"old\tlcp\ta.dat\tpgs\t0\t{ok}\nnew\tlcp\ta.dat\tpgs\t0\t{ok}\n")
    target, csv_link = _plant(tmp_path, "out.csv")
    md_link = tmp_path / "out.md"
    md_link.symlink_to(target)
    p = subprocess.run([sys.executable, str(EXPERIMENTS / "convergence_change.py"), str(raw),
                        str(csv_link), str(md_link)], capture_output=True, text=True, check=False)
    assert p.returncode == 0, p.stderr
    assert target.read_text() == NOTES
    assert not csv_link.is_symlink() and csv_link.read_text().startswith("class,file,n,solver")
    assert not md_link.is_symlink() and "| pgs | 1 | 1 | 1 | 0 | 0 |" in md_link.read_text()
