#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Test the judge (ci/7-verdict/judge.py) on the fixtures of
ci/tests/fixtures/, in seconds.

  ci/tests/test-judge.py [FIXTURE...]

Each fixture is a folder of real outputs of the pipeline, laid out as a
run: a header, and a point folder (steps, ktap.txt, console.log,
boot-exit, the boots of ci/6-boot/profiles in subfolders). Its expect.json
says where the files come from and what was cut or added ("source"), what
the judge must find there, and which rules the fixture covers ("covers": a
rule of judge.RULES, or "splat:PATTERN", a pattern of ci/7-verdict/splats);
"allow" adds allow entries of ci/7-verdict/splats for the fixture. For each
fixture:

  - the judge, with every rule, must find exactly what expect.json says;
  - for each rule it covers, the judge without that rule must find
    something else: the fixture would notice if the rule were removed.

Also: ci/7-verdict/splats and ci/6-boot/stalls load, grep -E reads their
patterns as Python does, and ci/6-boot/boot.sh greps the console for the
judge's own stall pattern; every fault of
ci/tests/faults/ has a target the judge can check. Prints TAP; exits 1 if any test failed.
"""
import glob
import json
import os
import re
import subprocess
import sys

# ci/tests/, beside ci/7-verdict/, the judge's folder.
TESTS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(TESTS), "7-verdict"))
import judge  # noqa: E402

FIXTURES = os.path.join(TESTS, "fixtures")
CI = os.path.dirname(TESTS)
# The fields of the judge's findings that expect.json may name.
FIELDS = ("verdict", "plan", "ran", "passed", "failed", "skipped", "splats",
          "failures", "crashed", "known", "infra", "splat_lines",
          "allowed_splats", "boots")


def findings(fx, rules):
    """What the judge says of a fixture, in the terms of expect.json."""
    d = os.path.join(fx["path"], fx["dir"])
    res = judge.judge_point(d, rules)
    got = {k: res[k] for k in FIELDS if k in fx}
    if "checks" in fx:
        got["checks"] = {c: judge.check(res, c)[0] for c in fx["checks"]}
    if "caught" in fx:
        got["caught"] = [[c, e, judge.caught(res, c, e, rules=rules)[0]]
                         for c, e, _ in fx["caught"]]
    return got


def rules_for(fx, off=(), off_splats=()):
    extra = [judge.SplatRule("allow", p, k, r)
             for k, p, r in fx.get("allow", [])]
    return judge.Rules(off=off, off_splats=off_splats,
                       splats=judge.load_splat_rules() + extra)


def load(name):
    path = os.path.join(FIXTURES, name)
    with open(os.path.join(path, "expect.json")) as f:
        fx = json.load(f)
    fx["path"] = path
    fx["name"] = name
    return fx


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def result(self, ok, what, diag=""):
        self.n += 1
        print(f"{'ok' if ok else 'not ok'} {self.n} {what}")
        if not ok:
            self.failed += 1
            for line in diag.splitlines():
                print("#   " + line)


def diff(want, got):
    out = []
    for k in want:
        if want[k] != got.get(k):
            out.append(f"{k}: expected {json.dumps(want[k])}")
            out.append(f"{' ' * len(k)}  got      {json.dumps(got.get(k))}")
    return "\n".join(out)


def short(want, got):
    """The first difference of two findings, in a line."""
    if isinstance(want, dict) and isinstance(got, dict):
        k = next(k for k in want if want[k] != got.get(k))
        return f"{k}: {short(want[k], got.get(k))}"
    if isinstance(want, list) and isinstance(got, list):
        gone = [x for x in want if x not in got]
        new = [x for x in got if x not in want]
        return "; ".join([f"no longer {json.dumps(x)}" for x in gone[:1]] +
                         [f"now {json.dumps(x)}" for x in new[:1]]) or \
            "in another order"
    return f"{json.dumps(want)} becomes {json.dumps(got)}"


def test_fixture(tap, fx):
    want = {k: fx[k] for k in FIELDS + ("checks",) if k in fx}
    if "caught" in fx:
        want["caught"] = fx["caught"]
    got = findings(fx, rules_for(fx))
    tap.result(got == want, f"{fx['name']}: {fx['verdict']}", diff(want, got))
    for rule in fx.get("covers", []):
        if rule.startswith("splat:"):
            without = rules_for(fx, off_splats=(rule[6:],))
        else:
            without = rules_for(fx, off=(rule,))
        other = findings(fx, without)
        tap.result(other != got,
                   f"{fx['name']}: without rule {rule}, the judge says "
                   f"otherwise",
                   "the judge finds the same without it: the fixture does "
                   "not cover the rule")
        if other != got:
            k = next(k for k in got if got[k] != other.get(k))
            print(f"#   {k}: {short(got[k], other.get(k))}")


def test_splats(tap):
    """grep -E and Python agree on every console line of the fixtures."""
    try:
        rules = judge.load_splat_rules()
    except judge.RuleError as e:
        tap.result(False, "ci/7-verdict/splats loads", str(e))
        return
    tap.result(True, "ci/7-verdict/splats loads: anchored, in grep -E's syntax")
    rx = judge.splat_regex(rules, ("splat", "stall", "panic"))
    consoles = sorted(glob.glob(os.path.join(FIXTURES, "**", "console.log"),
                                recursive=True))
    bad = []
    for c in consoles:
        with open(c, errors="replace") as f:
            py = [ln for ln in f.read().splitlines()
                  if re.match(rx, ln)]
        out = subprocess.run(["grep", "-E", "--", rx, c],
                             capture_output=True, text=True,
                             errors="replace").stdout.splitlines()
        if py != out:
            bad.append(f"{os.path.relpath(c, FIXTURES)}: python {py}, "
                       f"grep {out}")
    tap.result(not bad, "grep -E and Python match the same console lines",
               "\n".join(bad))
    # boot.sh's stall pattern, as its own line computes it.
    boot = os.path.join(CI, "6-boot", "boot.sh")
    line = next((ln for ln in open(boot) if ln.startswith("stall_re=")), "")
    out = subprocess.run(["bash", "-c", line + 'echo "$stall_re"'],
                         capture_output=True, text=True,
                         env=dict(os.environ, CI_DIR=CI)).stdout.strip()
    want = judge.splat_regex(rules, ("stall",))
    tap.result(out == want, "boot.sh stops the guest on the judge's stall "
               "lines", f"boot.sh {out!r}, judge {want!r}")


def test_targets(tap):
    """Every fault of ci/tests/faults/ has a target the judge can check."""
    bad = []
    for fdir in sorted(glob.glob(os.path.join(TESTS, "faults", "*"))):
        names = {os.path.basename(p)[:-6]
                 for p in glob.glob(os.path.join(fdir, "*.patch"))}
        # The switches of its mutant schemata (ci/tests/test-faults.sh).
        if "schemata" in names:
            names.discard("schemata")
            text = judge.read(os.path.join(fdir, "schemata.patch"))
            table = re.search(r"zswap_ci_faults\[\] = \{(.*?)\n\+\};", text,
                              re.S)
            if not table:
                bad.append(f"{fdir}/schemata.patch: no zswap_ci_faults[]")
            else:
                names |= set(re.findall(r'"([a-z0-9-]+)"', table.group(1)))
                names.discard("none")
        targets = {}
        path = os.path.join(fdir, "targets")
        for line in judge.read(path).splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            if len(cols) not in (3, 4) or cols[2] not in ("fail", "crash",
                                                          "red") \
                    or cols[3:] not in ([], ["alone"]):
                bad.append(f"{path}: bad line {line!r}")
            targets[cols[0]] = cols[1:]
        for n in sorted(names - set(targets)):
            bad.append(f"{fdir}: {n} (a patch or a switch) has no line in targets")
        for n in sorted(set(targets) - names):
            bad.append(f"{path}: {n} is no patch or switch of the folder")
        must = judge.read(os.path.join(fdir, "must-catch"))
        for n in must.splitlines():
            n = n.split("#")[0].strip()
            if n and n not in names:
                bad.append(f"{fdir}/must-catch: {n} is no patch or switch of the folder")
    tap.result(not bad, "every fault of ci/tests/faults/ has a target",
               "\n".join(bad))


def main(names):
    tap = Tap()
    print("TAP version 13")
    names = names or sorted(d for d in os.listdir(FIXTURES)
                            if os.path.isfile(os.path.join(FIXTURES, d,
                                                           "expect.json")))
    fixtures = [load(n) for n in names]
    covered = set()
    for fx in fixtures:
        test_fixture(tap, fx)
        covered.update(fx.get("covers", []))
    test_splats(tap)
    test_targets(tap)
    print(f"1..{tap.n}")
    lacking = sorted(set(judge.RULES) - covered)
    if lacking:
        print("# rules no fixture covers (no real output shows them yet): "
              + ", ".join(lacking))
    print(f"# {tap.n - tap.failed} passed, {tap.failed} failed")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
