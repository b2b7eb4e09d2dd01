#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Keep a build folder incremental across resets of its source tree.

make rebuilds what is older than its sources, by mtime. The pipeline
rewrites the files a series touches far more often than it changes them:
`git reset --hard zs-base` and `git am` again at the start of every job,
quilt push -a and pop -a for the test image. The contents come back the
same, the mtimes do not, and a header such as include/linux/zswap.h
(mmzone.h includes it) makes every object of the kernel compile again.
This puts back, before a build, the mtime that each tracked file had when
the folder's last build started, for every file whose content is still the
one that build saw; a file whose content differs is made newer than that
build (its mtime now, unless it is newer than that build's end already),
and make rebuilds what depends on it, as it would have. Not only left as
it is: the mtimes are the tree's, and another folder's run of this script
(another configuration of the same tree) may have put a file's mtime back
to a time before this folder's objects of other content.

  keep-mtimes.py TREE BUILDDIR    (ci/3-build/build.sh, before configuring)

The record (BUILDDIR/.zs-sources: the tree's git tree id, the time the
build started, and each tracked file's mtime) describes the objects of the
folder only as far as nothing else wrote there: ci/4-gates/gates.sh
compiles the files before the patch in it, and a build killed half-way may
leave a truncated object newer than its source. So what was written after
the last build ended (BUILDDIR/.zs-built, written at its end, success or
failure), or after it started if it never ended, is removed first, and
make writes it again. Without a record, or for a tree whose working files
are not its index, nothing is restored, and make decides by mtimes alone,
as without this. Prints what it did.
"""
import os
import stat
import subprocess
import sys
import time


def git(tree, *args, check=True):
    r = subprocess.run(["git", "-C", tree, *args], capture_output=True,
                       text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r


def clean_tree_id(tree):
    """The tree id of TREE's index when its working files are the index,
    else None."""
    if git(tree, "rev-parse", "--show-toplevel", check=False).stdout.strip() \
            != os.path.realpath(tree):
        return None
    git(tree, "update-index", "-q", "--refresh", check=False)
    if git(tree, "diff-files", "--quiet", check=False).returncode != 0:
        return None
    return git(tree, "write-tree").stdout.strip()


def tracked(tree):
    return git(tree, "ls-files", "-z").stdout.split("\0")[:-1]


def newer_in(folder, stamp_ns, skip):
    """The files under FOLDER (but SKIP at its top) modified after
    STAMP_NS."""
    out = []
    for dirpath, _, files in os.walk(folder):
        for f in files:
            p = os.path.join(dirpath, f)
            if f in skip and dirpath == folder:
                continue
            try:
                if os.lstat(p).st_mtime_ns > stamp_ns:
                    out.append(p)
            except FileNotFoundError:
                pass
    return out


def read_record(path):
    with open(path) as f:
        tree_id = f.readline().strip()
        stamp = int(f.readline())
        mtimes = {}
        for line in f:
            ns, _, p = line.rstrip("\n").partition("\t")
            mtimes[p] = int(ns)
    return tree_id, stamp, mtimes


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(64)
    tree, build = sys.argv[1], sys.argv[2]
    record = os.path.join(build, ".zs-sources")
    built = os.path.join(build, ".zs-built")
    now_id = clean_tree_id(tree)
    why = None
    if now_id is None:
        why = "the tree is not a git tree whose files are its index"
    elif not os.path.exists(record):
        why = "no build recorded in this folder"
    restored = bumped = 0
    removed = []
    if why is None:
        old_id, stamp, mtimes = read_record(record)
        done = os.stat(built).st_mtime_ns if os.path.exists(built) else stamp
        removed = newer_in(build, done, {".zs-sources", ".zs-built"})
        for p in removed:
            os.remove(p)
        if git(tree, "cat-file", "-e", old_id + "^{tree}",
               check=False).returncode != 0:
            why = "the last build's sources are not in the tree's history"
    # Each tracked file's mtime, as it will be for this build: read once
    # (a kernel tree has some 90000 files; this runs before every build).
    files = tracked(tree) if now_id is not None else []
    mtime = {}
    for p in files:
        try:
            st = os.lstat(os.path.join(tree, p))
        except FileNotFoundError:
            continue
        mtime[p] = (st.st_atime_ns, st.st_mtime_ns,
                    stat.S_ISLNK(st.st_mode))
    if why is None:
        changed = set(git(tree, "diff", "--name-only", "--no-renames",
                          "-z", old_id, now_id).stdout.split("\0"))
        now = time.time_ns()
        for p, (atime, mt, link) in mtime.items():
            if link:
                continue    # a symlink's own mtime is not make's
            if p in changed or p not in mtimes:
                # Other content than that build's: newer than it.
                if mt <= done:
                    os.utime(os.path.join(tree, p), ns=(atime, now))
                    mtime[p] = (atime, now, link)
                    bumped += 1
            elif mt != mtimes[p]:
                # Same content: the mtime that build saw.
                os.utime(os.path.join(tree, p), ns=(atime, mtimes[p]))
                mtime[p] = (atime, mtimes[p], link)
                restored += 1
    # The record for this build, and no "finished" mark until it ends.
    for f in (built, record):
        if os.path.exists(f):
            os.remove(f)
    if now_id is not None:
        stamp = time.time_ns()
        tmp = record + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{now_id}\n{stamp}\n")
            for p, (_, mt, _) in mtime.items():
                f.write(f"{mt}\t{p}\n")
        os.replace(tmp, record)
    if removed:
        print(f"keep-mtimes: {len(removed)} files written in the folder after "
              f"its last build removed, e.g. {removed[0]}")
    if why:
        print(f"keep-mtimes: nothing restored: {why}")
    else:
        print(f"keep-mtimes: {restored} files with that build's content "
              f"keep its mtime; {bumped} with other content made newer")


if __name__ == "__main__":
    main()
