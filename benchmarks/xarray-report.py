#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report of benchmarks/xarray-bench.sh (standard library only).

    xarray-report.py OUT META SAMPLES...  -> OUT.md, OUT.tsv.gz

META holds the script's "key: value" lines (several "note" and "load
during" keys allowed); each SAMPLES file is one zswap_forms binary's
output, its runs appended: "# key<TAB>value" lines, a header, then per
repetition, form and thread the ns it took for its slots. A repetition's
cost of a form is the mean over the threads of ns per slot; each form is
compared with mm-stable's in the same repetition (the forms ran
round-robin, so a repetition's forms met the same load), and some pairs
of forms with each other: the median of those ratios, its 95% confidence
interval from order statistics (distribution-free), and their 5th and
95th percentiles. Each form with a tree a thread, the trees adjacent
("own"), is also compared with the same form with each tree alone in a
cache line ("padded") in the repetition of the same number: the two
layouts ran one after the other in every run, so such a pair met nearly
the same load. Means are left out: on a loaded machine a repetition the
scheduler preempted takes ten times as long, and such tails decide a
mean.
"""
import collections
import gzip
import io
import math
import os
import statistics
import sys

# The forms a binary runs ("# forms"); these when it does not say.
DEFAULT_FORMS = ["base", "mm-stable", "A", "A1", "B", "C", "D"]
# Every form is compared with this one.
REF = "mm-stable"
FORM_TEXT = {
    "base": "7.3-rc7: `swap_range_free()` calls `zswap_invalidate()` once "
            "a slot (a non-inlined function): `xa_empty()`, then "
            "`xa_erase()`, then free what it returned",
    "mm-stable": "mm-stable (2026-10-09): one call a range, which does, "
                 "slot by slot, `xa_empty()`, `xa_erase()` and free",
    "A": "mainline v3's 0001: `xa_empty()`, one `xa_find()` over the range "
         "without the lock (nothing found: return), then `xa_erase()` and "
         "free of every slot from the entry found to the end of the range",
    "A1": "A, but a single slot (nr == 1) is looked up with `xa_load()` "
          "instead of `xa_find()`",
    "B": "A's search, then `xa_erase()` and free of the entry found, and "
         "`xa_find()` of the next one, until none is left in the range",
    "C": "A's search, then one hold of the lock: `xas_for_each()` over the "
         "rest of the range, `xas_store(NULL)` and free of each entry, under "
         "the lock",
    "D": "A's search, then v2's form (out of line): up to 16 entries "
         "erased in one hold of the lock (`xas_for_each()`, "
         "`xas_store(NULL)`) into an array on the stack, freed after the "
         "unlock; again from the slot after the last one while the batch "
         "came back full",
    "patch": "the mainline patch: `xa_empty()`; a single slot `xa_erase()` "
             "and free; a range one `xa_find()` without the lock (nothing "
             "found: return), then one walk from its first slot under the "
             "lock, 16 entries a hold (`xas_pause()` across each unlock), "
             "freed after each unlock",
    "walk": "the locked walk: the patch without its search, every range "
            "walked under the lock as the patch walks it",
}
# Pairs of forms compared directly, repetition by repetition.
PAIRS = [("A1", "A"), ("B", "A"), ("C", "A"), ("D", "A"), ("C", "D"),
         ("walk", "patch")]
KEY = ("lock", "threads", "trees", "range", "entries")
# The layouts of the trees (column "trees"), in the report's order, as
# the report names them.
TREES = {
    "same": "one shared tree",
    "own": "a tree each",
    "padded": "a tree each, one to a cache line",
}
# A repetition in which the threads ran a form together for at least this
# share of its time counts as overlapped: they could contend.
OVERLAPPED = 0.5
MIN_OVERLAPPED = 10


def read_samples(path):
    meta, rows = [], []
    header = None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# "):
                k, _, v = line[2:].partition("\t")
                if k not in dict(meta):
                    meta.append((k, v))
            elif header is None:
                header = line.split("\t")
            elif line and line.split("\t") != header:
                rows.append(dict(zip(header, line.split("\t"))))
    return meta, header, rows


def quantile(vals, q):
    """Linear interpolation between the closest ranks."""
    s = sorted(vals)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def median_ci(vals):
    """95% CI of the median: the order statistics around it that the
    binomial distribution of the sample below the median puts 1.96 standard
    deviations away (normal approximation, fine from a few dozen samples)."""
    n = len(vals)
    k = int(math.floor((n - 1.96 * math.sqrt(n)) / 2))
    if k < 0:
        return None, None
    s = sorted(vals)
    return s[k], s[n - 1 - k]


def spread(vals, fmt):
    return "%s [%s, %s]" % (fmt % statistics.median(vals),
                            fmt % quantile(vals, 0.05),
                            fmt % quantile(vals, 0.95))


def overlap_of(spans):
    """The share of the threads' timed spans during which all of them
    ran: 0 when one finished before another began."""
    both = min(e for _, e in spans) - max(s for s, _ in spans)
    return max(both, 0) / statistics.fmean(e - s for s, e in spans)


def together(overlap, form, ref=REF):
    """The repetitions in which the threads overlapped both in the
    reference form and in the form."""
    return [i for i, (ob, of) in enumerate(zip(overlap[ref], overlap[form]))
            if ob >= OVERLAPPED and of >= OVERLAPPED]


def ratio_cell(ratios):
    """median [95% CI of the median]"""
    lo, hi = median_ci(ratios)
    if lo is None:
        return "%.3f" % statistics.median(ratios)
    return "%.3f [%.3f, %.3f]" % (statistics.median(ratios), lo, hi)


def analyse(rows, forms):
    """Per configuration: {form: [ns/slot per rep]}, {form: [overlap per
    rep]} (None with one thread), for the forms listed, and the reps'
    numbers."""
    cost = collections.defaultdict(lambda: collections.defaultdict(dict))
    spans = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        key = tuple(r[k] for k in KEY)
        per_slot = int(r["ns"]) / int(r["slots"])
        cell = cost[key][r["form"]]
        cell.setdefault(int(r["rep"]), []).append(per_slot)
        start = int(r["start_ns"])
        spans[key][(int(r["rep"]), r["form"])].append(
            (start, start + int(r["ns"])))
    out = {}
    for key, per_form in cost.items():
        reps = sorted(per_form[REF])
        series = {f: [statistics.fmean(per_form[f][i]) for i in reps]
                  for f in forms}
        overlap = None
        if key[1] != "1":
            overlap = {f: [overlap_of(spans[key][(i, f)]) for i in reps]
                       for f in forms}
        out[key] = (series, overlap, reps)
    return out


def config_title(key):
    lock, threads, trees, rng, entries = key
    who = "1 thread" if threads == "1" else "%s threads, %s" % (
        threads, TREES.get(trees, trees))
    return "%s; %s-slot ranges; entries %s" % (who, rng, entries)


def order(key):
    lock, threads, trees, rng, entries = key
    rank = list(TREES).index(trees) if trees in TREES else len(TREES)
    return (lock, int(threads), rank, int(rng), entries != "present")


def ns_cell(v):
    """ns/slot: two decimals, three figures below 1 (a range with nothing
    in it costs hundredths of a ns a slot)."""
    return "%.2f" % v if v >= 1 else "%.3g" % v


def layout_rows(res, keys, forms):
    """Per configuration with its trees adjacent ("own") that also ran
    with them padded, and per form: own's and padded's median ns/slot,
    own's over padded's in the repetitions of the same numbers, and those
    of the repetitions in which the threads overlapped in both."""
    rows = []
    for key in keys:
        pkey = key[:2] + ("padded",) + key[3:]
        if key[2] != "own" or pkey not in res:
            continue
        own, own_ov, own_reps = res[key]
        pad, pad_ov, pad_reps = res[pkey]
        io = {r: i for i, r in enumerate(own_reps)}
        ip = {r: i for i, r in enumerate(pad_reps)}
        common = sorted(set(io) & set(ip))
        for f in forms:
            yo = [own[f][io[r]] for r in common]
            yp = [pad[f][ip[r]] for r in common]
            ratios = [a / b for a, b in zip(yo, yp)]
            both = [j for j, r in enumerate(common)
                    if own_ov[f][io[r]] >= OVERLAPPED and
                    pad_ov[f][ip[r]] >= OVERLAPPED]
            rows.append((key, f, yo, yp, ratios, [ratios[j] for j in both]))
    return rows


def load_line(meta, m):
    """The machine's load while the binaries ran."""
    during = [v.split() for k, v in meta if k == "load during"]
    text = "%s before, %s after" % (m["load before"], m["load after"])
    if during:
        one = [float(d[0]) for d in during]
        text += "; the 1-minute average after each of the %d runs: " \
                "%.2f to %.2f (median %.2f)" % (
                    len(one), min(one), max(one), statistics.median(one))
    return text


def write(out, meta_path, sample_paths):
    meta = []
    with open(meta_path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition(": ")
            meta.append((k, v))
    m = dict(meta)
    binaries, rows, header = [], [], None
    for p in sample_paths:
        bmeta, header, brows = read_samples(p)
        binaries.append(bmeta)
        rows += brows
    if not rows:
        sys.exit("xarray-report.py: no samples")
    named = [dict(b).get("forms") for b in binaries]
    forms = named[0].split(",") if named[0] else DEFAULT_FORMS
    if any(n and n.split(",") != forms for n in named):
        sys.exit("xarray-report.py: the binaries ran different forms")
    if REF not in forms:
        sys.exit("xarray-report.py: no %s form to compare with" % REF)
    others = [f for f in forms if f != REF]
    pairs = [(a, b) for a, b in PAIRS if a in forms and b in forms]
    res = analyse(rows, forms)
    keys = sorted(res, key=order)
    nreps = len(res[keys[0]][0][REF])

    # Compressed: a run holds a quarter of a million samples. No time in
    # the header, so that the same samples give the same file.
    with gzip.GzipFile(out + ".tsv.gz", "wb", mtime=0) as z, \
            io.TextIOWrapper(z, encoding="utf-8") as f:
        for k, v in meta:
            f.write("# run %s\t%s\n" % (k, v))
        for i, bmeta in enumerate(binaries):
            for k, v in bmeta:
                f.write("# binary %d %s\t%s\n" % (i, k, v))
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(r[h] for h in header) + "\n")

    L = []
    L.append("# zswap_invalidate()'s XArray part, timed in the userspace "
             "XArray harness")
    L.append("")
    L.append("Made by `%s` on %s (`nice` %s), the report written by "
             "`benchmarks/xarray-report.py`; every sample is in `%s.tsv.gz` "
             "beside it (git-ignored: the command makes them again)."
             % (m["command"], m["date"], m["niceness"],
                os.path.basename(out)))
    L.append("")
    L.append("- CPU: %s; host kernel %s" % (m["cpu"], m["host kernel"]))
    L.append("- load average (1, 5, 15 min): %s" % load_line(meta, m))
    if "cpu seconds" in m:
        L.append("- while the binaries ran (%s s): %s (all CPUs' busy time "
                 "from `/proc/stat`; the rest is other work on the machine)"
                 % (m["run seconds"], m["cpu seconds"]))
    for i, bmeta in enumerate(binaries):
        b = dict(bmeta)
        L.append("- binary %d: %s" % (i, b["build"]))
        L.append("  - %s; flags `%s`; XA_CHUNK_SHIFT %s (64-slot nodes "
                 "as in the kernel)" % (b["compiler"], b["cflags"],
                                        b["xa_chunk_shift"]))
        L.append("  - lock: %s; RCU: %s" % (b["lock"], b["rcu"]))
        L.append("  - %s repetitions a configuration (%s runs of %s, each "
                 "after %s untimed), %s slots a tree, a struct xarray of %s "
                 "bytes%s, threads pinned: %s, %s CPUs online; an entry's "
                 "free: %s"
                 % (nreps, m["rounds"], b["reps"], b["warmup"],
                    b["tree_slots"], b["sizeof_xarray"],
                    " (padded: %s)" % b["sizeof_padded_tree"]
                    if "sizeof_padded_tree" in b else "", b["pinned"],
                    b["online_cpus"], b.get("entry_free", "none")))
    notes = [v for k, v in meta if k == "note"]
    if notes:
        L.append("")
        L.append("Notes:")
        L.append("")
        for n in notes:
            L.append("- " + n)
    L.append("")
    L.append("## What runs")
    L.append("")
    for f in forms:
        L.append("- `%s`: %s" % (f, FORM_TEXT.get(f, "(not described)")))
    L.append("")
    L.append("Every form is a non-inlined function called once a range of "
             "R slots, `base` a loop that calls its non-inlined per-slot "
             "function R times, as `swap_range_free()` calls "
             "`zswap_invalidate()` on 7.3-rc7. \"Free\" is a `free()` of "
             "the entry, a `malloc()`ed 64-byte object, where the kernel "
             "calls `zswap_entry_free()` (which costs far more there: "
             "`zs_free()`, the LRU, the objcg), so C holds the lock over "
             "R `free()`s and D over none. A tree has 16384 slots (64 MiB "
             "of swap); R-slot ranges, aligned to R, are freed at every "
             "other R-slot block, the blocks between keep their entries, "
             "so the tree is never empty. `present`: every slot holds an "
             "entry; `absent`: the ranges freed are empty. Thread t frees "
             "the ranges of the 512-slot clusters c with c % threads == t "
             "(1024-slot blocks at R = 512), and allocates their entries "
             "itself; `one shared tree`: all threads in one tree, sharing "
             "its lock and upper nodes; `a tree each`: the same ranges in "
             "a tree of the thread's own, the trees adjacent in one array "
             "as `zswap_swapon()` allocates them (a kernel's struct xarray "
             "is 16 bytes, four to a cache line, as with the spinning lock "
             "here; the harness's mutex makes it 56), so that two threads "
             "in neighbouring trees share the cache line of their trees' "
             "locks; `a tree each, one to a cache line` (`padded`): the "
             "same, but each tree at the start of a 64-byte cache line of "
             "its own, as if the array's element were a struct holding the "
             "xarray, aligned with `____cacheline_aligned_in_smp` (x86's "
             "64 bytes; an Intel CPU's spatial prefetcher still fetches "
             "the two trees' lines as one 128-byte pair). For each range "
             "size and entries the layouts run one after the other, `own` "
             "and `padded` swapping places from one run to the next. A "
             "repetition runs every form once, in an order rotated "
             "from one repetition to the next; the threads meet at a "
             "spinning barrier before a form and after it, and then, "
             "untimed, check the count of entries freed and that their "
             "ranges are empty, and store new entries there. Every "
             "repetition's check passed (the binary exits non-zero "
             "otherwise), and at the end of every configuration each tree "
             "held exactly its layout.")
    L.append("")
    L.append("Cells: ns/slot is a repetition's time over the slots freed, "
             "the mean over the threads; a ratio is a form's ns/slot over "
             "another's in the same repetition (`%s`'s, unless the table "
             "says otherwise). `median [a, b]`: in the summaries [a, b] is "
             "the 95%% confidence interval of the median (order "
             "statistics); in the sections below, the 5th and 95th "
             "percentiles over the repetitions, the CI in its own column. "
             "Means are left out: a repetition that the scheduler preempted "
             "takes many times as long, and on a loaded machine such tails "
             "would decide a mean. With more than one thread, \"overlap\" "
             "is the share of the threads' timed spans during which all of "
             "them ran the form (0 when one had finished before the other "
             "began): where it is low, the threads did not contend; the "
             "last column takes only the repetitions in which both `%s` "
             "and the form overlapped by at least %s: their count, the "
             "form's median ns/slot and ratio to `%s` there."
             % (REF, REF, OVERLAPPED, REF))
    L.append("")
    L.append("## Summary: median ratio to %s" % REF)
    L.append("")
    L.append("Medians over all repetitions, with the 95%% confidence "
             "interval of the median ratio; \"overlapped\": with two "
             "threads, the repetitions in which they ran `%s` together "
             "(overlap at least %s), whose figures are in the sections "
             "below." % (REF, OVERLAPPED))
    L.append("")
    L.append("| lock | threads | trees | range | entries | overlapped | "
             "%s ns/slot | %s |" % (REF, " | ".join(others)))
    L.append("| --- | ---: | --- | ---: | --- | ---: | ---: |" +
             " ---: |" * len(others))
    for key in keys:
        series, overlap, _ = res[key]
        ref = series[REF]
        nov = "-"
        if overlap:
            nov = "%d" % len(together(overlap, REF))
        cells = [ratio_cell([y / x for x, y in zip(ref, series[f])])
                 for f in others]
        L.append("| %s | %s | %s | %s | %s | %s | %.1f | %s |" % (
            key[0], key[1], "-" if key[1] == "1" else key[2], key[3], key[4],
            nov, statistics.median(ref), " | ".join(cells)))
    if pairs:
        L.append("")
        L.append("## Summary: pairs of forms")
        L.append("")
        L.append("The first form's ns/slot over the second's in the same "
                 "repetition: median [95% CI of the median].")
        L.append("")
        L.append("| lock | threads | trees | range | entries | %s |" %
                 " | ".join("%s / %s" % p for p in pairs))
        L.append("| --- | ---: | --- | ---: | --- |" + " ---: |" * len(pairs))
        for key in keys:
            series = res[key][0]
            cells = [ratio_cell([y / x for x, y in zip(series[b], series[a])])
                     for a, b in pairs]
            L.append("| %s | %s | %s | %s | %s | %s |" % (
                key[0], key[1], "-" if key[1] == "1" else key[2], key[3],
                key[4], " | ".join(cells)))
    lrows = layout_rows(res, keys, forms)
    if lrows:
        L.append("")
        L.append("## Summary: a tree each, adjacent (own) over one to a "
                 "cache line (padded)")
        L.append("")
        L.append("Does giving each tree a cache line of its own make the "
                 "forms faster when two threads free in neighbouring trees? "
                 "A form's ns/slot with the trees adjacent over its ns/slot "
                 "with them padded, in the repetitions of the same number: "
                 "above 1, padding pays. `own ns/slot` and `padded ns/slot`: "
                 "medians over the repetitions; `own / padded`: median [95%% "
                 "CI of the median]. The two layouts ran as consecutive "
                 "configurations of every run, not within one repetition as "
                 "the forms do, so a pair met nearly but not exactly the "
                 "same load, and the CI holds what the load changed between "
                 "them. The last column takes only the repetitions in which "
                 "the threads overlapped by at least %s in the form in both "
                 "layouts: their count and the median ratio there."
                 % OVERLAPPED)
        L.append("")
        L.append("| lock | threads | range | entries | form | own ns/slot | "
                 "padded ns/slot | own / padded | overlapped: n, "
                 "own / padded |")
        L.append("| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | "
                 "---: |")
        above = below = 0
        for key, f, yo, yp, ratios, both in lrows:
            lo, hi = median_ci(ratios)
            above += lo is not None and lo > 1
            below += lo is not None and hi < 1
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %d, %s |"
                     % (key[0], key[1], key[3], key[4], f,
                        ns_cell(statistics.median(yo)),
                        ns_cell(statistics.median(yp)),
                        ratio_cell(ratios), len(both),
                        "%.3f" % statistics.median(both) if both else "-"))
        L.append("")
        L.append("Of these %d rows the CI lies above 1 (padding faster) in "
                 "%d, below 1 (padding slower) in %d, and holds 1 in the "
                 "other %d." % (len(lrows), above, below,
                                len(lrows) - above - below))
    lock = None
    for key in keys:
        series, overlap, _ = res[key]
        if key[0] != lock:
            lock = key[0]
            L.append("")
            L.append("## Lock: %s" % lock)
        L.append("")
        L.append("### %s" % config_title(key))
        L.append("")
        cols = ["form", "ns/slot", "ratio to %s" % REF,
                "95% CI of the median ratio"]
        if overlap:
            cols[2:2] = ["overlap"]
            cols.append("overlapped: n, ns/slot, ratio")
        L.append("| " + " | ".join(cols) + " |")
        L.append("| --- |" + " ---: |" * (len(cols) - 1))
        ref = series[REF]
        for f in forms:
            y = series[f]
            ratios = [b / a for a, b in zip(ref, y)]
            lo, hi = median_ci(ratios)
            cells = [f, spread(y, "%.2f")]
            if overlap:
                cells.append(spread(overlap[f], "%.2f"))
            if f == REF:
                cells += ["1", "-"]
            else:
                cells.append(spread(ratios, "%.3f"))
                cells.append("[%.3f, %.3f]" % (lo, hi)
                             if lo is not None else "too few repetitions")
            if overlap:
                both = together(overlap, f)
                cells.append("%d, %s, %s" % (
                    len(both),
                    "%.2f" % statistics.median(y[i] for i in both)
                    if both else "-",
                    "%.3f" % statistics.median(ratios[i] for i in both)
                    if both and f != REF else "-"))
            L.append("| " + " | ".join(cells) + " |")
    with open(out + ".md", "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    write(sys.argv[1], sys.argv[2], sys.argv[3:])
