#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the CI files for other machines against this repository.

  check-workflows.py [--results BASE=RUN ...]

.github/workflows/series.yml: its plan job is run here (with a scratch
$GITHUB_OUTPUT) and must give one cell per point of each series; the point
job must take its matrix from it and run ci/jobs/run-series.sh with options
the script knows. .gitlab-ci.yml: its parallel:matrix must list the same
cells. Both: the point job's time limit must cover the worst case of the
longest cell, computed from the boot limits of ci/6-boot/boot.sh,
ci/jobs/run-series.sh and ci/6-boot/probe-accel.sh and the boots and builds
a cell makes; the ccache key must restore older caches rather than start
one per commit; the upload must take every file of a run that a reader
needs (quilt.log included). With --results (a finished
ci/jobs/run-series.sh run of that base), each CI's artifact upload and
table job are replayed: the run is cut into one artifact per point with
the upload paths, laid out as the CI's download would, and the table job's
own script must give the rows of the run itself (on GitHub, also in the
job summary).
Needs PyYAML (Debian: python3-yaml).

Why not actionlint alone: actionlint checks a workflow's syntax,
expressions and shell steps, not what this checks (that the matrix is the
series' points, the time limit the boots', the artifacts what the table
job reads), nor .gitlab-ci.yml; and it is no Debian 12 package. Where it
is installed it can run beside this.
"""
import fnmatch
import json
import os
import re
import shutil
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


def series_cells():
    """(base, point) for every point of each series: ci/services/matrix.sh
    --list, which reads the series files as ci/jobs/run-series.sh does."""
    out = subprocess.run(["bash", os.path.join(REPO, "ci", "services",
                                               "matrix.sh"), "--list"],
                         capture_output=True, text=True, check=True).stdout
    return [(b, int(k)) for b, k in (ln.split() for ln in out.splitlines())]


def run_script(script, cwd, env=None):
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True)


def run_series_options():
    out = subprocess.run(["bash", os.path.join(REPO, "ci", "jobs",
                                               "run-series.sh"), "--help"],
                         capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z]+", out))


def run_series_calls(script):
    """The arguments of each ci/jobs/run-series.sh call in a script: the
    rest of its command, up to a command separator or the end of a quoted
    script (the GitHub job's call is inside docker run's bash -c '...')."""
    script = script.replace("\\\n", " ")
    return re.findall(r"ci/jobs/run-series\.sh([^;&|'\n]*)", script)


def check_commands(where, script):
    """Every ci/ script named must exist, run-series options must be known."""
    for path in re.findall(r"\b(ci/[\w./-]+)", script):
        if not os.path.isfile(os.path.join(REPO, path)):
            bad(f"{where} runs {path}, which does not exist")
    calls = run_series_calls(script)
    if calls:
        known = run_series_options()
        for args in calls:
            for opt in re.findall(r"(?<![\w-])--[a-z]+", args):
                if opt not in known:
                    bad(f"{where} passes {opt}, unknown to "
                        f"ci/jobs/run-series.sh")


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
    units = {}
    for minutes, names in ((60, "h hr hrs hour hours"),
                           (1, "m min mins minute minutes"),
                           (1 / 60, "s sec secs second seconds")):
        units.update(dict.fromkeys(names.split(), minutes))
    text = str(text).lower()
    words = re.findall(r"(\d+)\s*([a-z]+)", text)
    rest = re.sub(r"(\d+)\s*([a-z]+)|\band\b|[\s,]", "", text)
    if not words or rest or any(u not in units for _, u in words):
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


def github_upload(jobs):
    steps = [s for s in jobs["point"]["steps"]
             if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    lines = steps[0]["with"]["path"].split() if steps else []
    return ([p for p in lines if not p.startswith("!")],
            [p[1:] for p in lines if p.startswith("!")])


def gitlab_upload(ci):
    art = ci["point"].get("artifacts", {})
    return art.get("paths", []), art.get("exclude", [])


PER_COMMIT = ("github.sha", "github.run_id", "github.run_number",
              "CI_COMMIT_SHA", "CI_PIPELINE_ID", "CI_JOB_ID")


def check_cache(name, key, fallbacks):
    """A key per commit or run stores a new cache every time and restores
    only an exact match: older caches must be what a run starts from."""
    if any(v in str(key) for v in PER_COMMIT):
        bad(f"{name}: the ccache key {key!r} changes with every commit or run")
    if not fallbacks:
        bad(f"{name}: the ccache has no restore or fallback keys, so a new "
            f"key starts from an empty cache")


def check_github(want):
    print("# .github/workflows/series.yml")
    with open(GITHUB) as f:
        wf = yaml.safe_load(f)
    jobs = wf["jobs"]
    plan = [s["run"] for s in jobs["plan"]["steps"] if "run" in s]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "output")
        open(out, "w").close()
        env = dict(os.environ, GITHUB_OUTPUT=out)
        for script in plan:
            r = run_script(script, REPO, env)
            if r.returncode:
                bad(f"plan step failed: {script!r}: {r.stderr.strip()}")
        with open(out) as f:
            outputs = dict(ln.rstrip("\n").split("=", 1) for ln in f if "=" in ln)
    try:
        include = json.loads(outputs.get("matrix", ""))["include"]
        got = [(c["base"], int(c["point"])) for c in include]
    except (ValueError, KeyError, TypeError) as e:
        bad(f"plan job gives no matrix JSON ({e})")
        got = []
    if got != want:
        bad(f"plan job's cells {got} are not the series' points {want}")
    # Least privilege: a token that can only read, for every job; and a
    # newer run of the same ref cancels the older one.
    perms = [wf.get("permissions")] + [j.get("permissions")
                                       for j in jobs.values()]
    if wf.get("permissions") is None or "write" in str(perms):
        bad(f"permissions {perms}: the workflow must only read")
    if not (wf.get("concurrency") or {}).get("cancel-in-progress"):
        bad("no concurrency group that cancels a superseded run")
    point = jobs["point"]
    if point.get("needs") != "plan" or \
            "fromJSON(needs.plan.outputs.matrix)" not in \
            str(point["strategy"]["matrix"]):
        bad("point job does not take its matrix from the plan job")
    runs = [s["run"] for s in point["steps"] if "run" in s]
    for script in runs:
        check_commands("point job", script)
    for s in jobs["table"]["steps"]:
        if "run" in s:
            check_commands("table job", s["run"])
    print(f"  {len(got)} cells")
    # GitHub's default when timeout-minutes is left out is 360.
    limit = int(point.get("timeout-minutes", HOSTED_MAX_MIN))
    hosted = str(point.get("runs-on", "")).startswith(
        ("ubuntu-", "windows-", "macos-"))
    check_limit("point job", limit, " ".join(
        a for r in runs for a in run_series_calls(r)), hosted)
    caches = [s["with"] for s in point["steps"] if re.match(
        r"actions/cache(/restore)?@", str(s.get("uses", "")))]
    if not caches:
        bad("point job: no ccache")
    for c in caches:
        check_cache("point job", c.get("key"), c.get("restore-keys"))
    check_upload("point job", *github_upload(jobs))


def gitlab_cells(job):
    cells = []
    for entry in job["parallel"]["matrix"]:
        bases = entry["BASE"] if isinstance(entry["BASE"], list) else [entry["BASE"]]
        points = entry["POINT"] if isinstance(entry["POINT"], list) else [entry["POINT"]]
        cells += [(b, int(p)) for b in bases for p in points]
    return cells


def check_gitlab(want):
    print("# .gitlab-ci.yml")
    with open(GITLAB) as f:
        ci = yaml.safe_load(f)
    got = gitlab_cells(ci["point"])
    if got != want:
        bad(f"parallel:matrix {got} is not the series' points {want}")
    script = "\n".join(ci["point"]["script"])
    check_commands("point job", script)
    check_commands("table job", "\n".join(ci["table"]["script"]))
    print(f"  {len(got)} cells")
    limit = gitlab_minutes(ci["point"].get("timeout", ""))
    if limit is None:
        bad(f"point job: timeout {ci['point'].get('timeout')!r} is no "
            f"duration (without one, the project's, 1 hour by default)")
    else:
        check_limit("point job", limit, " ".join(run_series_calls(script)),
                    False)
    cache = ci["point"].get("cache", {})
    check_cache("point job", cache.get("key"), cache.get("fallback_keys"))
    check_upload("point job", *gitlab_upload(ci))


def literal_prefix(pattern):
    """The folder before the first wildcard, as actions/upload-artifact
    roots an artifact at the common ancestor of these."""
    parts = []
    for p in pattern.split("/")[:-1]:
        if any(c in p for c in "*?["):
            break
        parts.append(p)
    return "/".join(parts)


def split_run(run, cell, includes, excludes, dest):
    """Copy what the upload paths take of one point's run into dest, as
    results/<cell>/... ; return the files copied."""
    k = int(cell.rsplit("-", 1)[1])
    files = []
    for root, _, names in os.walk(run):
        for name in names:
            sub = os.path.relpath(os.path.join(root, name), run)
            top = sub.split(os.sep)[0]
            # a CI cell ran this point only: the run's own files (header,
            # quilt.log, image/) and this point's folders
            if re.match(r"\d\d-", top) and not top.startswith(f"{k:02d}-"):
                continue
            if not uploaded(f"results/{cell}/{sub}", includes, excludes):
                continue
            dst = os.path.join(dest, "results", cell, sub)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(os.path.join(root, name), dst)
            files.append(sub)
    return files


def rows(run):
    with open(os.path.join(run, "summary.json")) as f:
        return [(r["point"], r["config"], r["green"]) for r in json.load(f)]


def replay(name, upload, table_script, layout, runs):
    """Cut each run into per-point artifacts, lay them out as the CI's
    download does, run the table job's script, compare its rows (and,
    on GitHub, the job summary it writes)."""
    includes, excludes = upload
    with tempfile.TemporaryDirectory() as tmp:
        # a checkout, as the table job has: the repository's files, no results
        for entry in os.listdir(REPO):
            if entry not in ("results", ".git"):
                os.symlink(os.path.join(REPO, entry), os.path.join(tmp, entry))
        want = {}
        for base, run in runs.items():
            if not os.path.exists(os.path.join(run, "summary.json")):
                # its series stage failed before the end: nothing to cut
                bad(f"{name}: {run} has no summary.json to replay")
                continue
            ref = os.path.join(tmp, "ref-" + base)
            shutil.copytree(run, ref, ignore=shutil.ignore_patterns(
                "image", "*.img", "bzImage*"))
            subprocess.run([sys.executable,
                            os.path.join(REPO, "ci", "7-verdict", "verdict.py"),
                            "table", ref], capture_output=True)
            want[base] = rows(ref)
            points = sorted({int(d[:2]) for d in os.listdir(run)
                             if re.match(r"\d\d-", d)})
            for k in points:
                cell = f"{base}-{k}"
                stage = os.path.join(tmp, "stage-" + cell)
                files = split_run(run, cell, includes, excludes, stage)
                if not any(f.endswith("result.json") for f in files):
                    bad(f"{name}: the upload of {cell} has no result.json")
                layout(stage, cell, tmp, includes)
        summary = os.path.join(tmp, "step-summary.md")
        open(summary, "w").close()
        r = run_script(table_script, tmp,
                       dict(os.environ, GITHUB_STEP_SUMMARY=summary))
        with open(summary) as f:
            shown = f.read()
        for base in want:
            got_dir = os.path.join(tmp, "all", base)
            got = rows(got_dir) if os.path.exists(
                os.path.join(got_dir, "summary.json")) else []
            if got != want[base]:
                bad(f"{name}: the table job gives {got} for {base}, "
                    f"the run itself {want[base]} ({r.stderr.strip()[-300:]})")
            else:
                print(f"  {name}: the table job over the artifacts of {base} "
                      f"gives the run's {len(got)} rows")
            if "$GITHUB_STEP_SUMMARY" in table_script:
                with open(os.path.join(got_dir, "summary.md")) as f:
                    if f.read() not in shown:
                        bad(f"{name}: the job summary lacks the table of {base}")


def github_layout(stage, cell, tmp, includes):
    # download-artifact puts artifact <name> under artifacts/<name>/, its
    # files relative to the upload's root, the common prefix of the paths.
    root = os.path.commonpath([literal_prefix(p) for p in includes])
    shutil.copytree(os.path.join(stage, root),
                    os.path.join(tmp, "artifacts", "results-" + cell),
                    dirs_exist_ok=True)


def gitlab_layout(stage, cell, tmp, includes):
    # GitLab restores artifacts at their paths in the project folder.
    shutil.copytree(stage, tmp, dirs_exist_ok=True, symlinks=True)


def main():
    args = sys.argv[1:]
    runs = {}
    while args:
        if args[0] != "--results" or len(args) < 2 or "=" not in args[1]:
            sys.exit(__doc__)
        base, run = args[1].split("=", 1)
        runs[base] = run
        args = args[2:]
    want = series_cells()
    check_github(want)
    check_gitlab(want)
    if runs:
        with open(GITHUB) as f:
            gh = yaml.safe_load(f)["jobs"]
        table = [s["run"] for s in gh["table"]["steps"] if "run" in s][0]
        replay("GitHub", github_upload(gh), table, github_layout, runs)
        with open(GITLAB) as f:
            gl = yaml.safe_load(f)
        # all but the package install, which this machine has done
        table = "\n".join(ln for ln in gl["table"]["script"]
                          if not ln.startswith("apt-get"))
        replay("GitLab", gitlab_upload(gl), table, gitlab_layout, runs)
    print(f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
