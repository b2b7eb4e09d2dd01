#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the CI files for other machines against this repository.

  check-workflows.py [--results BASE=RUN ...]

.github/workflows/series.yml: its plan job is run here (with a scratch
$GITHUB_OUTPUT) and must give one cell per point of each series; the point
job must take its matrix from it and run ci/run-series.sh with options the
script knows. .gitlab-ci.yml: its parallel:matrix must list the same cells.
With --results (a finished ci/run-series.sh run of that base), each CI's
artifact upload and table job are replayed: the run is cut into one
artifact per point with the upload paths, laid out as the CI's download
would, and the table job's own script must give the rows of the run itself.
Needs PyYAML (Debian: python3-yaml).
"""
import glob
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GITHUB = os.path.join(REPO, ".github", "workflows", "series.yml")
GITLAB = os.path.join(REPO, ".gitlab-ci.yml")
errors = []


def bad(msg):
    errors.append(msg)
    print(f"  not ok: {msg}")


def series_cells():
    """(base, point) for every point of each series: ci/matrix.sh --list,
    which reads the series files as ci/run-series.sh does."""
    out = subprocess.run(["bash", os.path.join(REPO, "ci", "matrix.sh"),
                          "--list"], capture_output=True, text=True,
                         check=True).stdout
    return [(b, int(k)) for b, k in (ln.split() for ln in out.splitlines())]


def run_script(script, cwd, env=None):
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env,
                          capture_output=True, text=True)


def run_series_options():
    out = subprocess.run(["bash", os.path.join(REPO, "ci", "run-series.sh"),
                          "--help"], capture_output=True, text=True).stdout
    return set(re.findall(r"--[a-z]+", out))


def check_commands(where, script):
    """Every ci/ script named must exist, run-series options must be known."""
    for path in re.findall(r"\b(ci/[\w.-]+)", script):
        if not os.path.isfile(os.path.join(REPO, path)):
            bad(f"{where} runs {path}, which does not exist")
    if "ci/run-series.sh" in script:
        known = run_series_options()
        for opt in re.findall(r"(?<![\w-])--[a-z]+", script):
            if opt not in known:
                bad(f"{where} passes {opt}, unknown to ci/run-series.sh")


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
    point = jobs["point"]
    if point.get("needs") != "plan" or \
            "fromJSON(needs.plan.outputs.matrix)" not in \
            str(point["strategy"]["matrix"]):
        bad("point job does not take its matrix from the plan job")
    for s in point["steps"]:
        if "run" in s:
            check_commands("point job", s["run"])
    for s in jobs["table"]["steps"]:
        if "run" in s:
            check_commands("table job", s["run"])
    print(f"  {len(got)} cells")


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
    check_commands("point job", "\n".join(ci["point"]["script"]))
    check_commands("table job", "\n".join(ci["table"]["script"]))
    print(f"  {len(got)} cells")


def literal_prefix(pattern):
    """The folder before the first wildcard, as actions/upload-artifact
    roots an artifact at the common ancestor of these."""
    parts = []
    for p in pattern.split("/")[:-1]:
        if any(c in p for c in "*?["):
            break
        parts.append(p)
    return "/".join(parts)


def split_run(run, cell, patterns, dest):
    """Copy what the upload paths take of one point's run into dest, as
    results/<cell>/... ; return the files copied."""
    k = int(cell.rsplit("-", 1)[1])
    files = []
    for pat in patterns:
        rel = pat.split("/", 2)[2]          # results/*/<rel>
        for src in glob.glob(os.path.join(run, rel)):
            sub = os.path.relpath(src, run)
            top = sub.split(os.sep)[0]
            # a CI cell ran this point only: its header and its point dirs
            if top != "header" and not top.startswith(f"{k:02d}-"):
                continue
            dst = os.path.join(dest, "results", cell, sub)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(src, dst)
            files.append(sub)
    return files


def rows(run):
    with open(os.path.join(run, "summary.json")) as f:
        return [(r["point"], r["config"], r["green"]) for r in json.load(f)]


def replay(name, patterns, table_script, layout, runs):
    """Cut each run into per-point artifacts, lay them out as the CI's
    download does, run the table job's script, compare its rows."""
    with tempfile.TemporaryDirectory() as tmp:
        # a checkout, as the table job has: the repository's files, no results
        for entry in os.listdir(REPO):
            if entry not in ("results", ".git"):
                os.symlink(os.path.join(REPO, entry), os.path.join(tmp, entry))
        want = {}
        for base, run in runs.items():
            ref = os.path.join(tmp, "ref-" + base)
            shutil.copytree(run, ref, ignore=shutil.ignore_patterns(
                "image", "*.img", "bzImage*"))
            subprocess.run([sys.executable, os.path.join(REPO, "ci", "verdict.py"),
                            "table", ref], capture_output=True)
            want[base] = rows(ref)
            points = sorted({int(d[:2]) for d in os.listdir(run)
                             if re.match(r"\d\d-", d)})
            for k in points:
                cell = f"{base}-{k}"
                stage = os.path.join(tmp, "stage-" + cell)
                files = split_run(run, cell, patterns, stage)
                if not any(f.endswith("result.json") for f in files):
                    bad(f"{name}: the upload of {cell} has no result.json")
                layout(stage, cell, tmp, patterns)
        r = run_script(table_script, tmp)
        for base in runs:
            got_dir = os.path.join(tmp, "all", base)
            got = rows(got_dir) if os.path.exists(
                os.path.join(got_dir, "summary.json")) else []
            if got != want[base]:
                bad(f"{name}: the table job gives {got} for {base}, "
                    f"the run itself {want[base]} ({r.stderr.strip()[-300:]})")
            else:
                print(f"  {name}: the table job over the artifacts of {base} "
                      f"gives the run's {len(got)} rows")


def github_layout(stage, cell, tmp, patterns):
    # download-artifact puts artifact <name> under artifacts/<name>/, its
    # files relative to the upload's root, the common prefix of the paths.
    root = os.path.commonpath([literal_prefix(p) for p in patterns])
    shutil.copytree(os.path.join(stage, root),
                    os.path.join(tmp, "artifacts", "results-" + cell),
                    dirs_exist_ok=True)


def gitlab_layout(stage, cell, tmp, patterns):
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
        up = gh["point"]["steps"][-1]["with"]["path"].split()
        table = [s["run"] for s in gh["table"]["steps"] if "run" in s][0]
        replay("GitHub", up, table, github_layout, runs)
        with open(GITLAB) as f:
            gl = yaml.safe_load(f)
        # all but the package install, which this machine has done
        table = "\n".join(ln for ln in gl["table"]["script"]
                          if not ln.startswith("apt-get"))
        replay("GitLab", gl["point"]["artifacts"]["paths"], table,
               gitlab_layout, runs)
    print(f"{len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
