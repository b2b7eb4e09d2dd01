#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where the time of a run went, from the `times` files its steps wrote
(`timed` in ci/lib.sh).

  timing.py DIR    DIR is a results folder of ci/jobs/run-series.sh (or
                   ci/jobs/bisect.sh): every step of every row, with its minutes
                   and, for a build, whether it was cold; or of ci/tests/test.sh
                   (it has a `stages` file): every stage, with what the runs
                   inside it spent their time on.

A line of a times file is STEP, its start and end (epoch seconds), the
ccache hits and misses of its compilations, and for a build of
ci/3-build/build.sh the objects its folder holds and, where it bypassed
ccache, the objects it compiled, tab-separated (counted as misses). A build is
"incremental" when it compiled fewer than 100 objects (the build folder
held the rest), "cold" when most of its compilations missed ccache, and
"ccache" when a build of most objects was answered by ccache.

A build is "whole" when it compiled more than half the objects of its
folder (a build from an empty folder compiles all of them; one after a
change to a header that mmzone.h pulls in, nearly all): the minutes of a
cold run. Where the objects are not recorded (older
times files), a cold build counts as whole. The table of ci/tests/test.sh lists
them, with the stage and row that made each, and warns (never fails)
when there are more than ci/timing/whole-builds lists for a cold run of
the stages it ran.
"""
import fnmatch
import os
import re
import sys

INCREMENTAL = 100      # fewer objects compiled than this: incremental
SETUP = ("deps", "tree", "image")


def read_times(path):
    out = []
    with open(path) as f:
        for line in f:
            w = line.rstrip("\n").split("\t")
            if len(w) < 3:
                continue
            hits, misses = (int(w[3]), int(w[4])) if len(w) >= 5 else (0, 0)
            objects = int(w[5]) if len(w) >= 6 and w[5].isdigit() else None
            uncached = int(w[6]) if len(w) >= 7 and w[6].isdigit() else 0
            out.append(dict(step=w[0], start=int(w[1]), end=int(w[2]),
                            hits=hits, misses=misses + uncached,
                            objects=objects, uncached=uncached))
    return out


def build_state(t):
    """cold, ccache or incremental for a build step, else None."""
    if not t["step"].startswith("build"):
        return None
    n = t["hits"] + t["misses"]
    if n < INCREMENTAL:
        return "incremental"
    return "cold" if 2 * t["misses"] > n else "ccache"


def is_whole(t):
    """Whether a build step compiled (nearly) the whole kernel."""
    state = build_state(t)
    if state is None:
        return False
    if t["objects"]:
        return 2 * (t["hits"] + t["misses"]) > t["objects"]
    # Unrecorded: a cold build, but not Debian's configuration, which
    # compiles only the objects the series touches (ci/3-build/build-distro.sh).
    return state == "cold" and t["step"] != "build-debian"


def build_words(t):
    """A build step's state and counts, as the tables show them."""
    s = build_state(t)
    if not s:
        return ""
    of = f" of {t['objects']}" if t["objects"] else ""
    if t["uncached"]:
        return f"{s} ({t['uncached']} without ccache{of})" + \
            (", whole" if is_whole(t) else "")
    return f"{s} ({t['hits']}/{t['misses']}{of})" + \
        (", whole" if is_whole(t) else "")


def kind(row, step):
    """What a step counts as in the summary: its row is the folder name
    (NN-default, NN-debug, NN-kcsan, point-K) or None for the job's own."""
    if row is None:
        return "setup" if step in SETUP else None
    m = re.match(r"\d+-(\w+)$", row)
    config = m.group(1) if m else "default"
    if step in ("apply", "checkpatch"):
        return "apply, checkpatch"
    if step == "probe":
        return "accelerator probe"
    if config in ("debug", "kcsan"):
        return config + (" build" if step == "build" else " boots")
    if step == "build":
        return "build"
    if step == "build-debian":
        return "distro"
    if step.startswith("build-"):
        return "variants"
    return "boots" if step.startswith("boot") else step


def series_steps(root, where=False):
    """Every step under ROOT: (row, step dict), row None for the lines of
    a job's own times file (deps, tree, image, job). With WHERE, each step
    dict also gets "where", its row's folder relative to ROOT (a fault's
    row: FAULT/run/NN-CONFIG)."""
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs.sort()
        if "times" not in files:
            continue
        lines = read_times(os.path.join(dirpath, "times"))
        own = any(t["step"] in SETUP + ("job",) for t in lines)
        row = None if own else os.path.basename(dirpath)
        for t in lines:
            if where:
                t["where"] = os.path.relpath(dirpath, root)
            out.append((row, t))
    return out


def minutes(s):
    return f"{s / 60:5.1f}"


def mmss(s):
    return f"{s // 60:02d}:{s % 60:02d}"


def summarize(steps):
    """{kind: [seconds, count, {build state: count}]}"""
    out = {}
    for row, t in steps:
        k = kind(row, t["step"])
        if k is None:
            continue
        e = out.setdefault(k, [0, 0, {}])
        e[0] += t["end"] - t["start"]
        e[1] += 1
        s = build_state(t)
        if s:
            e[2][s] = e[2].get(s, 0) + 1
    return out


def describe(entry):
    secs, n, states = entry
    words = ", ".join(f"{v} {s}" for s, v in sorted(states.items()))
    return f"{minutes(secs)}  {n} step{'s' if n != 1 else ''}" + \
        (f" ({words})" if words else "")


def print_summary(steps, indent="  "):
    summ = summarize(steps)
    for k in sorted(summ, key=lambda k: -summ[k][0]):
        print(f"{indent}{k:<20} {describe(summ[k])}")
    return sum(e[0] for e in summ.values())


def series_table(root):
    steps = series_steps(root)
    job = [t for row, t in steps if row is None and t["step"] == "job"]
    if not steps:
        print(f"timing: no times files under {root}")
        return
    t0 = job[0]["start"] if job else min(t["start"] for _, t in steps)
    t1 = job[0]["end"] if job else max(t["end"] for _, t in steps)
    print(f"Where the time went (minutes; ci/timing/timing.py {root}):")
    print(f"  {'row':<12} {'step':<22} {'at':>5}   min  build (ccache hits/misses)")
    for row, t in sorted(steps, key=lambda x: (x[1]["start"], x[1]["end"])):
        if t["step"] == "job":
            continue
        print(f"  {row or 'job':<12} {t['step']:<22} {mmss(t['start'] - t0)} "
              f"{minutes(t['end'] - t['start'])}  {build_words(t)}")
    print("By kind:")
    inside = print_summary(steps)
    print(f"  {'outside the steps':<20} {minutes(t1 - t0 - inside)}")
    print(f"  {'total':<20} {minutes(t1 - t0)}"
          + ("" if job else "  (the job did not finish: first to last step)"))


def test_table(root):
    stages = []
    with open(os.path.join(root, "stages")) as f:
        for line in f:
            w = line.rstrip("\n").split("\t")
            stages.append((w[0], int(w[1]), int(w[2]), w[3] if len(w) > 3 else ""))
    if not stages:
        print(f"timing: no stages in {root}/stages")
        return
    print(f"Where the time went (minutes; ci/timing/timing.py {root}):")
    # The LTS stages run beside the others (ci/tests/test.sh): when each
    # started tells which overlapped.
    print("     at    min  stage")
    t0 = min(s[1] for s in stages)
    every = []
    for name, start, end, res in sorted(stages, key=lambda s: s[1]):
        print(f"  {mmss(start - t0)} {minutes(end - start)}  {name}")
        if res and os.path.isdir(res):
            steps = series_steps(res)
            every.extend(steps)
            print_summary(steps, indent="           ")
    print("Over all the stages, by kind:")
    print_summary(every)
    t1 = max(s[2] for s in stages)
    print(f"  {'total':<20} {minutes(t1 - t0)}  (first stage's start to last stage's end)")
    whole_builds(stages)


def read_expected(path):
    """ci/timing/whole-builds: [(stage, row pattern, why)]."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            w = [x.strip() for x in line.split("\t") if x.strip()]
            out.append((w[0], w[1] if len(w) > 1 else "*",
                        w[2] if len(w) > 2 else ""))
    return out


def whole_builds(stages):
    """List the whole builds of the run, each with the stage and the row
    that made it, against those ci/timing/whole-builds expects of a cold run."""
    made = []
    for name, _, _, res in stages:
        if not res or not os.path.isdir(res):
            continue
        for _, t in series_steps(res, where=True):
            if is_whole(t):
                made.append((name, t))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "whole-builds")
    ran = {name for name, _, _, _ in stages}
    expected = [e for e in (read_expected(path) if os.path.exists(path)
                            else []) if e[0] in ran]
    left = list(expected)
    print(f"Whole builds (more than half the objects of their folder): "
          f"{len(made)}; ci/timing/whole-builds lists {len(expected)} "
          f"for a cold run")
    unlisted = []
    for name, t in sorted(made, key=lambda m: m[1]["start"]):
        why = None
        for e in left:
            if e[0] == name and fnmatch.fnmatchcase(t["where"], e[1]):
                why = e[2] or "listed"
                left.remove(e)
                break
        if why is None:
            why = "NOT LISTED in ci/timing/whole-builds"
            unlisted.append(f"{name}: {t['where']} {t['step']}")
        print(f"  {minutes(t['end'] - t['start'])}  {name}: {t['where']} "
              f"{t['step']}, {build_words(t)}: {why}")
    # A warning, not a failure: the run's checks are what pass or fail.
    if len(made) > len(expected) or unlisted:
        print(f"WARNING: {len(made)} whole builds, {len(expected)} listed in "
              f"ci/timing/whole-builds, {len(unlisted)} not listed "
              f"({'; '.join(unlisted) or 'none'}): each is minutes of a "
              f"2-core machine, and the test command has an hour")


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(64)
    root = sys.argv[1]
    if os.path.exists(os.path.join(root, "stages")):
        test_table(root)
    else:
        series_table(root)


if __name__ == "__main__":
    main()
