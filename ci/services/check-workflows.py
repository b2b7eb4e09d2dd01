#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the CI files for other machines against this repository.

.github/workflows/series.yml, and .gitlab-ci.yml with the child pipeline
that its plan job writes (ci/services/matrix.sh --gitlab, run here): a
check job runs ci/check before the cells, which are the points of each
series of ci/bases (GitHub's plan step is run here); both point jobs run
ci/jobs/run-series.sh alike, with options it knows, within a time limit
that covers the worst case of the longest cell (from the boot limits of
the scripts and the boots and builds a cell makes); the ccache key
restores older caches, and the folder cached is the CCACHE_DIR the job
sets; the upload takes every file a reader needs; the table job gives
ci/services/table.sh the point jobs' folders where the download puts
them. Syntax, expressions and shell steps are actionlint's (ci/check runs
it where installed). Needs PyYAML (Debian: python3-yaml).
"""
import fnmatch
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("check-workflows.py needs PyYAML: apt-get install python3-yaml "
             "and run it with /usr/bin/python3")

# The repository: this script is in ci/services/.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GITHUB = os.path.join(REPO, ".github", "workflows", "series.yml")
GITLAB = os.path.join(REPO, ".gitlab-ci.yml")
errors = []


def bad(msg):
    errors.append(msg)
    print(f"  not ok: {msg}")


def matrix(*args):
    return subprocess.run(["bash", os.path.join(REPO, "ci", "services",
                                                "matrix.sh"), *args],
                          capture_output=True, text=True, check=True).stdout


def series_cells():
    """(base, point) for every point of each series: ci/services/matrix.sh
    --list, which reads the series files as ci/jobs/run-series.sh does;
    its bases must be those of ci/bases."""
    cells = [(b, int(k)) for b, k in (ln.split() for ln in
                                      matrix("--list").splitlines())]
    with open(os.path.join(REPO, "ci", "bases")) as f:
        names = [ln.split()[0] for ln in f if ln.strip() and
                 not ln.startswith("#")]
    if list(dict.fromkeys(b for b, _ in cells)) != names:
        bad(f"ci/services/matrix.sh --list gives the bases "
            f"{sorted({b for b, _ in cells})}, ci/bases names {names}")
    return cells


def run_series_options():
    out = subprocess.run(["bash", os.path.join(REPO, "ci", "jobs",
                                               "run-series.sh"), "--help"],
                         capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z]+", out))


def calls(text, script):
    """The arguments of each call of a ci/ script in a job's shell: the
    rest of its command, up to a command separator or the end of a quoted
    script (the GitHub job's call is inside docker run's bash -c '...')."""
    return [" ".join(a.split()) for a in re.findall(
        rf"{re.escape(script)}([^;&|'\n]*)", text.replace("\\\n", " "))]


def check_commands(where, script):
    """Every ci/ script named must exist, run-series options must be known."""
    for path in re.findall(r"\b(ci/[\w./-]+)", script):
        if not os.path.isfile(os.path.join(REPO, path)):
            bad(f"{where} runs {path}, which does not exist")
    for args in calls(script, "ci/jobs/run-series.sh"):
        for opt in sorted(set(re.findall(r"(?<![\w-])--[a-z]+", args)) -
                          run_series_options()):
            bad(f"{where} passes {opt}, unknown to ci/jobs/run-series.sh")


# What a cell spends outside its boots has no limit in the scripts; these
# allowances, in minutes, stand for it on a 2-core runner whose ccache is
# empty (each kernel build, default, debug or variant, took 8 to 14
# minutes on this project's 2-core machines).
SETUP_MIN = 15      # packages into a bare debian:bookworm, the base tree
#                     (download, unpack, one git commit), quilt push -a and
#                     the selftests image, git am and checkpatch of the
#                     patches up to the point
BUILD_MIN = 15      # one kernel build from an empty ccache
REBUILD_MIN = 3     # a variant built again from an empty folder, as
#                     ci/jobs/run-series.sh does after a failure that is not
#                     the compiler's: ccache holds what the first try compiled
GATES_MIN = 20      # sparse, W=1 and coccinelle on the point's files,
#                     before and after the patch (coccinelle: minutes a file)
# GitHub-hosted runners end a job after 6 hours, whatever timeout-minutes
# says; only a self-hosted runner can wait longer.
HOSTED_MAX_MIN = 360


class Unknown(Exception):
    """A number the worst case needs is no longer where this script looks."""


def ci_file(name):
    """A file of ci/, by its path there (6-boot/boot.sh)."""
    with open(os.path.join(REPO, "ci", name)) as f:
        return f.read()


def entries(name):
    """The non-comment lines of a ci/ list (profiles, variants)."""
    return [ln for ln in (re.sub(r"#.*", "", x).strip()
                          for x in ci_file(name).splitlines()) if ln]


def find(pattern, text, where, flags=re.M):
    m = re.search(pattern, text, flags)
    if not m:
        raise Unknown(f"{where} has nothing like /{pattern}/")
    return m


def boot_limits():
    """What bounds the boots of a cell, read from the scripts themselves:
    ci/6-boot/boot.sh's own limit (for a boot given no --timeout) and what
    its last pass through the watch loop can add past the limit (every
    sleep in the loop: the poll and the wait between kill and kill -9); the
    --timeout ci/jobs/run-series.sh gives each configuration's boots; the
    probe boot of ci/6-boot/probe-accel.sh. (boot.sh's stall grace only
    ends a boot sooner.)"""
    boot, rs, probe = ci_file("6-boot/boot.sh"), \
        ci_file("jobs/run-series.sh"), ci_file("6-boot/probe-accel.sh")
    default = int(find(r"^smp=.*?\blimit=(\d+)", boot,
                       "ci/6-boot/boot.sh").group(1))
    loop = find(r"^while kill -0 .*?^done$", boot, "ci/6-boot/boot.sh",
                re.M | re.S).group(0)
    overrun = sum(int(n) for n in re.findall(r"\bsleep (\d+)", loop))
    limits = {c: int(n) for c, n in re.findall(
        r'frags=\("\$\{frags_(\w+)\[@\]\}"\) limit=(\d+)', rs)}
    if not {"default", "debug", "kcsan"} <= set(limits):
        raise Unknown("ci/jobs/run-series.sh sets no limit= for the default, "
                      "debug and kcsan configurations")
    if not re.search(r'boot\.sh" --timeout "\$4"', rs):
        # boot_profile no longer passes the limit: boot.sh's own applies
        limits = {c: default for c in limits}
    probe_s = int(find(r'boot\.sh"[^\n]*--timeout (\d+)', probe,
                       "ci/6-boot/probe-accel.sh").group(1))
    opts = find(r"^base=.*\n.*$", rs, "ci/jobs/run-series.sh").group(0)
    defaults = {o: find(rf"\b{o}=(\w+)", opts,
                        "ci/jobs/run-series.sh").group(1)
                for o in ("debug", "variants", "gates", "kcsan")}
    return dict(limits=limits, overrun=overrun, probe=probe_s,
                boots=1 + len(entries("6-boot/profiles")),
                variants=len(entries("3-build/variants")), defaults=defaults)


def worst_case(args):
    """Minutes the longest cell of a CI can take, for the
    ci/jobs/run-series.sh arguments it passes: the last point of a series,
    which gets the debug and KCSAN configurations, the variants and the
    gates where "last" or "all" asks for them. Every boot (the probe, the
    main one and each of ci/6-boot/profiles; the KCSAN row boots once) runs
    to its limit; the rest is the allowances above."""
    b = boot_limits()
    opt = dict(b["defaults"])
    for o in opt:
        m = re.search(rf"--{o}\s+(\w+)", args)
        if m:
            opt[o] = m.group(1)
    configs = ["default"] + [c for c in ("debug", "kcsan")
                             if opt[c] != "none"]
    nboots = {c: 1 if c == "kcsan" else b["boots"] for c in configs}
    boots_s = b["probe"] + b["overrun"] + sum(
        nboots[c] * (b["limits"][c] + b["overrun"]) for c in configs)
    builds = len(configs) * BUILD_MIN
    if opt["variants"] != "none":
        builds += b["variants"] * (BUILD_MIN + REBUILD_MIN)
    gates = GATES_MIN if opt["gates"] != "none" else 0
    total = SETUP_MIN + builds + gates + boots_s / 60
    parts = " + ".join(f"{c} {nboots[c]} x ({b['limits'][c]} + "
                       f"{b['overrun']}) s" for c in configs)
    print(f"  worst case of the longest cell: {total:.0f} min = boots "
          f"{boots_s / 60:.1f} min (probe ({b['probe']} + {b['overrun']}) s + {parts}) + builds "
          f"{builds} min ({len(configs)} configurations, {b['variants']} "
          f"variants) + gates {gates} + setup {SETUP_MIN}")
    return total


def check_limit(name, limit, args, hosted):
    try:
        worst = worst_case(args)
    except Unknown as e:
        bad(f"{name}: cannot compute the worst case: {e}")
        return
    if hosted and limit > HOSTED_MAX_MIN:
        bad(f"{name}: {limit} min, but GitHub-hosted runners end a job at "
            f"{HOSTED_MAX_MIN}")
        limit = HOSTED_MAX_MIN
    if limit < worst:
        bad(f"{name}: time limit {limit} min is below the worst case of the "
            f"longest cell, {worst:.0f} min")
    else:
        print(f"  {name}: time limit {limit} min covers it")


def gitlab_minutes(text):
    """GitLab's duration strings ("6h", "1h 30m", "90 minutes"), or None."""
    units = {"h": 60, "m": 1, "s": 1 / 60}
    words = re.findall(r"(\d+)\s*([hms])[a-z]*", str(text).lower())
    if not words or re.sub(r"\d+\s*[a-z]+|\band\b|[\s,]", "", str(text)):
        return None
    return sum(int(n) * units[u] for n, u in words)


# Files of a run (results/<run>/...) that a reader of a CI artifact needs:
# what ci/jobs/run-series.sh and the steps it runs write, one of each kind.
READER_FILES = [
    "header", "quilt.log", "summary.md", "summary.json",
    "image/selftests-build.log",
    "03-default/steps", "03-default/meta.json", "03-default/result.json",
    "03-default/junit.xml", "03-default/apply.log",
    "03-default/checkpatch.log", "03-default/build.log",
    "03-default/build-MEMCG=n.log", "03-default/build-MEMCG=n.log.try1",
    "03-default/gate-sparse.log", "03-default/gates.err",
    "03-default/console.log", "03-default/ktap.txt", "03-default/qemu.log",
    "03-default/cmdline", "03-default/boot-seconds", "03-default/same-as",
    "03-default/noswap/console.log", "03-default/noswap/ktap.txt",
    "03-default/noswap/qemu.log", "03-debug/v1/console.log",
]


def glob_parts(parts, pat):
    if not pat:
        return not parts
    if pat[0] == "**":
        return any(glob_parts(parts[i:], pat[1:])
                   for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pat[0]) and \
        glob_parts(parts[1:], pat[1:])


def glob_match(path, pattern):
    """The upload globs of both services: * and ? within a name, ** across
    folders; a pattern that names a folder takes everything under it."""
    pat = pattern.rstrip("/").split("/")
    parts = path.split("/")
    return glob_parts(parts, pat) or glob_parts(parts, pat + ["**"])


def uploaded(path, includes, excludes):
    return any(glob_match(path, p) for p in includes) and \
        not any(glob_match(path, p) for p in excludes)


def check_upload(name, includes, excludes):
    missed = [f for f in READER_FILES
              if not uploaded(f"results/mainline-3/{f}", includes, excludes)]
    if missed:
        bad(f"{name}: the upload leaves out {', '.join(missed)}")
    else:
        print(f"  {name}: the upload takes every log, KTAP and result file")


PER_COMMIT = ("github.sha", "github.run_id", "github.run_number",
              "CI_COMMIT_SHA", "CI_PIPELINE_ID", "CI_JOB_ID")


def check_cache(name, key, fallbacks, paths, ccache_dir, ref):
    """A key per commit or run stores a new cache every time and restores
    only an exact match: older caches must be what a run starts from. The
    folder cached must be the CCACHE_DIR the job sets (ref, its name in
    the file): ci/lib.sh's own default is a name it may change."""
    if any(v in str(key) for v in PER_COMMIT):
        bad(f"{name}: the ccache key {key!r} changes with every commit or run")
    if not fallbacks:
        bad(f"{name}: the ccache has no restore or fallback keys, so a new "
            f"key starts from an empty cache")
    if not ccache_dir or paths != [ref]:
        bad(f"{name}: caches {paths}, not the CCACHE_DIR it sets "
            f"({ccache_dir!r}) alone")


def scripts(job):
    """A job's shell: GitHub's run: steps, GitLab's script: lines."""
    if "steps" in job:
        return "\n".join(s["run"] for s in job["steps"] if "run" in s)
    return "\n".join(str(x) for x in job.get("script", []))


def literal_prefix(pattern):
    """The folder before the first wildcard, as actions/upload-artifact
    roots an artifact at the common ancestor of these."""
    parts = []
    for p in pattern.split("/")[:-1]:
        if any(c in p for c in "*?["):
            break
        parts.append(p)
    return "/".join(parts)


def check_service(name, ci, want):
    """What both services must do alike. ci: the check, point (its
    extends resolved) and table jobs, the cells, the point job's time
    limit, its cache and upload, and where the download puts a cell."""
    print(f"  {len(ci['cells'])} cells")
    if ci["cells"] != want:
        bad(f"{name}: the cells {ci['cells']} are not the series' points "
            f"{want}")
    if not calls(scripts(ci["check"]), "ci/check"):
        bad(f"{name}: the check job does not run ci/check")
    for job in ("check", "point", "table"):
        check_commands(f"{name} {job} job", scripts(ci[job]))
    if ci["limit"] is None:
        bad(f"{name} point job: its timeout is no duration")
    else:
        check_limit(f"{name} point job", ci["limit"], " ".join(
            calls(scripts(ci["point"]), "ci/jobs/run-series.sh")),
            ci["hosted"])
    check_cache(f"{name} point job", *ci["cache"])
    check_upload(f"{name} point job", *ci["upload"])
    # ci/services/table.sh takes the cells' folders, each named BASE-K.
    args = " ".join(calls(scripts(ci["table"]), "ci/services/table.sh"))
    if not any(glob_parts(ci["cell"].split("/"), a.strip("/").split("/"))
               for a in args.split()):
        bad(f"{name}: the table job's ci/services/table.sh {args!r} misses "
            f"{ci['cell']}, a point job's folder as the download lays it")


def github():
    """.github/workflows/series.yml, its plan step run here."""
    with open(GITHUB) as f:
        wf = yaml.safe_load(f)
    jobs = wf["jobs"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "output")
        open(out, "w").close()
        r = subprocess.run(["bash", "-e", "-c", scripts(jobs["plan"])],
                           cwd=REPO, env=dict(os.environ, GITHUB_OUTPUT=out),
                           capture_output=True, text=True)
        if r.returncode:
            bad(f"GitHub: the plan step failed: {r.stderr.strip()}")
        with open(out) as f:
            outputs = dict(ln.rstrip("\n").split("=", 1) for ln in f if "=" in ln)
    try:
        cells = [(c["base"], int(c["point"])) for c in
                 json.loads(outputs.get("matrix", ""))["include"]]
    except (ValueError, KeyError, TypeError) as e:
        bad(f"GitHub: the plan job gives no matrix JSON ({e})")
        cells = []
    # Least privilege: a token that can only read, for every job; and a
    # newer run of the same ref cancels the older one.
    perms = [wf.get("permissions")] + [j.get("permissions")
                                       for j in jobs.values()]
    if wf.get("permissions") is None or "write" in str(perms):
        bad(f"GitHub: permissions {perms}: the workflow must only read")
    if not (wf.get("concurrency") or {}).get("cancel-in-progress"):
        bad("GitHub: no concurrency group that cancels a superseded run")
    point = jobs["point"]
    if jobs["plan"].get("needs") != "check" or point.get("needs") != "plan" \
            or "fromJSON(needs.plan.outputs.matrix)" not in \
            str(point["strategy"]["matrix"]):
        bad("GitHub: the point job does not take its matrix from a plan job "
            "that waits for the check job")
    # The runner's ccache is the container's: the job's CCACHE_DIR, passed.
    env = dict(wf.get("env") or {}, **(point.get("env") or {}))
    if not re.search(r"--env CCACHE_DIR\b", scripts(point)):
        bad("GitHub point job: docker run is not given CCACHE_DIR")
    caches = [s["with"] for s in point["steps"] if re.match(
        r"actions/cache(/restore|/save)?@", str(s.get("uses", "")))] or [{}]
    upload, = [s["with"] for s in point["steps"] if str(
        s.get("uses", "")).startswith("actions/upload-artifact")] or [{}]
    paths = str(upload.get("path", "")).split()
    includes = [p for p in paths if not p.startswith("!")]
    # download-artifact puts artifact <name> under <path>/<name>/, its
    # files relative to the upload's root, the common prefix of the paths.
    down, = [s["with"] for s in jobs["table"]["steps"] if str(
        s.get("uses", "")).startswith("actions/download-artifact")] or [{}]
    root = os.path.commonpath([literal_prefix(p) for p in includes] or [""])
    name = str(upload.get("name")).replace("${{ matrix.base }}", "mainline")
    return dict(
        check=jobs["check"], point=point, table=jobs["table"], cells=cells,
        # GitHub's default when timeout-minutes is left out is 360.
        limit=int(point.get("timeout-minutes", HOSTED_MAX_MIN)),
        hosted=str(point.get("runs-on", "")).startswith(
            ("ubuntu-", "windows-", "macos-")),
        cache=(caches[0].get("key"), caches[0].get("restore-keys"),
               sorted({str(c.get("path")) for c in caches}),
               env.get("CCACHE_DIR"), "${{ env.CCACHE_DIR }}"),
        upload=(includes, [p[1:] for p in paths if p.startswith("!")]),
        cell=os.path.join(down.get("path", "."), name.replace(
            "${{ matrix.point }}", "3"), os.path.relpath(
                "results/mainline-3", root)))


def gitlab():
    """.gitlab-ci.yml and the child pipeline its plan job writes, made
    here as that job makes it."""
    with open(GITLAB) as f:
        ci = yaml.safe_load(f)
    plan, trigger = ci["plan"], ci["points"].get("trigger", {})
    made = re.findall(r"ci/services/matrix\.sh --gitlab\s*>\s*(\S+)",
                      scripts(plan)) or [None]
    if plan.get("needs") != ["check"] or trigger.get("strategy") != \
            "depend" or made[0] not in plan.get("artifacts", {}).get(
                "paths", []) or trigger.get("include") != [
                {"artifact": made[0], "job": "plan"}]:
        bad("GitLab: the points job does not run, as a child pipeline it "
            "waits for, what the plan job writes with "
            "ci/services/matrix.sh --gitlab after the check job")
    child = yaml.safe_load(matrix("--gitlab"))
    point = dict(child[child["point"]["extends"]], **child["point"])
    cache, art = point.get("cache", {}), point.get("artifacts", {})
    return dict(
        check=ci["check"], point=point, table=child["table"],
        cells=[(m["BASE"], int(p)) for m in point["parallel"]["matrix"]
               for p in m["POINT"]],
        limit=gitlab_minutes(point.get("timeout", "")), hosted=False,
        cache=(cache.get("key"), cache.get("fallback_keys"),
               cache.get("paths"), child.get("variables", {}).get(
                   "CCACHE_DIR"), "$CCACHE_DIR"),
        upload=(art.get("paths", []), art.get("exclude", [])),
        # GitLab restores artifacts at their paths in the project folder.
        cell="results/mainline-3")


def main():
    if sys.argv[1:]:
        sys.exit(__doc__)
    want = series_cells()
    services = {}
    for name, read in (("GitHub", github), ("GitLab", gitlab)):
        print(f"# {name}")
        services[name] = ci = read()
        check_service(name, ci, want)
    gh, gl = (calls(scripts(services[n]["point"]), "ci/jobs/run-series.sh")
              for n in services)
    if gh != gl:
        bad(f"the point jobs call ci/jobs/run-series.sh differently: "
            f"GitHub {gh}, GitLab {gl}")
    print(f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
