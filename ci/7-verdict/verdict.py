#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Verdict: the command line of the judge (ci/7-verdict/judge.py),
which alone decides pass, fail, crash or infrastructure error.

  verdict.py point DIR      judge a point: read DIR/{steps,ktap.txt,
                            console.log,boot-exit} and those of DIR/<profile>/,
                            write DIR/result.json and DIR/junit.xml, print a
                            one-line summary
  verdict.py check DIR CHECK
                            judge one check of a point and print
                            "VERDICT: detail"; CHECK is build, boot, a test
                            (TEST, or PROFILE:TEST for a boot of
                            ci/6-boot/profiles), PROFILE:boot, a step
                            (gate-sparse, build-MEMCG=n, ...), tests (every
                            boot and test,
                            the build but no other step) or point
  verdict.py boot BOOTDIR   the outcome of one ci/6-boot/boot.sh run: prints
                            ok, panic, hang, fail or infra
  verdict.py caught DIR CHECK fail|crash|red [alone]
                            whether a fault's row (ci/tests/test-faults.sh)
                            is red for the reason the fault targets: its patch
                            applied (and built, unless CHECK is a build),
                            and CHECK is what the fault should make it;
                            "alone": and nothing else of the row is red
  verdict.py table RUN      print the per-patch table of a run, write
                            RUN/summary.md and RUN/summary.json

Exit status, every command: 0 pass (boot ok; caught; every row green),
1 fail (not caught; in a table, a row red or crashed), 2 crash (a panic, a
hang, a guest that stopped without finishing), 75 infrastructure error
(QEMU could not run, a build out of disk; in a table, only when no row is
red), 64 a usage error.
"""
import json
import os
import sys
from xml.sax.saxutils import escape, quoteattr

import judge
from judge import CRASH, EXIT, FAIL, INFRA, PASS

USAGE = 64


def junit(path, point, programs):
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for t in programs:
        lv = t["leaves"]
        nf = sum(x["status"] == FAIL for x in lv)
        ne = sum(x["status"] == CRASH for x in lv)
        ns = sum(x["status"] in ("skip", "known") for x in lv)
        out.append(f'  <testsuite name={quoteattr(point + "." + t["name"])} '
                   f'tests="{len(lv)}" failures="{nf}" errors="{ne}" '
                   f'skipped="{ns}">')
        for x in lv:
            out.append(f'    <testcase classname={quoteattr(point)} '
                       f'name={quoteattr(x["name"])}>')
            if x["status"] == FAIL:
                out.append(f'      <failure message={quoteattr(x["detail"])}/>')
            elif x["status"] == CRASH:
                out.append(f'      <error message={quoteattr(x["detail"])}/>')
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


def point(d):
    res = judge.judge_point(d)
    out = judge.point_json(d, res)
    with open(os.path.join(d, "result.json"), "w") as f:
        json.dump(out, f, indent=1)
    junit(os.path.join(d, "junit.xml"), out.get("point", d), res["programs"])
    print(json.dumps({k: out.get(k) for k in
                      ("plan", "ran", "passed", "failed", "skipped",
                       "splats", "verdict")}))
    return EXIT[res["verdict"]]


COLS = [("point", 6), ("patch", 46), ("config", 7), ("apply", 6),
        ("checkpatch", 10), ("build", 6), ("boot", 6), ("KTAP", 6),
        ("pass", 5), ("fail", 5), ("skip", 5), ("splat", 5), ("time", 6),
        ("verdict", 7)]


WORD = {PASS: "GREEN", FAIL: "RED", CRASH: "CRASH", INFRA: "INFRA"}


def row_verdict(r):
    # A result.json of an older run has "green" only.
    return r.get("verdict") or (PASS if r.get("green") else FAIL)


def row(r, variants, gates=()):
    plan = "-" if r.get("plan") is None else f"{r['ran']}/{r['plan']}"
    # What the tests reported counts whatever the boot's outcome; a boot
    # that did not run (skip) or could not (infra) reported nothing.
    booted = r.get("boot", "skip") not in ("skip", "infra", "-")
    cell = (lambda k: str(r[k]) if booted else "-")
    t = int(r.get("seconds", 0))
    return [r.get("point", "?"), r.get("patch", "")[:46], r.get("config", ""),
            r.get("apply", "-"), r.get("checkpatch", "-")] + [
            r.get("gate-" + g, "-") for g in gates] + [
            r.get("build", "-")] + [r.get("build-" + v, "-") for v in variants] + [
            r.get("boot", "-"), plan if booted else "-",
            cell("passed"), cell("failed"), cell("skipped"), cell("splats"),
            f"{t // 60}:{t % 60:02d}", WORD[row_verdict(r)]]


def table(run):
    rows = []
    for name in os.listdir(run):
        p = os.path.join(run, name, "result.json")
        if os.path.exists(p):
            with open(p) as f:
                rows.append(json.load(f))
    rows.sort(key=lambda r: (int(r.get("point", 0)),
                             r.get("config") != "default"))
    head = judge.read(os.path.join(run, "header")).rstrip()
    lines = [head, ""] if head else []
    # Build-only configurations (ci/3-build/variants) get a column each.
    variants = sorted({k[6:] for r in rows for k in r if k.startswith("build-")})
    # So do the static-analysis gates of ci/4-gates/gates.sh.
    gates = sorted({k[5:] for r in rows for k in r if k.startswith("gate-")})
    cols = (COLS[:5] + [(g, max(len(g), 6)) for g in gates] + COLS[5:6] +
            [(v, max(len(v), 6)) for v in variants] + COLS[6:])
    fmt = "  ".join(f"{{:<{w}}}" for _, w in cols)
    lines.append(fmt.format(*[c for c, _ in cols]))
    lines.append(fmt.format(*["-" * w for _, w in cols]))
    for r in rows:
        lines.append(fmt.format(*row(r, variants, gates)))
    for r in rows:
        for why in r.get("infra", []):
            lines.append(f"  {r['point']}: infrastructure error, the kernel "
                         f"not judged: {why}")
        for why in r["failures"][:10]:
            lines.append(f"  {r['point']}: failed {why}")
        for name in r.get("known", []):
            lines.append(f"  {r['point']}: known failure of the base "
                         f"(ci/7-verdict/known-failures), not counted: {name}")
        for s in r["splat_lines"][:5]:
            lines.append(f"  {r['point']}: splat: {s.strip()}")
        for s in r.get("allowed_splats", [])[:5]:
            lines.append(f"  {r['point']}: splat of ci/7-verdict/splats' "
                         f"allow list, not counted: {s.strip()}")
    verdicts = [row_verdict(r) for r in rows]
    lines.append("")
    count = (f"{verdicts.count(PASS)} passed, "
             f"{verdicts.count(FAIL) + verdicts.count(CRASH)} failed")
    if INFRA in verdicts:
        count += f", {verdicts.count(INFRA)} not judged (infrastructure)"
    lines.append(count)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(run, "summary.md"), "w") as f:
        f.write("```\n" + text + "\n```\n")
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    if not rows:
        return EXIT[FAIL]
    if FAIL in verdicts or CRASH in verdicts:
        return EXIT[FAIL]
    return EXIT[INFRA] if INFRA in verdicts else EXIT[PASS]


def check(d, what):
    v, detail = judge.check(judge.judge_point(d), what)
    print(f"{v}: {detail}" if detail else v)
    return EXIT[v]


def boot(bdir):
    outcome, detail = judge.boot_outcome(bdir, judge.Rules())
    print(outcome)
    if detail:
        print(f"boot: {outcome}: {detail}", file=sys.stderr)
    return EXIT[judge.BOOT_VERDICT[outcome]]


def caught(d, what, expect, alone):
    ok, detail = judge.caught(judge.judge_point(d), what, expect, alone)
    if ok is None:
        print(f"infrastructure error: {detail}")
        return EXIT[INFRA]
    print(("caught: " if ok else "not caught for the right reason: ")
          + detail)
    return EXIT[PASS] if ok else EXIT[FAIL]


COMMANDS = {"point": (point, 1), "table": (table, 1), "check": (check, 2),
            "boot": (boot, 1), "caught": (caught, 3)}


def main(argv):
    if len(argv) < 2 or argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        return USAGE
    fn, n = COMMANDS[argv[0]]
    args = argv[1:]
    if argv[0] in ("point", "check", "caught") and not os.path.isdir(args[0]):
        # A fault's run that stopped before its row is no catch.
        if argv[0] == "caught":
            print(f"not caught for the right reason: no row {args[0]} (the "
                  f"run stopped before it)")
            return EXIT[FAIL]
        print(f"no point folder {args[0]}", file=sys.stderr)
        return USAGE
    if argv[0] == "caught":
        alone = args[3:] == ["alone"]
        if len(args) not in (3, 4) or (len(args) == 4 and not alone) or \
                args[2] not in (FAIL, CRASH, "red"):
            print(__doc__, file=sys.stderr)
            return USAGE
        return caught(*args[:3], alone)
    if len(args) != n:
        print(__doc__, file=sys.stderr)
        return USAGE
    return fn(*args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
