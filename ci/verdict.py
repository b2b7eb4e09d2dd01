#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Step 6, verdict: judge one point of the series, and tabulate a run.

  verdict.py point DIR    read DIR/{steps,ktap.txt,console.log}, write
                          DIR/result.json and DIR/junit.xml
  verdict.py table RUN    print the per-patch table of a run, write
                          RUN/summary.md and RUN/summary.json; exit 1 unless
                          every row is green

DIR/steps holds "step status" lines written by ci/run-series.sh (apply,
checkpatch, build, boot: ok, fail, skip, panic, hang). A point is green when
every step it ran is ok, the guest ran every planned test, none failed, and
the console has no splat.
"""
import fnmatch
import json
import os
import re
import sys
from xml.sax.saxutils import escape, quoteattr

# Kernel messages that mean something went wrong, whatever the tests said.
SPLATS = [
    r"WARNING: ",               # WARN*(), and lockdep's reports
    r"BUG: ",                   # BUG: KASAN, sleeping in atomic, bad page...
    r"kernel BUG at ",
    r"Oops",
    r"general protection fault",
    r"Kernel panic",
    r"KASAN",
    r"UBSAN",
    r"rcu: INFO: .*stall",
    r"detected stalls? on CPU",
    r"soft lockup",
    r"INFO: task .* blocked for more than",
    r"list_(add|del) corruption",
    r"possible (circular|recursive) locking",
    r"inconsistent lock state",
]
SPLAT_RE = re.compile("|".join(SPLATS))
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "known-failures")
RESULT_RE = re.compile(r"^(not ok|ok) (\d+)\s*-?\s*([^#]*?)\s*(?:#\s*(.*))?$")


def parse_ktap(text):
    """Return (plan, tests); each test has name, status, leaves, log."""
    plan = None
    tests = []
    block = []
    for raw in text.replace("\r", "").splitlines():
        if raw.startswith("    "):
            block.append(raw[4:])
            continue
        line = raw.strip()
        m = re.match(r"^1\.\.(\d+)", line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        ok, _, name, directive = m.groups()
        directive = directive or ""
        status = "skip" if ok == "ok" and directive.upper().startswith("SKIP") \
            else ("pass" if ok == "ok" else "fail")
        tests.append({"name": name, "status": status, "directive": directive,
                      "leaves": leaves_of(name, status, directive, block),
                      "log": "\n".join(block)})
        block = []
    return plan, tests


def leaves_of(name, status, directive, block):
    """The innermost results of one test program's nested (K)TAP output."""
    leaves = []
    subplan = None
    for line in block:
        line = line.strip()
        m = re.match(r"^1\.\.(\d+)", line)
        if m and subplan is None:
            subplan = int(m.group(1))
            continue
        m = RESULT_RE.match(line)
        if m:
            ok, _, sub, d = m.groups()
            d = d or ""
            st = "skip" if ok == "ok" and d.upper().startswith("SKIP") \
                else ("pass" if ok == "ok" else "fail")
            leaves.append({"name": f"{name}.{sub}", "status": st,
                           "detail": d})
    if not leaves:
        return [{"name": name, "status": status, "detail": directive}]
    if subplan is not None and len(leaves) < subplan:
        leaves.append({"name": f"{name}.plan", "status": "fail",
                       "detail": f"planned {subplan}, ran {len(leaves)}"})
    if status == "fail" and all(x["status"] != "fail" for x in leaves):
        leaves.append({"name": f"{name}.exit", "status": "fail",
                       "detail": directive})
    return leaves


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def junit(path, point, tests):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for t in tests:
        lv = t["leaves"]
        nf = sum(x["status"] == "fail" for x in lv)
        ns = sum(x["status"] in ("skip", "known") for x in lv)
        out.append(f'  <testsuite name={quoteattr(point + "." + t["name"])} '
                   f'tests="{len(lv)}" failures="{nf}" skipped="{ns}">')
        for x in lv:
            out.append(f'    <testcase classname={quoteattr(point)} '
                       f'name={quoteattr(x["name"])}>')
            if x["status"] == "fail":
                out.append(f'      <failure message={quoteattr(x["detail"])}/>')
            elif x["status"] == "skip":
                out.append(f'      <skipped message={quoteattr(x["detail"])}/>')
            elif x["status"] == "known":
                out.append('      <skipped message=' +
                           quoteattr("known failure: " + x["detail"]) + '/>')
            out.append("    </testcase>")
        out.append(f"    <system-out>{escape(t['log'])}</system-out>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def kernel_version(d):
    """The base's version, from the run's header ("base: ... (7.3.0-rc7)")."""
    head = read(os.path.join(os.path.dirname(os.path.abspath(d)), "header"))
    m = re.search(r"^base:.*\(([0-9][^()]*)\)\s*$", head, re.M)
    return m.group(1) if m else ""


def known_failures(kver):
    """(test glob, reason) of ci/known-failures that apply to kver."""
    out = []
    for line in read(KNOWN).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kglob, tglob, why = line.split("\t", 2)
        if kver and fnmatch.fnmatchcase(kver, kglob):
            out.append((tglob, why))
    return out


def point(d):
    steps = {}
    for line in read(os.path.join(d, "steps")).splitlines():
        k, _, v = line.partition(" ")
        steps[k] = v.strip()
    meta = json.loads(read(os.path.join(d, "meta.json")) or "{}")
    # The main boot writes into DIR, the other boots (ci/profiles) into
    # DIR/<profile>; their tests are named <profile>:<test>.
    boots = [("", d)] + sorted(
        (name + ":", os.path.join(d, name)) for name in os.listdir(d)
        if os.path.isfile(os.path.join(d, name, "ktap.txt")))
    plan, tests, splats = None, [], []
    for prefix, bd in boots:
        p, t = parse_ktap(read(os.path.join(bd, "ktap.txt")))
        if p is not None:
            plan = (plan or 0) + p
        for x in t:
            x["name"] = prefix + x["name"]
            for leaf in x["leaves"]:
                leaf["name"] = prefix + leaf["name"]
        tests += t
        console = read(os.path.join(bd, "console.log")).replace("\r", "")
        splats += [prefix + ln for ln in console.splitlines()
                   if SPLAT_RE.search(ln)]
    leaves = [x for t in tests for x in t["leaves"]]
    known = known_failures(kernel_version(d))
    for x in leaves:
        why = [w for g, w in known if fnmatch.fnmatchcase(x["name"], g)]
        if x["status"] == "fail" and why:
            x["status"], x["detail"] = "known", why[0]
    res = dict(meta)
    res.update(steps)
    res.update({
        "plan": plan, "ran": len(tests),
        "passed": sum(x["status"] == "pass" for x in leaves),
        "failed": sum(x["status"] == "fail" for x in leaves),
        "skipped": sum(x["status"] == "skip" for x in leaves),
        "failures": [x["name"] + (": " + x["detail"] if x["detail"] else "")
                     for x in leaves if x["status"] == "fail"],
        "known": [x["name"] for x in leaves if x["status"] == "known"],
        "splats": len(splats), "splat_lines": splats[:20],
    })
    # "same": the kernel of the point before, whose boots stand for this
    # one (ci/run-series.sh, a patch that touches only tools/).
    ran_steps = [v for v in steps.values() if v != "skip"]
    booted = steps.get("boot") in ("ok", "same")
    res["failures"] += [f"step {k}: {v}" for k, v in steps.items()
                        if v not in ("ok", "skip", "same")]
    res["green"] = bool(ran_steps) and all(v in ("ok", "same")
                                           for v in ran_steps) and (
        not booted or (plan is not None and plan == len(tests) and plan > 0
                       and res["failed"] == 0 and not splats))
    if booted and (plan is None or plan != len(tests)):
        res["failures"].append(f"KTAP plan {plan}, results {len(tests)}")
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(res, f, indent=1)
    junit(os.path.join(d, "junit.xml"), res.get("point", d), tests)
    return res


COLS = [("point", 6), ("patch", 46), ("config", 7), ("apply", 6),
        ("checkpatch", 10), ("build", 6), ("boot", 6), ("KTAP", 6),
        ("pass", 5), ("fail", 5), ("skip", 5), ("splat", 5), ("time", 6),
        ("verdict", 7)]


def row(r, variants, gates=()):
    plan = "-" if r.get("plan") is None else f"{r['ran']}/{r['plan']}"
    booted = r.get("boot", "skip") in ("ok", "same")
    cell = (lambda k: str(r[k]) if booted else "-")
    t = int(r.get("seconds", 0))
    return [r.get("point", "?"), r.get("patch", "")[:46], r.get("config", ""),
            r.get("apply", "-"), r.get("checkpatch", "-")] + [
            r.get("gate-" + g, "-") for g in gates] + [
            r.get("build", "-")] + [r.get("build-" + v, "-") for v in variants] + [
            r.get("boot", "-"), plan if booted else "-",
            cell("passed"), cell("failed"), cell("skipped"), cell("splats"),
            f"{t // 60}:{t % 60:02d}", "GREEN" if r["green"] else "RED"]


def table(run):
    rows = []
    for name in os.listdir(run):
        p = os.path.join(run, name, "result.json")
        if os.path.exists(p):
            with open(p) as f:
                rows.append(json.load(f))
    rows.sort(key=lambda r: (int(r.get("point", 0)),
                             r.get("config") != "default"))
    head = read(os.path.join(run, "header")).rstrip()
    lines = [head, ""] if head else []
    # Build-only configurations (ci/variants) get a column each.
    variants = sorted({k[6:] for r in rows for k in r if k.startswith("build-")})
    # So do the static-analysis gates of ci/gates.sh.
    gates = sorted({k[5:] for r in rows for k in r if k.startswith("gate-")})
    cols = (COLS[:5] + [(g, max(len(g), 6)) for g in gates] + COLS[5:6] +
            [(v, max(len(v), 6)) for v in variants] + COLS[6:])
    fmt = "  ".join(f"{{:<{w}}}" for _, w in cols)
    lines.append(fmt.format(*[c for c, _ in cols]))
    lines.append(fmt.format(*["-" * w for _, w in cols]))
    for r in rows:
        lines.append(fmt.format(*row(r, variants, gates)))
    for r in rows:
        for why in r["failures"][:10]:
            lines.append(f"  {r['point']}: failed {why}")
        for name in r.get("known", []):
            lines.append(f"  {r['point']}: known failure of the base "
                         f"(ci/known-failures), not counted: {name}")
        for s in r["splat_lines"][:5]:
            lines.append(f"  {r['point']}: splat: {s.strip()}")
    green = bool(rows) and all(r["green"] for r in rows)
    lines.append("")
    lines.append(f"{sum(r['green'] for r in rows)} passed, "
                 f"{sum(not r['green'] for r in rows)} failed")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("```\n" + text + "\n```\n")
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    return 0 if green else 1


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("point", "table"):
        sys.exit(__doc__)
    if sys.argv[1] == "point":
        r = point(sys.argv[2])
        print(json.dumps({k: r.get(k) for k in
                          ("plan", "ran", "passed", "failed", "skipped",
                           "splats", "green")}))
    else:
        sys.exit(table(sys.argv[2]))
