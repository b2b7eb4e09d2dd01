#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Statistics and report for benchmarks/run.sh (standard library only).

    stats.py samples RUNDIR            -> RUNDIR/samples.tsv (from the boots)
    stats.py report RUNDIR CLAIMS OUT  -> OUT.md, OUT.tsv, OUT.dat, OUT.gp
    stats.py determinism RUNDIR [OUT]  -> per workload spread of -icount runs
                                          (and OUT.md with the run's facts)

RUNDIR holds `meta` (key: value lines), `points` (k<TAB>name lines) and
boots/<mode>-r<round>-p<k>/ktap.txt, whose `BENCH <workload> <phase>
<usec>` lines are the samples; the lockstat boots' `LOCK` and `LOCKDEP`
lines, with their zswap-keys file, give zswap's tree lock counts, and
their `CALLS` lines the calls of zswap_invalidate() and the slots they
covered. Each point is compared with the previous one asked for (a patch's
effect: point k against k-1), and the last with the first; where the meta
says `compare: variants` (run.sh --variant), every point is an alternative
kernel, compared with the base (point 0) and with each other. Runs are
paired by round (the boots were interleaved), as the ratio of the means
with a 95% confidence interval by Fieller's theorem for paired samples (t
quantile, n-1 degrees of freedom).
"""
import fnmatch
import math
import os
import re
import statistics
import sys

# Whether a boot ended well, and its splats: ci/7-verdict/judge.py, the
# pipeline's one judge.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "ci", "7-verdict"))
import judge  # noqa: E402

# Two-sided 95% quantiles of Student's t, by degrees of freedom.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
        7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179,
        13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
        19: 2.093, 20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000,
        120: 1.980}
DETERMINISM_LIMIT = 0.5  # percent
# A change whose whole CI lies within +-NEGLIGIBLE percent is called
# negligible: icount resolves 0.01%, far below anything worth claiming.
NEGLIGIBLE = 0.1


def t975(df):
    best = max(k for k in T975 if k <= df) if df <= 120 else None
    return T975[best] if best else 1.960


def read_meta(run):
    meta = {}
    with open(os.path.join(run, "meta")) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(": ")
            meta[k] = v
    points = []
    with open(os.path.join(run, "points")) as f:
        for line in f:
            k, name = line.rstrip("\n").split("\t", 1)
            points.append((int(k), name))
    return meta, points


RULES = judge.Rules()
BOOT = re.compile(r"^(?P<mode>[a-z]+)-r(?P<round>\d+)-p(?P<k>\d+)$")


def collect(run):
    """Rows (mode, round, k, workload, phase, usec) of every boot."""
    rows, bad = [], []
    bdir = os.path.join(run, "boots")
    for d in sorted(os.listdir(bdir)):
        m = BOOT.match(d)
        if not m:
            continue
        path = os.path.join(bdir, d, "ktap.txt")
        text = open(path, errors="replace").read() if os.path.exists(path) else ""
        for line in text.splitlines():
            w = line.split()
            if len(w) == 4 and w[0] == "BENCH" and w[1] != "warmup":
                rows.append((m["mode"], int(m["round"]), int(m["k"]),
                             w[1], w[2], int(w[3])))
            elif w and w[0] == "BENCH-ERR":
                bad.append("%s: %s" % (d, " ".join(w[1:])))
        outcome, why = judge.boot_outcome(os.path.join(bdir, d), RULES)
        if outcome != "ok":
            bad.append("%s: the boot did not end well: %s%s"
                       % (d, outcome, ": " + why if why else ""))
        console = judge.read(os.path.join(bdir, d, "console.log"))
        splats = [s for s in judge.console_splats(console, RULES, "")
                  if not s["allowed"]]
        for s in splats[:3]:
            bad.append("%s: splat during %s: %s"
                       % (d, s["owner"] or "boot", s["line"]))
    return rows, bad


def write_samples(run):
    rows, bad = collect(run)
    with open(os.path.join(run, "samples.tsv"), "w") as f:
        f.write("mode\tround\tpoint\tworkload\tphase\tusec\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    for b in bad:
        print("warning: " + b, file=sys.stderr)
    return rows, bad


def fieller(x, y):
    """Ratio mean(y)/mean(x) and its 95% CI from paired samples; the CI
    is (None, None) with fewer than 2 pairs or when it is unbounded."""
    n = len(x)
    mx, my = statistics.fmean(x), statistics.fmean(y)
    ratio = my / mx
    if n < 2:
        return ratio, None, None
    sxx = statistics.variance(x) / n
    syy = statistics.variance(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y)) / (n - 1) / n
    t2 = t975(n - 1) ** 2
    a = mx * mx - t2 * sxx
    b = mx * my - t2 * sxy
    c = my * my - t2 * syy
    disc = b * b - a * c
    if a <= 0 or disc < 0:
        return ratio, None, None
    r = math.sqrt(disc)
    return ratio, (b - r) / a, (b + r) / a


def read_claims(path):
    claims = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split(None, 6)
            claims.append(dict(patch=w[0], workload=w[1], phase=w[2],
                               kind=w[3], pct=float(w[4]), seed=w[5],
                               note=w[6] if len(w) > 6 else ""))
    return claims


def find_claim(claims, patch, workload, phase):
    for c in claims:
        if (fnmatch.fnmatch(patch, c["patch"]) and
                fnmatch.fnmatch(workload, c["workload"]) and
                fnmatch.fnmatch(phase, c["phase"])):
            return c
    return None


def verdict(lo, hi, claim):
    """What the CI says about the claim; a CI that includes 1, or lies
    within +-NEGLIGIBLE%, is never a win. Without a claim: faster, slower,
    negligible or no change."""
    if lo is None:
        return "inconclusive (CI unbounded)"
    band = NEGLIGIBLE / 100
    if 1 - band <= lo and hi <= 1 + band:
        seen = "negligible"
    elif hi < 1:
        seen = "faster"
    elif lo > 1:
        seen = "slower"
    else:
        seen = "none"
    if claim is None:
        return {"none": "no change",
                "negligible": "negligible (CI within +-%g%%)" % NEGLIGIBLE
                }.get(seen, seen) + " (no claim)"
    want = claim["kind"]
    if want == "same":
        return "as claimed: no change" if seen in ("none", "negligible") \
            else "CHANGED: %s (claimed no change)" % seen
    if seen == "none":
        return "ABSENT (CI includes 1)"
    if seen == "negligible":
        return "ABSENT (CI within +-%g%%)" % NEGLIGIBLE
    if seen != want:
        return "REVERSED (%s)" % seen
    c = 1 + claim["pct"] / 100
    if c < lo:
        return "there, smaller than claimed" if want == "faster" else \
            "there, larger than claimed"
    if c > hi:
        return "there, larger than claimed" if want == "faster" else \
            "there, smaller than claimed"
    return "there"


def pct(v):
    return "%+.2f%%" % ((v - 1) * 100)


def ci_text(ratio, lo, hi):
    if lo is None:
        return "%.4f [unbounded]" % ratio
    return "%.4f [%.4f, %.4f]" % (ratio, lo, hi)


def group(rows):
    """{(mode, workload, phase): {k: {round: usec}}}, workloads in the
    order they first ran."""
    data = {}
    for mode, rnd, k, wl, ph, us in rows:
        data.setdefault((mode, wl, ph), {}).setdefault(k, {})[rnd] = us
    return data


def spread(vals):
    """(max - min) / mean, in percent."""
    return (max(vals) - min(vals)) / statistics.fmean(vals) * 100


def determinism(data, mode="icount"):
    """Per (workload, phase): the largest spread of one kernel's runs."""
    out = {}
    for (m, wl, ph), per in data.items():
        if m != mode:
            continue
        s = [spread(list(v.values())) for v in per.values() if len(v) > 1]
        if s:
            out[(wl, ph)] = (max(s), min(len(v) for v in per.values()))
    return out


def fmt_ms(vals):
    m = statistics.fmean(vals) / 1000
    sd = statistics.stdev(vals) / 1000 if len(vals) > 1 else 0
    return "%.2f ± %.2f" % (m, sd)


def header(what, meta, points):
    """The title and the run's facts, as the reports begin."""
    L = ["# %s: %s" % (what, meta.get("title", "swap paths")), ""]
    variants = [k for k in meta if k.startswith("variant ")]
    for k in ("base", "series", "compare", *variants, "qemu", "host", "date",
              "modes", "lockstat", "sizes", "command", "resumed with",
              "note"):
        if k in meta:
            v = meta[k]
            L.append("- %s: %s" % (k, "`%s`" % v if k in (
                "command", "resumed with") else v))
    L.append("- points: " + "; ".join("%d = %s" % p for p in points))
    L.append("")
    return L


# /proc/lock_stat keeps two characters of a class's "#N": #14 shows as #1.
LS_NAME = re.compile(r"#(\d)\d+$")


# The locks counted: the file of a class's lockdep keys (written next to
# a lockstat kernel by run.sh), the start of its class name, its title.
LOCKS = [("zswap-keys", "&xa->xa_lock", "zswap tree lock",
          "zswap's tree lock (the XArray lock of its trees)",
          "the key of spin_lock_init() in xa_init_flags(), one per file",
          "zswap.c"),
         ("swapcg-keys", "&ctrl->lock", "swap_cgroup lock",
          "swap_cgroup's per-device lock (ctrl->lock; the kernels after "
          "the patch that removes it have none)", "the key of its "
          "spin_lock_init() in "
          "swap_cgroup_swapon()", "swap_cgroup.c")]


def lock_counts(run, keyfile="zswap-keys", prefix="&xa->xa_lock"):
    """One lock in the lockstat boots: {(workload, phase): {k: {round:
    (acquisitions, contentions, longest wait, longest hold)}}} (times in
    us, None where the boot did not print them), and notes. The class is the one named
    PREFIX... whose key (/proc/lockdep) is in KEYFILE, the lockdep keys
    of the lock's source file. A point without the file or the class (a
    kernel without that lock, or one that never took it) counts 0."""
    counts, notes = {}, set()
    bdir = os.path.join(run, "boots")
    for d in sorted(os.listdir(bdir)):
        m = BOOT.match(d)
        path, kpath = (os.path.join(bdir, d, f) for f in ("ktap.txt",
                                                         keyfile))
        if not m or m["mode"] != "lockstat" or \
                not os.path.exists(os.path.join(bdir, d, "zswap-keys")):
            continue
        keys = set()
        if os.path.exists(kpath):
            with open(kpath) as f:
                keys = {int(line.split()[0], 16) for line in f
                        if line.strip()}
        classes, locks, phases = {}, {}, []
        for line in open(path, errors="replace"):
            w = line.split()
            if len(w) == 4 and w[0] == "LOCKDEP":
                classes[int(w[2], 16)] = w[3]
            elif len(w) in (6, 8) and w[0] == "LOCK":
                # Older boots print no times: their longest wait and
                # hold are unknown (None).
                locks[tuple(w[1:4])] = (int(w[5]), int(w[4])) + (
                    (float(w[6]), float(w[7])) if len(w) == 8
                    else (None, None))
            elif len(w) == 4 and w[0] == "BENCH" and w[1] != "warmup" \
                    and not w[2].endswith("-cpu"):
                phases.append((w[1], w[2]))
        if not phases:  # the guest did not run (collect() says so)
            continue
        mine = {n for a, n in classes.items()
                if a in keys and n.startswith(prefix)}
        shown = LS_NAME.sub(r"#\1", min(mine)) if mine else None
        same = {n for n in classes.values() if LS_NAME.sub(r"#\1", n) == shown}
        if len(mine) > 1 or len(same) > 1:
            notes.add("%s: the lock cannot be told apart: %s"
                      % (d, ", ".join(sorted(mine | same))))
            continue
        notes.add("point %s: %s" % (m["k"], min(mine) if mine else
                                    "no class with its key: never taken"
                                    if keys else "no such lock"))
        for wl, ph in phases:
            counts.setdefault((wl, ph), {}).setdefault(int(m["k"]), {})[
                int(m["round"])] = locks.get((wl, ph, shown),
                                             (0, 0, 0.0, 0.0))
    return counts, sorted(notes)


def lock_lines(counts, notes, ks, meta, lock=LOCKS[0], pairs=None):
    """The table of one lock; ratios of acquisitions for PAIRS (j, k),
    k against j (default: each point against the one before)."""
    _, prefix, title, what, key, src = lock
    pairs = list(zip(ks, ks[1:])) if pairs is None else pairs

    def cell(vals):
        lo, hi = min(vals), max(vals)
        return "%d" % lo if lo == hi else "%d-%d" % (lo, hi)

    def longest(vals):
        vals = [x for x in vals if x is not None]
        return "%.2f" % max(vals) if vals else "-"
    L = ["## %s (lockstat mode)" % title, "",
         "How often each phase took %s and how often it found it held, "
         "from /proc/lock_stat (cleared at the start of the phase, read at "
         "its end) in the lockstat boots (%s), and the longest time a "
         "phase held it and waited for it (us, the most over the boots; "
         "lock statistics slow every lock, so these are for comparing the "
         "points, not absolute). The class is the `%s` one "
         "whose lockdep key (/proc/lockdep) is a `__key` of %s in the "
         "kernel's vmlinux (%s): %s. A range is min-max over the boots."
         % (what, meta.get("lockstat", "?"), prefix, src, key,
            "; ".join(notes)), ""]
    hdr = ["workload", "phase"]
    for k in ks:
        hdr += ["point %d acquisitions" % k, "point %d contentions" % k,
                "point %d longest hold" % k, "point %d longest wait" % k]
    hdr += ["acquisitions, %d/%d" % (k, j) for j, k in pairs]
    L += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for (wl, ph), per in counts.items():
        cells = [wl, ph]
        for k in ks:
            v = list(per.get(k, {}).values())
            cells += [cell([x[0] for x in v]), cell([x[1] for x in v]),
                      longest([x[3] for x in v]),
                      longest([x[2] for x in v])] \
                if v else ["-"] * 4
        for j, k in pairs:
            a = [x[0] for x in per.get(j, {}).values()]
            b = [x[0] for x in per.get(k, {}).values()]
            cells.append("%.3f" % (statistics.fmean(b) / statistics.fmean(a))
                         if a and b and any(a) else "-")
        L.append("| " + " | ".join(cells) + " |")
    return L + [""]


def boot_words(run, mode=None):
    """(the boot folder's BOOT match, a line's words) for every line of
    every boot's ktap.txt, of MODE's boots only where MODE is given."""
    bdir = os.path.join(run, "boots")
    for d in sorted(os.listdir(bdir)):
        m = BOOT.match(d)
        path = os.path.join(bdir, d, "ktap.txt")
        if not m or (mode and m["mode"] != mode) or not os.path.exists(path):
            continue
        for line in open(path, errors="replace"):
            yield m, line.split()


def calls_counts(run):
    """The lockstat boots' CALLS lines: {(workload, phase): {k: {round:
    (calls, slots, most slots of one call)}}}."""
    counts = {}
    for m, w in boot_words(run, "lockstat"):
        if len(w) == 7 and w[0] == "CALLS" and w[1] != "warmup" and \
                w[3] == "zswap_invalidate":
            counts.setdefault((w[1], w[2]), {}).setdefault(
                int(m["k"]), {})[int(m["round"])] = tuple(
                    int(x) for x in w[4:7])
    return counts


def found_counts(run):
    """The FOUND lines of a counting kernel's boots: {(workload, phase):
    {k: {(slots, found): [calls per boot]}}}."""
    counts = {}
    for m, w in boot_words(run):
        if len(w) == 6 and w[0] == "FOUND" and w[1] != "warmup":
            counts.setdefault((w[1], w[2]), {}).setdefault(
                int(m["k"]), {}).setdefault((w[3], w[4]), []).append(
                    int(w[5]))
    return counts


def found_lines(counts, names):
    def lo(key):
        return (int(key[0].split("-")[0]), ["none", "some", "all"].index(
            key[1]))
    ks = sorted({k for per in counts.values() for k in per})
    L = ["## zswap_invalidate() calls by slots and entries found", "",
         "Counted by a kernel that keeps a counter per (slots, entries "
         "found) of every call (benchmarks/variants/mainline-v3-count.patch"
         ", read and cleared around each phase through debugfs). A cell "
         "lists slots per call (a power-of-two range), entries found (none, "
         "some, all of the slots) and the calls, per boot (min-max where "
         "boots differ). Points: %s." % "; ".join(
             "%d = %s" % (k, names[k]) for k in ks), ""]
    hdr = ["workload", "phase"] + [names[k] for k in ks]
    L += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for (wl, ph), per in sorted(counts.items()):
        cells = [wl, ph]
        for k in ks:
            parts = []
            for key in sorted(per.get(k, {}), key=lo):
                v = per[k][key]
                n = "%d" % v[0] if min(v) == max(v) else "%d-%d" % (
                    min(v), max(v))
                parts.append("%s %s: %s" % (key[0], key[1], n))
            cells.append("; ".join(parts) or "-")
        L.append("| " + " | ".join(cells) + " |")
    return L + [""]


def calls_lines(counts, ks, names, meta):
    def cell(vals):
        lo, hi = min(vals), max(vals)
        return "%d" % lo if lo == hi else "%d-%d" % (lo, hi)
    L = ["## zswap_invalidate() calls and slots (lockstat mode)", "",
         "Counted in the lockstat boots (%s) by a kprobe event on "
         "zswap_invalidate() whose field is the call's slot count (its "
         "last argument where it takes a range, 1 where it takes one "
         "slot), summed per phase by a hist trigger (benchmarks/guest/"
         "lib.sh, swapbench.c). Per point: calls / slots (slots per call "
         "on average, most of one call). A range is min-max over the "
         "boots. Only calls of zswap_invalidate() count: an erase done "
         "elsewhere (7.3's zswap_store() failure path calls xa_erase() "
         "itself) shows only in the lock counts. Points: %s." % (meta.get("lockstat", "?"), "; ".join(
             "%d = %s" % (k, names[k]) for k in ks)), ""]
    hdr = ["workload", "phase"] + ["point %d" % k for k in ks]
    L += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
    for (wl, ph), per in counts.items():
        cells = [wl, ph]
        for k in ks:
            v = list(per.get(k, {}).values())
            if not v:
                cells.append("-")
                continue
            calls, slots = [c for c, _, _ in v], [s for _, s, _ in v]
            mean = statistics.fmean(slots) / statistics.fmean(calls) \
                if any(calls) else 0
            cells.append("%s / %s (%.1f, %s)" % (
                cell(calls), cell(slots), mean, cell([m for _, _, m in v])))
        L.append("| " + " | ".join(cells) + " |")
    return L + [""]


def paired(per, j, k):
    """The runs of points j and k paired by round, the ratio k/j with its
    CI, and the ratio's table cell; None when no round has both."""
    a, b = per.get(j, {}), per.get(k, {})
    rounds = sorted(set(a) & set(b))
    if not rounds:
        return None
    xs, ys = [a[i] for i in rounds], [b[i] for i in rounds]
    r, lo, hi = fieller(xs, ys)
    same = len(xs) > 1 and len(set(xs)) == len(set(ys)) == 1
    text = "%.4f (%d runs a point, identical)" % (r, len(xs)) if same \
        else "%s (n=%d)" % (ci_text(r, lo, hi), len(xs))
    return xs, ys, r, lo, hi, text


def short_verdict(lo, hi):
    return verdict(lo, hi, None).replace(" (no claim)", "")


def side_by_side(data, modes, keys, pairs, names, base_ms):
    """One table a mode: a row per workload and phase, for every pair
    (j, k) the ratio k/j with its CI, the change with its verdict, and
    the spread: the larger (max - min) / mean of the two kernels' runs.
    Returns the lines and the plot points (k, mode, wl, ph, ratio CI)."""
    L, plot = [], []
    for m in modes:
        L += ["### %s" % m, ""]
        hdr = ["workload", "phase"]
        if base_ms:
            hdr.append("base, ms")
        for j, k in pairs:
            t = names[k] if base_ms else \
                "%s / %s" % (names[k], names[j])
            hdr += ["%s ratio [95%% CI]" % t, "%s change" % t,
                    "%s spread" % t]
        L += ["| " + " | ".join(hdr) + " |", "|" + "---|" * len(hdr)]
        for wl, ph in keys:
            per = data.get((m, wl, ph), {})
            cells = [wl, ph]
            if base_ms:
                v = list(per.get(pairs[0][0], {}).values())
                cells.append(fmt_ms(v) if v else "-")
            for j, k in pairs:
                p = paired(per, j, k)
                if not p:
                    cells += ["-", "no data", "-"]
                    continue
                xs, ys, r, lo, hi, text = p
                cells += [text, "%s %s" % (pct(r), short_verdict(lo, hi)),
                          "%.3f%%" % max(spread(xs), spread(ys))]
                plot.append((k, m, wl, ph, (r, lo, hi)))
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
    return L, plot


def variant_report(run, out, meta, points, rows, bad, data, modes, keys):
    """run.sh --variant: every variant against the base, side by side, then
    each variant against each earlier one; the counts; means; determinism."""
    names = dict(points)
    ks = [k for k, _ in points]
    base, vs = ks[0], ks[1:]
    L = header("Benchmarks", meta, points)
    L.append(
        "Times are guest CLOCK_MONOTONIC. In `icount` mode QEMU runs one "
        "vCPU and guest time counts instructions (1 ns each): repeatable, "
        "but blind to lock contention and caches. In wall-clock mode (%s) "
        "the vCPUs are host threads and the host was shared. Every point "
        "but the base is an alternative kernel: the base plus the "
        "variant's own patches (the `variant` lines above). ratio = "
        "variant/base mean (or variant/variant), runs paired by round (the "
        "boots were interleaved); 95%% CI by Fieller's theorem for paired "
        "samples (t, n-1 df); `identical`: every run of both kernels gave "
        "the same time. change: `faster` or `slower` when the CI excludes "
        "1, `negligible` when it lies within +-%g%%. spread: the larger "
        "(max - min) / mean of the two kernels' runs, the run-to-run "
        "noise; it does not show the noise of code layout (any change of "
        "code moves the workloads that switch tasks or wait for the "
        "device, see benchmarks/README.md, Determinism)."
        % (meta.get("wall", "tcg"), NEGLIGIBLE))
    L.append("")
    if bad:
        L += ["Problems: " + "; ".join(bad), ""]
    L += ["## Every variant against the base", ""]
    t, plot = side_by_side(data, modes, keys, [(base, k) for k in vs],
                           names, True)
    L += t
    vv = [(j, k) for i, k in enumerate(vs) for j in vs[:i]]
    if vv:
        L += ["## Variant against variant", ""]
        L += side_by_side(data, modes, keys, vv, names, False)[0]
    report_end(L, run, out, meta, rows, data, modes, keys, plot, names,
               [(base, k) for k in vs] + vv, "variant vs base")


def report_end(L, run, out, meta, rows, data, modes, keys, plot, names,
               pairs=None, what="patched vs previous point"):
    """What both reports end with, after their comparison tables: calls to
    the invalidate path, lock acquisitions (swap_cgroup's lock only where
    some point's kernel has one), means, determinism; then the .md, .tsv
    and plot are written. pairs: the lock tables' comparisons (None: each
    point against the one before it)."""
    ks = list(names)
    calls = calls_counts(run)
    if calls:
        L += calls_lines(calls, ks, names, meta)
    found = found_counts(run)
    if found:
        L += found_lines(found, names)
    locks = [(lk,) + lock_counts(run, lk[0], lk[1]) for lk in LOCKS]
    locks = [(lk, c, n) for lk, c, n in locks if c and (
        lk is LOCKS[0] or any("no such lock" not in x for x in n))]
    for lk, counts, lnotes in locks:
        L += lock_lines(counts, lnotes, ks, meta, lk, pairs)
    L += means_lines(data, modes, keys, ks)
    det = determinism(data)
    if det:
        L += determinism_lines(det)
    with open(out + ".md", "w") as f:
        f.write("\n".join(L))
    write_tsv(out, rows, locks, calls)
    write_plot(out, plot, names, modes, keys, what)


def means_lines(data, modes, keys, ks):
    L = ["## Means per point (ms of guest time, mean ± sd)", ""]
    for m in modes:
        L.append("### %s" % m)
        L.append("")
        hdr = ["workload", "phase"] + ["point %d" % k for k in ks]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "---|" * len(hdr))
        for wl, ph in keys:
            per = data.get((m, wl, ph), {})
            cells = [wl, ph]
            for k in ks:
                v = list(per.get(k, {}).values())
                cells.append("%s (n=%d)" % (fmt_ms(v), len(v)) if v else "-")
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
    return L


def write_tsv(out, rows, locks, calls):
    """Every sample; lockstat rows also <phase>:acquisitions, :contentions
    for zswap's tree lock, <phase>:swapcg-acquisitions, ... for the other,
    and <phase>:zswap_invalidate-calls, -slots."""
    rows = list(rows)
    for lk, counts, _ in locks:
        p = "" if lk is LOCKS[0] else "swapcg-"
        for (wl, ph), per in counts.items():
            for k, runs in per.items():
                for rnd, (a, c, wmax, hmax) in runs.items():
                    rows += [("lockstat", rnd, k, wl,
                              ph + ":" + p + "acquisitions", a),
                             ("lockstat", rnd, k, wl,
                              ph + ":" + p + "contentions", c)]
                    rows += [("lockstat", rnd, k, wl, ph + ":" + p + what, t)
                             for what, t in (("longest-hold-us", hmax),
                                             ("longest-wait-us", wmax))
                             if t is not None]
    for (wl, ph), per in calls.items():
        for k, runs in per.items():
            for rnd, (c, sl, _) in runs.items():
                rows += [("lockstat", rnd, k, wl,
                          ph + ":zswap_invalidate-calls", c),
                         ("lockstat", rnd, k, wl,
                          ph + ":zswap_invalidate-slots", sl)]
    with open(out + ".tsv", "w") as f:
        f.write("mode\tround\tpoint\tworkload\tphase\tvalue\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")


def report(run, claims_path, out):
    meta, points = read_meta(run)
    rows, bad = write_samples(run)
    claims = read_claims(claims_path)
    data = group(rows)
    modes = [m for m in meta.get("modes", "icount").split(",")
             if m != "lockstat" and any(k[0] == m for k in data)]
    # Workloads in the order they ran, from the mode that ran the most.
    keys = []
    for m in sorted(modes, key=lambda m: -sum(k[0] == m for k in data)):
        for mode, wl, ph in data:
            if mode == m and (wl, ph) not in keys:
                keys.append((wl, ph))
    if meta.get("compare") == "variants":
        return variant_report(run, out, meta, points, rows, bad, data,
                              modes, keys)
    names = dict(points)
    ks = [k for k, _ in points]
    L = header("Benchmarks", meta, points)
    L.append(
        "Times are guest CLOCK_MONOTONIC. In `icount` mode QEMU runs one "
        "vCPU and guest time counts instructions (1 ns each): repeatable, "
        "but blind to lock contention and caches. In wall-clock mode (%s) "
        "the vCPUs are host threads and the host was shared. Each patch "
        "is compared with the point before it, runs paired by round (the "
        "boots were interleaved). ratio = patched/previous mean; 95%% CI "
        "by Fieller's theorem for paired samples (t, n-1 df). Verdict: "
        "`there` when the CI excludes 1 on the claimed side (`smaller` or "
        "`larger than claimed` when it also excludes the claimed value), "
        "`ABSENT` when the CI includes 1 or lies within +-%g%% "
        "(negligible), `REVERSED` when it excludes 1 on the other side. Claims are from the seed mails "
        "(benchmarks/claims.tsv), measured on other machines and sizes. "
        "With some 60 rows per patch and mode, a few 95%% CIs exclude 1 "
        "by chance alone: an isolated `faster` or `slower` among wide "
        "wall-clock CIs is not a finding."
        % (meta.get("wall", "tcg"), NEGLIGIBLE))
    L.append("")
    if bad:
        L.append("Problems: " + "; ".join(bad))
        L.append("")
    plot = []  # (k, mode, workload, phase, (ratio, lo, hi) or None)
    pairs = list(zip(ks, ks[1:]))
    if len(ks) > 2:
        pairs.append((ks[0], ks[-1]))
    for j, k in pairs:
        whole = (j, k) == (ks[0], ks[-1]) and len(ks) > 2
        if whole:
            L.append("## Whole series: point %d against point %d" % (k, j))
        elif k == j + 1:
            L.append("## Patch %d: %s" % (k, names[k]))
        else:
            L.append("## Patches %d-%d (up to %s), against point %d"
                     % (j + 1, k, names[k], j))
        L.append("")
        hdr = ["workload", "phase", "claimed (seed)"]
        for m in modes:
            hdr += ["%s ratio [95%% CI]" % m, "%s change" % m,
                    "%s verdict" % m]
        L.append("| " + " | ".join(hdr) + " |")
        L.append("|" + "---|" * len(hdr))
        for wl, ph in keys:
            c = None if whole else find_claim(claims, names[k], wl, ph)
            cells = [wl, ph, ("%s %+.1f%% (%s)" % (c["kind"], c["pct"],
                                                  c["seed"]) if c else "-")]
            for m in modes:
                per = data.get((m, wl, ph), {})
                p = paired(per, j, k)
                if not p:
                    cells += ["-", "-", "no data"]
                    continue
                _, _, r, lo, hi, text = p
                cells += [text, pct(r), verdict(lo, hi, c)]
                if not whole:
                    plot.append((k, m, wl, ph, (r, lo, hi)))
            L.append("| " + " | ".join(cells) + " |")
        L.append("")
    report_end(L, run, out, meta, rows, data, modes, keys, plot, names)


def determinism_ok(det):
    return all(s <= DETERMINISM_LIMIT for s, _ in det.values())


def determinism_lines(det):
    worst = max((s for s, _ in det.values()), default=0.0)
    same = sum(1 for s, _ in det.values() if s == 0)
    L = ["## Determinism (icount)", "",
         "Largest (max - min) / mean over the runs of one kernel, per "
         "workload and phase; every one must be within %.1f%%. What makes "
         "two boots agree: -seed (RDRAND), a fixed RTC on guest time, no "
         "address-space randomisation, and no virtio disk (the host "
         "completes its I/O at moments of its own; the swap-cache "
         "workloads use a loop device on a ramfs file)."
         % DETERMINISM_LIMIT, "",
         "| workload | phase | runs | spread | within %.1f%% |"
         % DETERMINISM_LIMIT, "|---|---|---|---|---|"]
    for (wl, ph), (s, n) in det.items():
        L.append("| %s | %s | %d | %.3f%% | %s |" % (
            wl, ph, n, s, "yes" if s <= DETERMINISM_LIMIT else "NO"))
    L.append("")
    if det:
        L.append("Worst %.3f%%, %s; %d of %d identical to the microsecond."
                 % (worst, "within %.1f%%" % DETERMINISM_LIMIT
                    if determinism_ok(det) else "NOT within %.1f%%"
                    % DETERMINISM_LIMIT, same, len(det)))
    L.append("")
    return L


def write_plot(out, plot, names, modes, keys, what="patched vs previous point"):
    """gnuplot data and script: percent change per workload and phase,
    one bar per patch (or variant), one panel per mode, 95% CI as error
    bars."""
    patches = sorted({p[0] for p in plot})
    if not patches:
        return
    # Per mode, unbounded CIs and outliers are clipped to a range that
    # shows most of the others: 1.2 times the 90th percentile of the
    # finite bounds, or more to show every bar (within [0.5%, 25%]).
    clips = {}
    for m in modes:
        finite = sorted(abs(x - 1) * 100 for p in plot if p[1] == m and p[4]
                        for x in p[4] if x is not None) or [1.0]
        q = finite[int(0.9 * (len(finite) - 1))]
        top = max((abs(p[4][0] - 1) * 100 for p in plot
                   if p[1] == m and p[4]), default=0.0)
        clips[m] = max(0.5, min(25.0, max(1.2 * q, 1.3 * top)))
    with open(out + ".dat", "w") as f:
        for m in modes:
            clip = clips[m]
            f.write("# mode %s\n" % m)
            for wl, ph in keys:
                cols = ["%s/%s" % (wl, ph)]
                for k in patches:
                    v = next((p[4] for p in plot if p[:4] == (k, m, wl, ph)),
                             None)
                    if v is None:
                        cols += ["NaN"] * 3
                        continue
                    r, lo, hi = v
                    lo = -clip if lo is None else (lo - 1) * 100
                    hi = clip if hi is None else (hi - 1) * 100
                    cols += ["%.4f" % max(-clip, min(clip, x))
                             for x in ((r - 1) * 100, lo, hi)]
                f.write(" ".join(cols) + "\n")
            f.write("\n\n")
    png = os.path.basename(out) + ".png"
    dat = os.path.basename(out) + ".dat"
    g = ["set terminal pngcairo size 1800,%d font ',10'" % (420 * len(modes)),
         "set output '%s'" % png,
         "set multiplot layout %d,1" % len(modes),
         "set style data histogram",
         "set style histogram errorbars gap 2 lw 1",
         "set style fill solid 0.7 border -1",
         "set grid ytics",
         "set xtics rotate by -50 scale 0 font ',8'",
         "set ylabel '%s, %% (95%% CI)'" % what,
         "set key below"]
    for i, m in enumerate(modes):
        g.append("set title '%s mode (clipped to +-%.2g%%)'" % (m, clips[m]))
        g.append("set yrange [%g:%g]" % (-clips[m], clips[m]))
        parts = []
        for j, k in enumerate(patches):
            c = 2 + 3 * j
            title = names[k][:48].replace("_", "\\_").replace("'", "")
            parts.append("'%s' index %d using %d:%d:%d%s title '%d: %s'" % (
                dat, i, c, c + 1, c + 2, ":xtic(1)" if j == 0 else "",
                k, title))
        g.append("plot " + ", \\\n     ".join(parts))
    g.append("unset multiplot")
    with open(out + ".gp", "w") as f:
        f.write("\n".join(g) + "\n")


def main(argv):
    if len(argv) == 2 and argv[0] == "samples":
        write_samples(argv[1])
    elif len(argv) == 4 and argv[0] == "report":
        report(*argv[1:])
    elif len(argv) in (2, 3) and argv[0] == "determinism":
        rows, _ = write_samples(argv[1])
        det = determinism(group(rows))
        if not det:
            print("no icount workload ran twice")
            return 1
        text = "\n".join(determinism_lines(det))
        print(text)
        if len(argv) == 3:
            meta, points = read_meta(argv[1])
            with open(argv[2] + ".md", "w") as f:
                f.write("\n".join(header("Determinism", meta, points)))
                f.write("\n" + text.split("\n", 2)[2] + "\n")
        return 0 if determinism_ok(det) else 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
