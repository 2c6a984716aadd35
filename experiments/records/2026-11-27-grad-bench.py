import sys, time, numpy as np, lcplab
sys.path.insert(0, "/work/wt-grad/python/tests")
from test_gradients import planted
for n in (100, 300, 600):
    A, b, lo, hi = planted(n, 7, False)
    p = lcplab.Problem(np.asfortranarray(A), b)
    for solver in ("lemke", "dantzig"):
        r = lcplab.solve(p, solver, tol=1e-10)
        ts = []
        for _ in range(3):
            t0 = time.perf_counter(); r2 = lcplab.solve(p, solver, tol=1e-10); ts.append(time.perf_counter() - t0)
        gx = np.random.default_rng(1).uniform(-1, 1, n)
        tv = []
        for _ in range(3):
            t0 = time.perf_counter(); g = lcplab.vjp(p, r, gx); tv.append(time.perf_counter() - t0)
        nf = int((g.modes & 3 == 0).sum())
        print(f"n={n} solver={solver} converged={r.converged} free={nf} solve_s={min(ts):.4g} lib_time_s={r2.time:.4g} vjp_s={min(tv):.4g} ratio={min(tv)/min(ts):.3g}")
