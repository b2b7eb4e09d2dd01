#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The compile group's inputs (benchmarks/guest/compile): kernel objects
preprocessed on the host, each with the compiler flags its build used, and
the host's gcc, cc1 and as with the shared libraries they load, for the
guest to compile them again under a memory cgroup limit: a real compile
job whose sources need no headers in the guest.

    benchmarks/compile-inputs.py BUILD OUT OBJ...     (OBJ: e.g. mm/zswap.o)

BUILD is a kernel build folder where OBJ was built (its .OBJ.cmd gives the
command); OUT gets src/NAME.i and src/NAME.flags per object and root/, the
toolchain at its host paths."""
import os
import shlex
import shutil
import subprocess
import sys


def die(msg):
    sys.exit("error: compile-inputs: " + msg)


def command(build, obj):
    path = os.path.join(build, os.path.dirname(obj),
                        "." + os.path.basename(obj) + ".cmd")
    if not os.path.exists(path):
        die("no %s: build %s in %s first" % (path, obj, build))
    for line in open(path):
        if line.startswith("savedcmd_"):
            # The compile alone: objtool and the like follow a ';'.
            words = shlex.split(line.split(":=", 1)[1].split(";")[0])
            return [w for w in words if w != "ccache"]
    die("%s has no savedcmd line" % path)


def split(words):
    """The preprocessor's part of a gcc command and the compiler's part."""
    pre, comp, src, i = [words[0]], [], None, 1
    while i < len(words):
        w = words[i]
        if w in ("-include", "-isystem", "-I", "-D", "-U"):
            pre += words[i:i + 2]
            i += 2
            continue
        if w == "-o":
            i += 2
            continue
        if w.endswith(".c") and not w.startswith("-"):
            src = w
        elif w.startswith(("-I", "-D", "-U", "-Wp,")) or w == "-nostdinc":
            pre.append(w)
        elif w != "-c":
            pre.append(w)
            comp.append(w)
        i += 1
    if not src:
        die("no source file in: " + " ".join(words))
    return pre, comp, src


def copy(root, path):
    """PATH (a file, through its symlinks) to the same path under ROOT."""
    dst = root + os.path.abspath(path)
    if os.path.exists(dst):
        return
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(os.path.realpath(path), dst)


def libs(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        w = line.split()
        if "=>" in w and len(w) > 2 and w[2].startswith("/"):
            yield w[2]
        elif w and w[0].startswith("/"):
            yield w[0]


def main():
    if len(sys.argv) < 4:
        die("usage: compile-inputs.py BUILD OUT OBJ...")
    build, out, objs = sys.argv[1], sys.argv[2], sys.argv[3:]
    if not os.path.isdir(build):
        die("no build folder " + build)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "src"))
    gcc = None
    for obj in objs:
        pre, comp, src = split(command(build, obj))
        gcc = gcc or pre[0]
        name = os.path.splitext(os.path.basename(obj))[0]
        dst = os.path.abspath(os.path.join(out, "src", name + ".i"))
        # Each object's files are named by its base name: two of one
        # name would overwrite each other's.
        if os.path.exists(dst):
            die("two objects named %s.o: give one of them" % name)
        subprocess.run(pre + ["-E", "-P", "-o", dst, src], cwd=build,
                       check=True)
        with open(os.path.join(out, "src", name + ".flags"), "w") as f:
            f.write(" ".join(shlex.quote(w) for w in comp) + "\n")
    root = os.path.join(out, "root")
    drv = shutil.which(gcc)
    tools = [drv]
    for prog in ("cc1", "as"):
        p = subprocess.run([drv, "-print-prog-name=" + prog],
                           capture_output=True, text=True,
                           check=True).stdout.strip()
        p = p if os.path.isabs(p) else shutil.which(p)
        if not p:
            die("%s has no %s" % (gcc, prog))
        tools.append(p)
    # The guest's gcc is /usr/bin/gcc, whatever its name here: it finds cc1
    # under its own prefix, and as on PATH.
    for t, name in zip(tools, ("/usr/bin/gcc", None, "/usr/bin/as")):
        copy(root, t)
        if name and not os.path.exists(root + name):
            shutil.copy2(os.path.realpath(t), root + name)
        for lib in libs(t):
            copy(root, lib)
    print("compile inputs: %s: %s, %s" % (out, " ".join(objs),
                                          " ".join(tools)))


main()
