# SPDX-License-Identifier: GPL-2.0
"""The judge: the one place that decides pass, fail, crash or infrastructure
error, for one boot, one test, or one point of the series.

ci/7-verdict/verdict.py is its command line; ci/jobs/run-series.sh,
ci/jobs/bisect.sh, ci/tests/test-faults.sh and benchmarks/run.sh ask it
instead of reading the logs themselves. ci/tests/test-judge.py holds its
fixtures: real outputs with the verdict each must get, and the rules each
must stop matching without.

What it reads, per point folder (ci/jobs/run-series.sh, ci/jobs/bisect.sh):
  steps        "step status" lines: apply, checkpatch, build, gate-*,
               build-* (ok, fail, skip, same) and one boot line a boot
               (boot, boot-<profile>)
  meta.json    what the table shows of the row (point, patch, config)
  ktap.txt, console.log, boot-exit
               of the main boot, in the folder itself; of the other boots
               of ci/6-boot/profiles, in <profile>/
  ../header    the run's header: the base's kernel version
What boot.sh leaves in a boot folder: console.log (ttyS0), ktap.txt (ttyS1),
boot-exit (its exit status), boot-infra (why, for status 75), qemu.log,
source-id (the source_id of ci/3-build/lib.sh of the sources the row built its
kernel from, which the kernel's banner names: ci/3-build/build.sh).

Why the KTAP is read here and not with the base tree's
tools/testing/kunit/kunit_parser.py: that parser turns KTAP into a tree of
results, which is the smaller part of a verdict. The rest is not in the
KTAP: which test was running when the console (another serial line)
printed a splat or a panic, the guest's "# exit=N time=Ns" lines, the
plan a crash cut short, boot.sh's exit status and the sources the kernel
says it was built from, the known failures and allowed splats. The judge
also runs where no tree is (its fixtures, ci/check), and the parser's
interface differs between the bases (parse_run_tests() takes a printer
on 7.3, not on 6.1).
"""
import fnmatch
import json
import os
import re
from dataclasses import dataclass, field

CI = os.path.dirname(os.path.abspath(__file__))
SPLATS = os.path.join(CI, "splats")
KNOWN = os.path.join(CI, "known-failures")
# The stall and lockup lines, which the boot step stops a guest on.
STALLS = os.path.join(os.path.dirname(CI), "6-boot", "stalls")

# The four verdicts and the exit status each gets, in every command of
# ci/7-verdict/verdict.py and in the scripts that pass it on. 75 is EX_TEMPFAIL
# of sysexits.h: nothing is known about the kernel, try again.
PASS, FAIL, CRASH, INFRA = "pass", "fail", "crash", "infra"
EXIT = {PASS: 0, FAIL: 1, CRASH: 2, INFRA: 75}
# ci/6-boot/boot.sh's exit statuses (its head says the same).
BOOT_DONE, BOOT_STOPPED, BOOT_KILLED, BOOT_INFRA = 0, 2, 3, 75

# The rules, by name. Each can be left out (Rules(off=...)) so that
# ci/tests/test-judge.py can show that a fixture depends on it; nothing else
# leaves any out.
RULES = {
    "steps": "a step that is not ok (apply, checkpatch, build, a gate, a "
             "build-only variant) fails the point",
    "panic": "a boot that stopped after a panic line of ci/7-verdict/splats "
             "crashed",
    "hang": "a boot that boot.sh killed after its time limit crashed",
    "infra": "a boot whose QEMU could not run (boot.sh 75), or a build "
             "that ran out of disk, is an infrastructure error",
    "crashed-test": "the test that was running when the boot ended early "
                    "is reported as crashed, by name, with the subtests it "
                    "finished",
    "plan": "every plan, of the boot and of each program, must match the "
            "results reported, whatever the boot's outcome",
    "numbers": "results are numbered 1, 2, ... in order at every level",
    "headerless": "a program's TAP without header or plan (upstream "
                  "test_zswap before v6.13) is read as its subtests, with "
                  "no plan to check",
    "exit": "a program that reports not ok while its subtests all passed "
            "fails as <program>.exit",
    "skip": "ok # SKIP is a skip: neither a failure nor a pass",
    "splats": "a console line of ci/7-verdict/splats fails the test running "
              "when the kernel printed it (or the boot, outside any test)",
    "owner": "a splat belongs to the test during which it was printed "
             "(without this rule: to the boot)",
    "allow": "a splat that an allow entry of ci/7-verdict/splats matches for "
             "the base's version is reported, not counted",
    "known": "a failure of ci/7-verdict/known-failures for the base's "
             "version is reported, not counted",
    "fault-applies": "a fault is caught only if its patch applied (and "
                     "built, unless the build is what it targets)",
    "source": "a boot whose kernel's banner names other sources than the "
              "row claims (source-id), or whose row claims none, is an "
              "infrastructure error: its tests ran another kernel",
}

HEADER_RE = re.compile(r"^(KTAP|TAP) version \d+$")
PLAN_RE = re.compile(r"^1\.\.(\d+)\s*(?:#\s*(.*))?$")
RESULT_RE = re.compile(r"^(not ok|ok) (\d+)\s*-?\s*([^#]*?)\s*(?:#\s*(.*))?$")
# ci/5-image/guest/init names each program before it runs it: on the KTAP port
# ("# running T") and on the kernel's console ("zs: running T").
KTAP_RUNNING_RE = re.compile(r"^# running (\S+)$")
CONSOLE_RUNNING_RE = re.compile(r"^zs: running (\S+)$")
# A printk timestamp and caller id, when the kernel prints them.
STAMP = r"(\[ *[0-9]+\.[0-9]+\]( *\[ *[TC][0-9]+\])? ?)?"
DISK_FULL_RE = re.compile(r"No space left on device")
# The banner of a kernel of ci/3-build/build.sh names its sources:
# "Linux version 7.3.0-rc7+ (ci@src-<source_id>) (gcc ...) #1 ...".
BANNER_RE = re.compile(r"^" + STAMP +
                       r"Linux version \S+ \([^()@]*@(?P<host>[^()]*)\)", re.M)
SOURCE_RE = re.compile(r"^src-([0-9a-f]{40})$")


class RuleError(Exception):
    pass


@dataclass
class SplatRule:
    kind: str           # splat, stall, panic or allow
    pattern: str        # starts with ^, ERE that grep -E and Python share
    kver: str = "*"     # allow entries: a glob on the kernel version
    reason: str = ""    # allow entries: why the splat is not counted


def check_pattern(where, pattern):
    """A pattern of a rule: anchored, and in the regular expression syntax
    that both grep -E and Python read the same way."""
    if not pattern.startswith("^"):
        raise RuleError(f"{where}: pattern not anchored with ^")
    # \d, \s, \w, \b and (?...) mean something else, or nothing, to
    # grep -E.
    if re.search(r"\\[a-zA-Z]|\(\?", pattern):
        raise RuleError(f"{where}: use only what grep -E and Python share "
                        f"([0-9], not \\d; no (?...))")
    re.compile(pattern)


def load_splat_rules(path=SPLATS, stalls=STALLS):
    """The rules of ci/7-verdict/splats and the stall rules of
    ci/6-boot/stalls, checked (check_pattern)."""
    rules = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.split("\t")
            kind = cols[0]
            if kind in ("splat", "panic") and len(cols) == 2:
                rule = SplatRule(kind, cols[1])
            elif kind == "allow" and len(cols) == 4 and cols[3].strip():
                rule = SplatRule(kind, cols[2], cols[1], cols[3])
            else:
                raise RuleError(f"{path}:{n}: want 'splat|panic<TAB>"
                                f"PATTERN' or 'allow<TAB>KVER<TAB>PATTERN"
                                f"<TAB>REASON', got {line!r}")
            check_pattern(f"{path}:{n}", rule.pattern)
            rules.append(rule)
    with open(stalls) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.strip() and not line.startswith("#"):
                check_pattern(f"{stalls}:{n}", line)
                rules.append(SplatRule("stall", line))
    return rules


def splat_regex(rules, kinds):
    """One regular expression, for grep -E as for Python, matching a
    console line that one of the rules of these kinds matches."""
    alts = [r.pattern[1:] for r in rules if r.kind in kinds]
    if not alts:
        return None
    return "^" + STAMP + "(" + "|".join(alts) + ")"


def load_known(path=KNOWN):
    """(kernel glob, test glob, reason) of ci/7-verdict/known-failures."""
    out = []
    for line in read(path).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kglob, tglob, why = line.split("\t", 2)
        out.append((kglob, tglob, why))
    return out


class Rules:
    """What the judge applies: the named rules (all but those in off),
    the splat rules of ci/7-verdict/splats (all but the patterns in
    off_splats) and the known failures."""

    def __init__(self, off=(), off_splats=(), splats=None, known=None):
        unknown = set(off) - set(RULES)
        if unknown:
            raise RuleError(f"no such rule: {', '.join(sorted(unknown))}")
        self.off = frozenset(off)
        every = load_splat_rules() if splats is None else splats
        self.splats = [r for r in every if r.pattern not in off_splats]
        self.known = load_known() if known is None else known
        counted = [r for r in self.splats if r.kind != "allow"]
        rx = splat_regex(counted, ("splat", "stall", "panic"))
        self.splat_re = re.compile(rx) if rx else None
        rx = splat_regex(counted, ("panic",))
        self.panic_re = re.compile(rx) if rx else None

    def on(self, name):
        return name not in self.off

    def allowed(self, line, kver):
        """The reason of the allow entry for this splat line, if any."""
        if not self.on("allow"):
            return None
        for r in self.splats:
            if r.kind == "allow" and fnmatch.fnmatchcase(kver or "", r.kver) \
                    and re.match(r.pattern[:1] + STAMP + r.pattern[1:], line):
                return r.reason
        return None


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "")
    except (FileNotFoundError, NotADirectoryError):
        return ""


# ---------------------------------------------------------------- KTAP


@dataclass
class Test:
    name: str
    number: int
    status: str            # pass, fail, skip; open: no result line came
    directive: str = ""
    block: "Block" = None  # its own (K)TAP, one level deeper
    log: list = field(default_factory=list)


@dataclass
class Block:
    header: bool = False
    plan: int = None
    plan_directive: str = ""
    results: list = field(default_factory=list)
    open: Test = None      # the test whose result line never came
    tap: bool = False      # any TAP at all: a header, a plan or a result


def parse_ktap(lines, rules):
    """One level of (K)TAP: the lines indented by 4 spaces more are the
    output of the next result's test (KTAP's subtests)."""
    blk = Block()
    nested, running = [], None
    for raw in lines:
        if raw.startswith("    "):
            nested.append(raw[4:])
            continue
        line = raw.strip()
        if HEADER_RE.match(line) and not blk.results and blk.plan is None:
            blk.header = blk.tap = True
            continue
        m = PLAN_RE.match(line)
        if m and blk.plan is None:
            blk.plan, blk.plan_directive = int(m.group(1)), m.group(2) or ""
            blk.tap = True
            continue
        m = KTAP_RUNNING_RE.match(line)
        if m:
            running = m.group(1)
            continue
        m = RESULT_RE.match(line)
        if not m:
            continue
        ok, num, name, directive = m.groups()
        directive = directive or ""
        if ok == "not ok":
            status = FAIL
        elif directive.upper().startswith("SKIP") and rules.on("skip"):
            status = "skip"
        else:
            status = PASS
        blk.results.append(Test(name or running or "?", int(num), status,
                                directive, parse_ktap(nested, rules), nested))
        blk.tap = True
        nested, running = [], None
    if running or any(ln.strip() for ln in nested):
        blk.open = Test(running or "?", len(blk.results) + 1, "open", "",
                        parse_ktap(nested, rules), nested)
    return blk


def block_problems(blk, rules, top):
    """(what, detail) for each broken plan or numbering of one level."""
    out = []
    if rules.on("numbers"):
        for i, t in enumerate(blk.results, 1):
            if t.number != i:
                out.append(("numbers", f"result {i} is numbered {t.number}"))
                break
    if not rules.on("plan") or not (blk.tap or top):
        return out
    if blk.plan is None:
        # The top level is ci/5-image/guest/init's and always has a plan.
        if top or not rules.on("headerless"):
            out.append(("plan", "no plan"))
        return out
    done = len(blk.results)
    if blk.open is not None and top:
        if done + 1 < blk.plan:
            out.append(("plan", f"planned {blk.plan}, {blk.open.name} "
                        f"crashed after {done}, {blk.plan - done - 1} "
                        f"not run"))
        elif done + 1 > blk.plan:
            out.append(("plan", f"planned {blk.plan}, ran {done + 1}"))
    elif done != blk.plan:
        out.append(("plan", f"planned {blk.plan}, ran {done}"))
    return out


def leaves_of(t, name, rules):
    """The innermost results of one test, named parent.child."""
    blk = t.block
    kids = blk.results if blk else []
    leaves = []
    for c in kids:
        leaves += leaves_of(c, f"{name}.{c.name}", rules)
    if blk:
        for what, detail in block_problems(blk, rules, top=False):
            leaves.append({"name": f"{name}.{what}", "status": FAIL,
                           "detail": detail})
    if not leaves:
        return [{"name": name, "status": t.status, "detail": t.directive}]
    if t.status == FAIL and rules.on("exit") and \
            all(x["status"] != FAIL for x in leaves):
        leaves.append({"name": f"{name}.exit", "status": FAIL,
                       "detail": t.directive})
    return leaves


def crashed_leaves(t, name, how, rules):
    """The leaves of a test that never reported: what it finished, then
    itself, crashed (or with no result, when the boot ended well)."""
    blk = t.block
    leaves = []
    for c in blk.results:
        leaves += leaves_of(c, f"{name}.{c.name}", rules)
    for what, detail in block_problems(blk, rules, top=False):
        if what == "numbers":
            leaves.append({"name": f"{name}.numbers", "status": FAIL,
                           "detail": detail})
    of = f" of {blk.plan}" if blk.plan is not None else ""
    if how:
        leaves.append({"name": name, "status": CRASH,
                       "detail": f"crashed ({how}) after {len(blk.results)}"
                                 f"{of} subtests"})
    else:
        leaves.append({"name": name, "status": FAIL,
                       "detail": "no result line, though the boot ended "
                                 "well"})
    return leaves


# -------------------------------------------------------------- console


def console_splats(text, rules, kver):
    """Each splat line with the test that was running when the kernel
    printed it ("" before the first test), and its allow reason."""
    out = []
    owner = ""
    if rules.splat_re is None or not rules.on("splats"):
        return out
    for line in text.splitlines():
        m = CONSOLE_RUNNING_RE.match(line)
        if m:
            owner = m.group(1) if rules.on("owner") else ""
            continue
        if rules.splat_re.match(line):
            out.append({"owner": owner, "line": line.strip(),
                        "allowed": rules.allowed(line, kver)})
    return out


# ---------------------------------------------------------------- boots


def boot_outcome(bdir, rules, fallback=None):
    """(outcome, detail) of one boot: ok, panic, hang, fail or infra, from
    boot.sh's exit status (bdir/boot-exit) and the console; without
    boot-exit (a boot of an older run, or a point whose boots stand for
    the next one's), the steps file's word (fallback), else the console."""
    code = read(os.path.join(bdir, "boot-exit")).strip()
    console = read(os.path.join(bdir, "console.log"))
    claim = read(os.path.join(bdir, "source-id")).strip()
    got = booted_source(console)
    if rules.on("source") and code != str(BOOT_INFRA) and (claim or got) \
            and claim != got:
        return "infra", (f"the kernel booted was built from sources "
                         f"{got or '(its banner names none)'}, the row's "
                         f"are {claim or '(it claims none)'}")
    if not code:
        if fallback:
            return fallback, ""
        if "\nZS-GUEST-DONE" in "\n" + console:
            return "ok", ""
        code = str(BOOT_STOPPED)
    if code == str(BOOT_DONE):
        return "ok", ""
    if code == str(BOOT_KILLED) and rules.on("hang"):
        return "hang", "killed after its time limit"
    if code == str(BOOT_INFRA) and rules.on("infra"):
        why = read(os.path.join(bdir, "boot-infra")).strip()
        if not why:
            qlog = read(os.path.join(bdir, "qemu.log")).strip()
            why = qlog.splitlines()[-1] if qlog else "QEMU could not run"
        return "infra", why
    if code == str(BOOT_STOPPED) and rules.on("panic") and rules.panic_re:
        for line in console.splitlines():
            if rules.panic_re.match(line):
                return "panic", line.strip()
    if code == str(BOOT_STOPPED):
        return "fail", "the guest stopped without finishing"
    return "fail", f"boot.sh exit {code}"


def booted_source(console):
    """The source_id the booted kernel's banner names, "" if none."""
    m = BANNER_RE.search(console)
    s = SOURCE_RE.match(m.group("host")) if m else None
    return s.group(1) if s else ""


# A guest that stopped without finishing (fail: no panic line, e.g. a
# triple fault) crashed as much as one that panicked.
BOOT_VERDICT = {"ok": PASS, "same": PASS, "skip": PASS, "panic": CRASH,
                "hang": CRASH, "fail": CRASH, "infra": INFRA}


# ---------------------------------------------------------------- point


def kernel_version(d):
    """The base's version, from the run's header ("base: ... (7.3.0-rc7)",
    which may go on: ", with 3 stand-ins for mm-stable")."""
    head = read(os.path.join(os.path.dirname(os.path.abspath(d)), "header"))
    m = re.search(r"^base:.*\(([0-9][^()]*)\)", head, re.M)
    return m.group(1) if m else ""


def read_steps(d):
    steps = {}
    for line in read(os.path.join(d, "steps")).splitlines():
        k, _, v = line.partition(" ")
        if k:
            steps[k] = v.strip()
    return steps


def step_status(d, step, status, rules):
    """A step's status; a build that failed for want of disk is infra."""
    if status == "fail" and rules.on("infra") and step.startswith("build"):
        if DISK_FULL_RE.search(read(os.path.join(d, step + ".log"))):
            return "infra"
    return status


def worst(verdicts):
    """crash before fail before infra before pass: a failure found is
    known, an infrastructure error only says nothing is."""
    for v in (CRASH, FAIL, INFRA):
        if v in verdicts:
            return v
    return PASS


def named(leaf):
    return leaf["name"] + (": " + leaf["detail"] if leaf["detail"] else "")


def judge_point(d, rules=None):
    """Everything the judge says about one point folder, as a dict (what
    result.json holds, and "leaves" and "programs" for junit.xml)."""
    rules = rules or Rules()
    steps = read_steps(d)
    kver = kernel_version(d)
    res = {"steps": {}, "boots": {}, "sources": {}, "tests": {},
           "failures": [],
           "known": [], "crashed": [], "infra": [], "splat_lines": [],
           "allowed_splats": [], "leaves": [], "programs": []}
    verdicts = []
    for k, v in steps.items():
        if k == "boot" or k.startswith("boot-"):
            continue
        v = step_status(d, k, v, rules)
        res["steps"][k] = v
        if v == "infra":
            res["infra"].append(f"{k}: out of disk (see {k}.log)")
            verdicts.append(INFRA)
        elif v not in ("ok", "skip", "same") and rules.on("steps"):
            res["failures"].append(f"step {k}: {v}")
            verdicts.append(FAIL)
    # The main boot writes into DIR, the other boots (ci/6-boot/profiles) into
    # DIR/<profile>; their tests are named <profile>:<test>.
    boots = []
    if "boot" in steps or os.path.isfile(os.path.join(d, "ktap.txt")):
        boots.append(("", d, "boot"))
    for name in sorted(os.listdir(d)):
        if os.path.isfile(os.path.join(d, name, "ktap.txt")):
            boots.append((name, os.path.join(d, name), "boot-" + name))
    plan = None
    for profile, bdir, step in boots:
        p = judge_boot(res, verdicts, profile, bdir, step, steps.get(step),
                       rules, kver)
        if p is not None:
            plan = (plan or 0) + p
    leaves = res["leaves"]
    res["failures"] += [named(x) for x in leaves
                        if x["status"] in (FAIL, CRASH)]
    res["known"] = [x["name"] for x in leaves if x["status"] == "known"]
    booted = any(o not in ("skip", "infra") for o in res["boots"].values())
    if booted and not plan:
        res["failures"].append("KTAP: no test ran")
        verdicts.append(FAIL)
    if res["splat_lines"]:
        verdicts.append(FAIL)
    if all(v == "skip" for v in res["steps"].values()):
        # A row after a patch that does not apply: nothing was judged.
        res["failures"].append("no step ran")
        verdicts.append(FAIL)
    res.update({
        "plan": plan, "ran": len(res["programs"]),
        "passed": sum(x["status"] == PASS for x in leaves),
        "failed": sum(x["status"] in (FAIL, CRASH) for x in leaves),
        "skipped": sum(x["status"] == "skip" for x in leaves),
        "splats": len(res["splat_lines"]),
        "built": res["steps"].get("build", "ok") in ("ok", "same"),
        "verdict": worst(verdicts),
    })
    return res


def judge_boot(res, verdicts, profile, bdir, step, word, rules, kver):
    """Judge one boot of a point into res and verdicts; its KTAP plan."""
    prefix = profile + ":" if profile else ""
    outcome, detail = boot_outcome(bdir, rules, word)
    res["boots"][profile] = outcome
    # Which kernel ran: the sources its banner names.
    res["sources"][profile] = booted_source(
        read(os.path.join(bdir, "console.log")))
    res["steps"][step] = outcome
    bv = BOOT_VERDICT.get(outcome, FAIL)
    verdicts.append(bv)
    if outcome == "infra":
        res["infra"].append(f"{step}: {detail}")
    elif bv != PASS:
        res["failures"].append(f"step {step}: {outcome}"
                               + (f" ({detail})" if detail else ""))
    if outcome in ("skip", "infra"):
        return None
    blk = parse_ktap(read(os.path.join(bdir, "ktap.txt")).splitlines(), rules)
    splats = console_splats(read(os.path.join(bdir, "console.log")), rules,
                            kver)
    tests = [(t, leaves_of(t, prefix + t.name, rules)) for t in blk.results]
    if blk.open is not None and rules.on("crashed-test"):
        how = outcome if outcome in ("panic", "hang", "fail") else None
        tests.append((blk.open, crashed_leaves(blk.open, prefix + blk.open.name,
                                               how, rules)))
    for what, why in block_problems(blk, rules, top=True):
        res["failures"].append(f"{prefix}KTAP {what}: {why}")
        verdicts.append(FAIL)
    # The boot's own entry: its outcome, and the splats outside any test.
    own = [s for s in splats if s["owner"] == "" and not s["allowed"]]
    res["tests"][prefix + "boot"] = {
        "verdict": worst([bv] + ([FAIL] if own else [])),
        "detail": detail or (own[0]["line"] if own else outcome)}
    for t, leaves in tests:
        name = prefix + t.name
        mine = [s for s in splats if s["owner"] == t.name
                and not s["allowed"]]
        for x in leaves:
            why = [w for kg, tg, w in rules.known
                   if rules.on("known") and fnmatch.fnmatchcase(kver, kg)
                   and fnmatch.fnmatchcase(x["name"], tg)]
            if x["status"] == FAIL and why:
                x["status"], x["detail"] = "known", why[0]
        res["leaves"] += leaves
        res["programs"].append({"name": name, "leaves": leaves,
                                "log": "\n".join(t.log)})
        # What the test's verdict names: its crash, else its first failure.
        first = next((x for x in leaves if x["status"] == CRASH), None) or \
            next((x for x in leaves if x["status"] == FAIL), None)
        if first and first["status"] == CRASH:
            tv = CRASH
            res["crashed"].append(name)
        elif first or mine:
            tv = FAIL
        else:
            tv = PASS
        res["tests"][name] = {
            "verdict": tv, "skipped": t.status == "skip",
            "detail": (named(first) if first
                       else f"splat: {mine[0]['line']}" if mine
                       else t.directive)}
        verdicts.append(tv)
    for s in splats:
        owner = prefix + (s["owner"] or "boot")
        if s["allowed"]:
            res["allowed_splats"].append(
                f"{owner}: {s['line']} (allowed: {s['allowed']})")
        else:
            res["splat_lines"].append(f"{owner}: {s['line']}")
    return blk.plan


def unbuilt(res):
    """(verdict, detail) when the point has no kernel to boot, else None."""
    if res["steps"].get("build") == "infra":
        return INFRA, "; ".join(res["infra"])
    if not res["built"]:
        return FAIL, "the point does not build"
    return None


def test_verdict(res, name):
    """(verdict, detail) of one test of a judged point: NAME (main boot)
    or PROFILE:NAME; NAME "boot" is the boot itself."""
    if unbuilt(res):
        return unbuilt(res)
    profile = name.split(":", 1)[0] if ":" in name else ""
    outcome = res["boots"].get(profile)
    if outcome is None:
        return FAIL, f"no boot {profile or 'main'} at this point"
    if outcome == "infra":
        return INFRA, "; ".join(res["infra"])
    t = res["tests"].get(name)
    if t is None:
        if BOOT_VERDICT.get(outcome) == CRASH:
            return CRASH, f"the boot ended ({outcome}) before {name} ran"
        return FAIL, f"{name} reported no result"
    detail = t["detail"]
    if t.get("skipped") and t["verdict"] == PASS:
        detail = "skipped: " + detail
    return t["verdict"], detail


def check(res, what):
    """(verdict, detail) of one check of a judged point, as ci/jobs/bisect.sh
    and ci/tests/test-faults.sh ask it:
      point            the whole row
      tests            every boot and test of the row (its steps but the
                       build left aside: a fault's own checkpatch)
      build, gate-*, build-*, apply, checkpatch
                       that step
      boot, P:boot     a boot (its outcome and the splats of no test)
      TEST, P:TEST     a test of the main boot or of boot P
                       (ci/6-boot/profiles)"""
    if what == "point":
        return res["verdict"], "; ".join(res["failures"] + res["infra"])
    if what == "tests":
        if unbuilt(res):
            return unbuilt(res)
        vs = [t["verdict"] for t in res["tests"].values()]
        vs += [BOOT_VERDICT.get(o, FAIL) for o in res["boots"].values()]
        if not vs:
            return FAIL, "nothing booted"
        bad = [f"{n}: {t['detail']}" for n, t in res["tests"].items()
               if t["verdict"] != PASS] + res["infra"]
        return worst(vs), "; ".join(bad)
    if what in res["steps"] and not (what == "boot" or
                                     what.startswith("boot-")):
        v = res["steps"][what]
        if v in ("ok", "same"):
            return PASS, v
        if v == "infra":
            return INFRA, "; ".join(res["infra"])
        return FAIL, f"{what}: {v}"
    if what.startswith(("build-", "gate-")) or what in ("build", "apply"):
        return FAIL, f"no step {what} at this point"
    return test_verdict(res, what)


def caught(res, what, expect, alone=False, rules=None):
    """Whether a fault's row is red for the reason the fault targets:
    (True, detail), (False, why not) or (None, infra reason)."""
    rules = rules or Rules()
    steps = res["steps"]
    if rules.on("fault-applies"):
        if steps.get("apply") != "ok":
            return False, (f"the fault does not apply (apply: "
                           f"{steps.get('apply', 'not run')}), see apply.log")
        gone = None if what.startswith("build") else unbuilt(res)
        if gone and gone[0] == INFRA:
            return None, gone[1]
        if gone:
            return False, "the point does not build, see build.log"
    v, detail = check(res, what)
    if v == INFRA:
        return None, detail
    want = (FAIL, CRASH) if expect == "red" else (expect,)
    if v not in want:
        return False, f"{what} is {v} ({detail}), not {expect}"
    if alone:
        others = [f"{k} is {s}" for k, s in steps.items()
                  if k != what and s not in ("ok", "same")]
        others += [f"{n} is {t['verdict']}" for n, t in res["tests"].items()
                   if t["verdict"] != PASS]
        if others:
            return False, f"{what} is {v}, but so is more: " + \
                "; ".join(others)
    return True, f"{what} is {v}: {detail}"


def point_json(d, res):
    """result.json: the judge's findings and the row's meta.json."""
    meta = json.loads(read(os.path.join(d, "meta.json")) or "{}")
    out = dict(meta)
    out.update(res["steps"])
    out.update({k: v for k, v in res.items()
                if k not in ("steps", "leaves", "programs", "built")})
    out["green"] = res["verdict"] == PASS
    return out
