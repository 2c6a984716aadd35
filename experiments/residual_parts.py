#!/usr/bin/env python3
"""residual_parts.py -- what the residual of an answer to a Coulomb-cone problem is made of
(issue 85, item 1: the evidence for a state that resists every method).

    residual_parts.py PROBLEM X [X2 ...] [--top 10]

PROBLEM is any file `lcplab solve` reads with Coulomb cones (an FCLIB local .hdf5 of
`make bench-states`); each X is an answer, one value per line (`lcplab solve --solution`,
peer_fc3d --save-r).  Per contact c (its normal row first), with u = A x + b its velocity, the
natural map F_c = x_c - P_K(x_c - (u_c + mu_c |u_cT| e_n)) (docs/convergence.md), the map the
bench's judge res_rel_q = ||F||_2 / max(1, ||b||_2) is made of.  Printed per answer: res_rel_q,
how many contacts hold 50, 90 and 99 % of ||F||_2^2, and the contacts with the largest |F_c|:
their normal impulse, normal velocity, tangential speed and |x_cT| / (mu x_cN) (1: on the cone's
edge, sliding).  Exit 0; 2 on a bad argument or a file that cannot be read.
"""
import argparse
import sys

import numpy as np

import lcplab


def fail(msg):
    """A bad argument or file: the message on stderr, exit 2 (the header)."""
    print(f"residual_parts.py: {msg}", file=sys.stderr)
    sys.exit(2)


def cone_projection(v, mu):
    """Projection of each row of v (normal, then two tangents) onto {|t| <= mu n}."""
    n, t = v[:, 0], v[:, 1:]
    nt = np.linalg.norm(t, axis=1)
    out = v.copy()
    inside = nt <= mu * n
    polar = mu * nt <= -n
    out[polar] = 0.0
    edge = ~(inside | polar)
    a = (n[edge] + mu[edge] * nt[edge]) / (1.0 + mu[edge] ** 2)
    out[edge, 0] = a
    out[edge, 1:] = (mu[edge] * a / nt[edge])[:, None] * t[edge]
    return out


def parts(p, x):
    """Per-contact natural map (m x 3), the rows of x and u (m x 3)."""
    first = np.array([c[0] for c in p.cones])
    mu = np.array([c[1] for c in p.cones])
    idx = first[:, None] + np.arange(3)[None, :]
    u = p.A @ x + p.b
    xc, uc = x[idx], u[idx]
    shifted = uc.copy()
    shifted[:, 0] += mu * np.linalg.norm(uc[:, 1:], axis=1)
    F = xc - cone_projection(xc - shifted, mu)
    return F, xc, uc, mu


def report(p, path, top):
    x = np.loadtxt(path, ndmin=1)
    if x.shape != (p.n,):
        fail(f"{path}: {x.size} values, the problem has {p.n} rows")
    F, xc, uc, mu = parts(p, x)
    f2 = np.sum(F * F, axis=1)
    total = f2.sum()
    q = np.sqrt(total) / max(1.0, np.linalg.norm(p.b))
    order = np.argsort(-f2)
    cum = np.cumsum(f2[order]) / total if total > 0 else np.ones(len(f2))
    hold = [int(np.searchsorted(cum, s) + 1) for s in (0.5, 0.9, 0.99)]
    print(f"{path}: res_rel_q {q:.3e}; {len(f2)} contacts; 50/90/99 % of ||F||^2 on "
          f"{hold[0]}/{hold[1]}/{hold[2]} contacts")
    print("  contact  |F_c|      x_N        u_N        |u_T|      |x_T|/(mu x_N)")
    for c in order[:top]:
        ratio = np.linalg.norm(xc[c, 1:]) / (mu[c] * xc[c, 0]) if xc[c, 0] > 0 else float("nan")
        print(f"  {c:7d}  {np.sqrt(f2[c]):.3e}  {xc[c, 0]:.3e}  {uc[c, 0]:+.3e}  "
              f"{np.linalg.norm(uc[c, 1:]):.3e}  {ratio:.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("problem")
    ap.add_argument("answers", nargs="+")
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    try:
        p = lcplab.read(a.problem)
    except (OSError, ValueError, lcplab.Error) as e:
        fail(f"{a.problem}: {e}")
    if p.cones is None or getattr(p, "cone_law", "coulomb") != "coulomb":
        fail(f"{a.problem}: not a Coulomb-cone problem")
    for path in a.answers:
        try:
            report(p, path, a.top)
        except OSError as e:
            fail(f"{path}: {e}")
        except ValueError as e:  # a line that is not a number
            fail(f"{path}: not one number a line: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
