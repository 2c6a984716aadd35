"""lcplab.compare, profile and run_experiment: the comparison engine of the
C library (libexperiment), reached from Python.

Checked: compare gives the columns and the solves of the engine's profile
CSV, the same rows (status, iterations, residuals) as ``lcplab experiment``
on the same files, answers judged on planted problems; profile gives the
Dolan-More curves of hand-worked times, and the engine's figure of them
with names holding a comma and a quote; iterations are integers (-1 for a
run without numbers); quantile is the engine's; run_experiment runs a file with a
generated family into CSVs, refuses a bad file with the engine's message
naming the line, and turns Ctrl-C into KeyboardInterrupt after the running
task has finished and the CSVs are written.
"""

import os
import shutil
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import lcplab
from conftest import planted_lcp, sigint_raises


def test_compare_solves_planted_problems():
    (p1, x1), (p2, x2) = planted_lcp(6, 1), planted_lcp(9, 2)
    r = lcplab.compare({"a": p1, "b": p2}, ["lemke", "pgs"], tol=[1e-10], max_iter=100000,
                       as_frame=False)
    assert set(r["problem"]) == {"a", "b"}
    assert len(r) == 4
    assert list(r.dtype.names[:6]) == ["problem", "kind", "n", "solver", "tol", "status"]
    assert set(r["status"]) == {"converged"}
    assert np.all(r["res_scaled"] <= 1e-10)
    assert np.all(r["repeats"] >= 1) and np.all(r["time_s"] > 0)
    # iterations are integers (lemke pivots: 0 iterations; pgs iterates)
    assert r["iterations"].dtype == np.int64
    assert set(r[r["solver"] == "lemke"]["iterations"]) == {0}
    assert np.all(r[r["solver"] == "pgs"]["iterations"] >= 1)
    # the rows are the problems' own: n, and the planted answer within reach
    for row in r:
        assert row["n"] == (6 if row["problem"] == "a" else 9)


def test_compare_rows_are_the_programs(tmp_path):
    lcp = os.environ.get("LCPLAB_BIN")
    if not lcp:
        pytest.skip("LCPLAB_BIN not set (make check sets it)")
    p, _ = planted_lcp(8, 3)
    lcplab.write(p, tmp_path / "p8.lcp")
    r = lcplab.compare([tmp_path / "p8.lcp"], ["lemke", "dantzig"], tol=1e-8, min_runs=1,
                       as_frame=False)
    exp = tmp_path / "x.exp"
    exp.write_text(f"experiment profile cmp\nsolvers lemke dantzig\n"
                   f"instances {tmp_path / 'p8.lcp'}\ntol 1e-8\nmin_runs 1\n")
    subprocess.run([lcp, "experiment", str(exp), "--out", str(tmp_path / "o"), "--jobs", "1",
                    "--no-plot"], check=True, capture_output=True)
    c = lcplab._experiment._read_csv(tmp_path / "o" / "cmp.csv")
    assert r.dtype.names == c.dtype.names
    for a, b in zip(np.sort(r, order="solver"), np.sort(c, order="solver")):
        for col in ("problem", "solver", "status", "iterations", "pivots", "res_rel", "class"):
            assert a[col] == b[col] or (a[col] != a[col] and b[col] != b[col]), col


def test_iterations_of_a_run_without_numbers_is_minus_one():
    # direct takes equality rows only: it refuses the LCP, and the CSV's
    # iterations field of that row is empty; Python gives -1 there, an int
    # column still, and profile reads such rows back as the engine wrote them
    p, _ = planted_lcp(4, 6)
    r = lcplab.compare([p], ["direct", "lemke"], tol=1e-8, min_runs=1, as_frame=False)
    assert r["iterations"].dtype == np.int64
    row = r[r["solver"] == "direct"][0]
    assert row["status"] == "refused" and row["iterations"] == -1
    assert lcplab._experiment._field("iterations", row["iterations"]) == ""
    pr = lcplab.profile(r, as_frame=False)
    assert set(pr["solver"]) == {"lemke"} and set(pr["refused"]) == {0}


def test_quantile_is_the_engines():
    # linear between the order statistics (exp_quantile): the median of an
    # even count is the mean of the middle two, the quartiles interpolate
    assert lcplab.quantile([4.0, 1.0, 3.0, 2.0], 0.5) == 2.5
    assert lcplab.quantile([3, 1, 2], 0.5) == 2.0
    assert lcplab.quantile([1, 2, 3, 4, 5], 0.25) == 2.0
    assert lcplab.quantile([1, 2, 3, 4], 0.25) == 1.75
    assert lcplab.quantile([7.0], 0.9) == 7.0
    assert np.isnan(lcplab.quantile([], 0.5))
    with pytest.raises(ValueError, match="finite"):
        lcplab.quantile([1.0, np.nan], 0.5)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        lcplab.quantile([1.0], 1.5)


def test_compare_refuses_unknown_solver():
    p, _ = planted_lcp(3, 4)
    with pytest.raises(ValueError, match="unknown solver 'nope'"):
        lcplab.compare([p], ["nope"])
    with pytest.raises(ValueError, match="no problems"):
        lcplab.compare([], ["pgs"])


def _results(times):
    """A profile CSV's rows for solvers s, t on problems p0, p1, ... with
    the given times (None: not converged)."""
    names = ("problem kind n solver tol status iterations pivots time_s time_min_s repeats "
             "res_rel res_nat_inf solved class nnz contacts cond_est method time_q1_s time_q3_s "
             "time_source note time_total_s res_scaled siconos_err err_siconos res_rel_1q "
             "x_digest reported_solved").split()
    dtype = [(n, "U16") if n in ("problem", "kind", "solver", "status", "class", "method", "x_digest",
                                 "time_source", "note") else (n, "f8") for n in names]
    rows = np.zeros(sum(len(t) for t in times.values()), dtype=dtype)
    k = 0
    for solver, ts in times.items():
        for i, t in enumerate(ts):
            r = rows[k]
            r["problem"], r["kind"], r["n"], r["solver"], r["tol"] = f"p{i}", "lcp", 3, solver, 1e-8
            r["status"] = "refused" if t == "refused" else "converged" if t else "max_iter"
            t = None if t == "refused" else t
            r["time_s"] = t if t else np.nan
            r["solved"] = 1 if t else 0
            r["class"], r["method"] = "lcp", solver
            r["reported_solved"] = np.nan  # a built-in solver: no verdict of its own
            k += 1
    return rows


def test_profile_of_hand_worked_times():
    # ratios: s = (1, 2, inf), t = (2, 1, 1): rho_s(1) = 1/3, rho_s(2) = 2/3;
    # rho_t(1) = 2/3, rho_t(2) = 1
    pr = lcplab.profile(_results({"s": [1.0, 4.0, None], "t": [2.0, 2.0, 3.0]}), as_frame=False)
    assert pr.dtype.names == ("tol", "solver", "tau", "log2_tau", "rho", "solved_share",
                              "problems", "class", "refused", "rho_all", "solved_share_all",
                              "problems_all")

    def rho(solver, tau):
        rows = pr[(pr["solver"] == solver) & (pr["tau"] <= tau * (1 + 1e-12))]
        return rows["rho"].max()

    assert rho("s", 1) == pytest.approx(1 / 3)
    assert rho("s", 2) == pytest.approx(2 / 3)
    assert rho("t", 1) == pytest.approx(2 / 3)
    assert rho("t", 2) == pytest.approx(1.0)
    assert set(pr["problems"]) == {3}
    with pytest.raises(lcplab.ExperimentError, match="not a profile CSV"):
        lcplab.profile(np.zeros(2, dtype=[("x", "f8")]))


def _pdf_text(path):
    if not shutil.which("pdftotext"):
        return None
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


def test_profile_figure_with_a_comma_and_a_quote_in_names(tmp_path):
    # the engine's own figure (exp_profile.gp) of hand-worked times, for
    # solvers named with a comma and a double quote: the CSV quotes them,
    # the figure's data files carry them as tokens, and the legend shows
    # each name as written with its solved share (s: 2 of 3, t: 3 of 3),
    # which a field split at the wrong comma would not give
    if not shutil.which(os.environ.get("GNUPLOT", "gnuplot")):
        pytest.skip("gnuplot not found")
    rows = _results({"s,1": [1.0, 4.0, None], 't"2': [2.0, 2.0, 3.0]})
    curves = lcplab.profile(rows, figure=tmp_path / "p.pdf", as_frame=False)
    assert set(curves["solver"]) == {"s,1", 't"2'}
    assert (tmp_path / "p.pdf").stat().st_size > 0 and (tmp_path / "p.png").stat().st_size > 0
    assert sorted(os.listdir(tmp_path)) == ["p.pdf", "p.png"]  # no folder left behind
    text = _pdf_text(tmp_path / "p.pdf")
    if text is not None:
        assert "s,1 (67%)" in text and 't"2 (100%)' in text, text
        assert "@" not in text
    # "p.png" and the base "p" name the same files
    lcplab.profile(rows, figure=str(tmp_path / "q"))
    assert (tmp_path / "q.pdf").exists() and (tmp_path / "q.png").exists()


def test_profile_figure_counts_refusals(tmp_path):
    # issue 86, item 11: a solver that refused 4 of 8 problems and solved 3
    # of the 4 it accepted beside one that solved 3 of all 8. The default
    # figure draws both over the class's 8 problems (rho_all: 3/8 = 38 %
    # each); measure="accepted" draws the refuser over its 4 (75 %),
    # labelled so ("of 4" accepted), and the title says so
    if not shutil.which(os.environ.get("GNUPLOT", "gnuplot")):
        pytest.skip("gnuplot not found")
    rows = _results({"np_ref": ["refused"] * 4 + [1.0, 1.0, 1.0, None],
                     "nsgs": [2.0, 2.0, None, None, 2.0, None, None, None]})
    curves = lcplab.profile(rows, figure=tmp_path / "all.pdf", as_frame=False)
    last = {s: curves[curves["solver"] == s][-1] for s in ("np_ref", "nsgs")}
    assert last["np_ref"]["rho"] == pytest.approx(0.75)  # the table keeps both
    assert last["np_ref"]["rho_all"] == pytest.approx(0.375)
    text = _pdf_text(tmp_path / "all.pdf")
    if text is not None:
        assert "np_ref (38%)" in text and "nsgs (38%)" in text, text
        assert "8 problems" in text and "accepted" not in text, text
    lcplab.profile(rows, figure=tmp_path / "acc.pdf", measure="accepted")
    text = _pdf_text(tmp_path / "acc.pdf")
    if text is not None:
        assert "np_ref (75% of 4)" in text and "nsgs (38% of 8)" in text, text
        assert "8 problems; over accepted" in text, text
    with pytest.raises(ValueError, match="measure must be 'all' or 'accepted'"):
        lcplab.profile(rows, figure=tmp_path / "x.pdf", measure="mine")
    assert not (tmp_path / "x.pdf").exists()


def test_profile_figure_refusals(tmp_path, monkeypatch):
    rows = _results({"s": [1.0, 2.0], "t": [2.0, 1.0]})
    with pytest.raises(ValueError, match="expected a .pdf or .png"):
        lcplab.profile(rows, figure=tmp_path / "p.svg")
    monkeypatch.setenv("GNUPLOT", str(tmp_path / "no-gnuplot"))
    with pytest.raises(lcplab.ExperimentError, match="cannot run") as e:
        lcplab.profile(rows, figure=tmp_path / "p.pdf")
    assert e.value.code == 3
    assert not (tmp_path / "p.pdf").exists()
    assert sorted(os.listdir(tmp_path)) == []


def test_profile_rows_folder_swapped_for_a_link(tmp_path, monkeypatch):
    # issue 86, items 1 and 3: the profile figure's .profile-XXXXXX folder
    # (lcplab's own, beside the figure) swapped for a link to a user's
    # folder while gnuplot runs: the cleanup removes nothing behind the
    # link (before: rows.csv and rows_profile.csv unlinked through it)
    away = tmp_path / "away"
    away.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    gp = tmp_path / "gp.sh"
    gp.write_text("#!/bin/sh\n"
                  f"a={away}\n"
                  f"for d in {out}/.profile-*; do\n"
                  "  for f in rows.csv rows_profile.csv; do echo mine >\"$a/$f\"; done\n"
                  "  mv \"$d\" \"$d.real\"; ln -s \"$a\" \"$d\"\n"
                  "done\nexit 1\n")
    gp.chmod(0o755)
    monkeypatch.setenv("GNUPLOT", str(gp))
    rows = _results({"s": [1.0, 2.0], "t": [2.0, 1.0]})
    with pytest.raises(lcplab.ExperimentError):
        lcplab.profile(rows, figure=out / "p.pdf")
    assert sorted(os.listdir(away)) == ["rows.csv", "rows_profile.csv"]
    assert (away / "rows.csv").read_text() == "mine\n"


def test_run_experiment_and_its_errors(tmp_path):
    exp = tmp_path / "e.exp"
    exp.write_text("experiment profile gen\nsolvers lemke pgs\ngenerate ${FAM} 20\n"
                   "tol 1e-8\nmin_runs 1\n")
    c = lcplab.run_experiment(exp, tmp_path / "out", jobs=1, vars={"FAM": "spd"},
                              figures=False)
    assert c.status == 0
    assert str(tmp_path / "out" / "gen.csv") in c.files
    t = c.table("gen")
    assert len(t) == 2 and set(t["solver"]) == {"lemke", "pgs"}
    assert set(t["n"]) == {20}
    assert c.table("gen_profile")["rho"].max() <= 1.0
    bad = tmp_path / "bad.exp"
    bad.write_text("experiment profile gen\nsolvers lemke\nfrobnicate 3\n")
    with pytest.raises(lcplab.ExperimentError, match=r"bad.exp:3: .*frobnicate|bad.exp:3:"):
        lcplab.run_experiment(bad, tmp_path / "o2", jobs=1)
    with pytest.raises(ValueError, match="bad variable name"):
        lcplab.run_experiment(exp, tmp_path / "o3", vars={"a b": 1})


def test_ctrl_c_finishes_the_running_task(tmp_path):
    # two tasks of about 2 s each (pgs to an unreachable tolerance, stopped
    # by the time limit); SIGINT 0.5 s after the plan is written (the first
    # task running) lets the first finish, runs no second, writes the CSV,
    # then raises KeyboardInterrupt.  (A fixed 0.5 s from the call came
    # before the first task on a loaded machine under the sanitizers: no
    # task ran, no row.)
    p, _ = planted_lcp(300, 5)
    lcplab.write(p, tmp_path / "p300.lcp")
    exp = tmp_path / "slow.exp"
    exp.write_text(f"experiment profile slow\nsolvers pgs pjacobi\ninstances {tmp_path}/p300.lcp\n"
                   "tol 1e-300\nmax_iter 100000000\nmin_runs 1\ntime_limit 2\n")
    planned = tmp_path / "out" / "campaign" / "task-ids"

    done = threading.Event()  # the call returned: no signal after it

    def interrupt_in_first_task():
        while not planned.exists() and not done.wait(0.02):
            pass
        if not done.wait(0.5):
            os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=interrupt_in_first_task)
    t0 = time.monotonic()
    with sigint_raises():
        timer.start()
        try:
            c = lcplab.run_experiment(exp, tmp_path / "out", jobs=1, figures=False)
        except KeyboardInterrupt:
            c = None
        done.set()
        timer.join()
    rows = lcplab._experiment._read_csv(tmp_path / "out" / "slow.csv")
    if c is not None:  # say what the campaign did instead
        pytest.fail("no KeyboardInterrupt after %.2f s: status %d, rows %s, messages %s" % (
            time.monotonic() - t0, c.status, [(str(r["solver"]), str(r["status"])) for r in rows],
            c.messages[-6:]))
    assert len(rows) == 1  # the running task finished; the second never started
