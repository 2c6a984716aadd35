#!/usr/bin/env python3
"""highmu_family.py -- a family of high-friction local contact problems (issue 80, item 4).

Builds scenes with the Python package (lcplab.Model, lcplab.World with friction="cone") at a
friction coefficient from 0.8 to 3, steps each for a while and writes the local Coulomb problem
(Siconos fc3d .dat) of chosen steps: containers (spheres and boxes in a walled box, a bin of
mixed shapes), piles, resting stacks, inclines and impacts, from ten to several hundred contacts.

    highmu_family.py OUTDIR [--size small|medium|large|all] [--force]

Every problem is named SCENE-SIZE-muMU-stepK.dat; a line per problem goes to OUTDIR/index.txt
(name, contacts). Nothing here judges or solves: experiments/bench_highmu.sh does, and the tests
(python/tests/test_highmu.py) solve the small ones.
"""
import argparse
import os
import sys

import numpy as np

import lcplab

from outfile import appending  # outputs never written through a planted link

MUS = (0.8, 1.0, 1.5, 2.0, 3.0)


def _walls(m, floor, half, mat, z0=0.0):
    m.add_shape(floor, "plane", normal=(0, 0, 1), offset=z0, material=mat)
    for nrm in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0)):
        m.add_shape(floor, "plane", normal=nrm, offset=-half, material=mat)


def _sphere(m, pos, r, mat, vel=(0, 0, 0), mass=1.0):
    b = m.add_body(mass, np.full(3, 0.4 * mass * r * r), position=pos, velocity=vel)
    m.add_shape(b, "sphere", radius=r, material=mat)
    return b


def _box(m, pos, h, mat, vel=(0, 0, 0), mass=1.0):
    hx, hy, hz = h
    inertia = mass / 3.0 * np.array([hy * hy + hz * hz, hx * hx + hz * hz, hx * hx + hy * hy])
    b = m.add_body(mass, inertia, position=pos, velocity=vel)
    m.add_shape(b, "box", half_extents=h, material=mat)
    return b


def container(mu, k, rng):
    """k x k x k spheres in a walled box, two boxes dropped on them (the user's scene of
    issue 80 at k = 3)."""
    m = lcplab.Model("container")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    r, gap = 0.1, 0.22
    half = 0.5 * gap * k + 0.02
    _walls(m, floor, half, mat)
    for i in range(k):
        for j in range(k):
            for l in range(k):
                jit = 0.01 * rng.standard_normal(2)
                _sphere(m, (-half + 0.13 + gap * i + jit[0], -half + 0.13 + gap * j + jit[1],
                            0.12 + gap * l), r, mat)
    for x in (-0.1, 0.1):
        _box(m, (x, 0.0, 0.15 + gap * k), (0.08, 0.08, 0.08), mat, mass=2.0)
    return m


def pile(mu, k, rng):
    """k spheres of mixed radii dropped into a walled square: a pile."""
    m = lcplab.Model("pile")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    half = 0.12 * np.sqrt(k) / 2 + 0.1
    _walls(m, floor, half, mat)
    side = max(2, int(np.floor(2 * (half - 0.08) / 0.13)))
    for i in range(k):
        a, b, c = i % side, (i // side) % side, i // (side * side)
        pos = (-half + 0.09 + 0.13 * a + 0.005 * rng.standard_normal(),
               -half + 0.09 + 0.13 * b + 0.005 * rng.standard_normal(), 0.08 + 0.13 * c)
        _sphere(m, pos, 0.05 + 0.01 * rng.random(), mat, mass=0.5 + rng.random())
    return m


def stack(mu, k, rng):
    """A resting column of k boxes (four contact points a face), the top one heavier, with a
    sideways push on the bottom: sticking everywhere at high mu."""
    m = lcplab.Model("stack")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    m.add_shape(floor, "plane", normal=(0, 0, 1), material=mat)
    h = 0.1
    for i in range(k):
        _box(m, (0.003 * rng.standard_normal(), 0.0, h + 2 * h * i), (0.2, 0.15, h), mat,
             vel=(0.3 if i == 0 else 0.0, 0, 0), mass=3.0 if i == k - 1 else 1.0)
    return m


def incline(mu, k, rng):
    """k boxes and spheres on a plane tilted by 35 degrees (tan 35 = 0.7 < mu: they stick), some
    sliding in at a speed."""
    m = lcplab.Model("incline")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    th = np.radians(35.0)
    nrm = (np.sin(th), 0.0, np.cos(th))
    m.add_shape(floor, "plane", normal=nrm, offset=0.0, material=mat)
    m.add_shape(floor, "plane", normal=(1, 0, 0), offset=-1.5, material=mat)  # a stop
    tdir = np.array([np.cos(th), 0.0, -np.sin(th)])
    nvec = np.array(nrm)
    for i in range(k):
        along = -1.0 + 0.25 * (i % 8)
        across = -0.4 + 0.25 * (i // 8)
        base = along * tdir + np.array([0.0, across, 0.0])
        v = tuple(-1.0 * tdir) if i % 3 == 0 else (0, 0, 0)
        if i % 2 == 0:
            _box(m, tuple(base + 0.061 * nvec), (0.08, 0.08, 0.06), mat, vel=v)
        else:
            _sphere(m, tuple(base + 0.071 * nvec), 0.07, mat, vel=v)
    return m


def impact(mu, k, rng):
    """A layer of k resting boxes hit by spheres thrown at 3 m/s sideways and down."""
    m = lcplab.Model("impact")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    half = 0.25 * np.sqrt(k) + 0.3
    _walls(m, floor, half, mat)
    side = max(1, int(np.ceil(np.sqrt(k))))
    for i in range(k):
        _box(m, (-0.25 * side / 2 + 0.25 * (i % side), -0.25 * side / 2 + 0.25 * (i // side),
                 0.06), (0.1, 0.1, 0.06), mat)
    for i in range(max(2, k // 3)):
        pos = (0.6 * rng.standard_normal() * 0.3, 0.6 * rng.standard_normal() * 0.3, 0.25)
        _sphere(m, pos, 0.06, mat, vel=(2.0 * rng.standard_normal(), 2.0 * rng.standard_normal(),
                                        -3.0), mass=2.0)
    return m


def mixed_bin(mu, k, rng):
    """k bodies of mixed shapes (spheres, boxes, capsules, hulls) in a walled bin."""
    m = lcplab.Model("bin")
    mat = m.add_material(mu=mu)
    floor = m.add_body(static=True, name="floor")
    half = 0.11 * np.sqrt(k) / 1.5 + 0.15
    _walls(m, floor, half, mat)
    side = max(2, int(np.floor(2 * (half - 0.1) / 0.16)))
    for i in range(k):
        a, b, c = i % side, (i // side) % side, i // (side * side)
        pos = (-half + 0.1 + 0.16 * a + 0.01 * rng.standard_normal(),
               -half + 0.1 + 0.16 * b + 0.01 * rng.standard_normal(), 0.1 + 0.16 * c)
        kind = i % 4
        if kind == 0:
            _sphere(m, pos, 0.06, mat)
        elif kind == 1:
            _box(m, pos, (0.06, 0.05, 0.04), mat)
        elif kind == 2:
            bd = m.add_body(1.0, (0.004, 0.004, 0.001), position=pos)
            m.add_shape(bd, "capsule", radius=0.03, half_length=0.05, material=mat)
        else:
            bd = m.add_body(1.0, (0.003, 0.003, 0.003), position=pos)
            pts = rng.standard_normal((10, 3))
            pts = 0.06 * pts / np.linalg.norm(pts, axis=1)[:, None]
            m.add_shape(bd, "hull", points=pts, material=mat)
    return m


# scene, its size parameter per size class, the steps whose problems are written
SCENES = {
    "container": (container, {"small": 2, "medium": 3, "large": 4}, (40, 90)),
    "pile": (pile, {"small": 6, "medium": 40, "large": 120}, (50, 120)),
    "stack": (stack, {"small": 3, "medium": 8, "large": 20}, (5, 40)),
    "incline": (incline, {"small": 3, "medium": 12, "large": 40}, (10, 40)),
    "impact": (impact, {"small": 4, "medium": 16, "large": 49}, (8, 14)),
    "bin": (mixed_bin, {"small": 5, "medium": 30, "large": 90}, (50, 120)),
}


def trajectory_world(m, max_iter=300):
    """The world whose trajectory makes the states: NSGS at a loose tolerance, every step
    applied. A step the world judges failed (a budget stop whose impulses add energy beyond the
    per-step bound, docs/dynamics.md) applies the fallback solver's answer (on_failure
    "fallback"); under "keep" such a step ended the trajectory (bin-medium-mu3 at step 72, its
    step-120 problem never written)."""
    return lcplab.World(m, solver="nsgs", friction="cone", dt=0.01, tol=1e-5, max_iter=max_iter,
                        on_failure="fallback")


def scene_world(scene, size, mu):
    """The scene's model at that size and mu (seed 7) in its trajectory_world."""
    build, sizes, _ = SCENES[scene]
    return trajectory_world(build(mu, sizes[size], np.random.default_rng(7)))


def export(scene, size, mu, outdir, force):
    """Runs the scene and writes its problems at the chosen steps; yields (name, contacts)."""
    steps = SCENES[scene][2]
    w = scene_world(scene, size, mu)
    for s in range(1, max(steps) + 1):
        w.step()
        if s not in steps:
            continue
        last = w.last_problem()
        if last is None:
            continue
        p = last[0]
        nc = len(w.contacts().get("depth", []))
        if nc == 0:
            continue
        name = f"{scene}-{size}-mu{mu:g}-step{s}.dat"
        path = os.path.join(outdir, name)
        if os.path.exists(path) and not force:
            print(f"highmu_family.py: {path} exists (--force to replace it)", file=sys.stderr)
            sys.exit(2)
        lcplab.write(p, path, force=force)
        yield name, nc


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--size", default="all", choices=("small", "medium", "large", "all"))
    ap.add_argument("--mu", type=float, action="append", help="only these mu (repeatable)")
    ap.add_argument("--scene", action="append", choices=sorted(SCENES), help="only these scenes")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    sizes = ("small", "medium", "large") if a.size == "all" else (a.size,)
    mus = tuple(a.mu) if a.mu else MUS
    for mu in mus:
        if not (np.isfinite(mu) and 0 < mu):
            print(f"highmu_family.py: --mu {mu}: must be finite and > 0", file=sys.stderr)
            return 2
    with appending(os.path.join(a.outdir, "index.txt"), "highmu_family.py") as idx:
        for scene in a.scene or SCENES:
            for size in sizes:
                for mu in mus:
                    for name, nc in export(scene, size, mu, a.outdir, a.force):
                        idx.write(f"{name} {nc}\n")
                        print(name, nc, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
