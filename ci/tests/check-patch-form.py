#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The form of every patch file of patches/, read as it will be mailed.

For each series folder of patches/ (its series file, in order): every
patch is git format-patch output with From:, Subject: and a
Signed-off-by: of its author; its subject fits in 75 columns with the
"[PATCH vN n/m] " that b4 will put before it (N from the folder's
b4-cover, when above 1). The series that go to linux-mm (a folder with a
b4-cover) also: a message of at most 400 words above its "---", and no
path of this repository in it, which no reviewer could open. No message
of any series names such a path. A series file split into sets by
comment lines ("# upstream: ...", "# optional vendor: ...", "# optional
tests: ...", the LTS backports) has its upstream set in the stable form
(stable-kernel-rules.rst): the message opens with "commit <40 hex>
upstream." and the author's own Signed-off-by is upstream's author's,
not the sender's; every optional patch says in its first line that it
is a vendor or a test patch, and optional.

checkpatch, the apply and the build are the pipeline's steps; this is
what can be told from the files alone, in a second, with nothing but
python3 (ci/check runs it).

    ci/tests/check-patch-form.py [PATCHES_DIR]
"""
import email
import email.policy
import json
import os
import re
import sys

# A path of this repository, where a message would name it.
REPO_PATH = re.compile(r"(?<![\w./-])(ci|benchmarks|patches|configs|docs|"
                       r"results)/[\w.-]")
MAX_SUBJECT = 75
MAX_WORDS = 400


SETS = re.compile(r"^#\s*(upstream|optional vendor|optional tests):")
STABLE = re.compile(r"^commit [0-9a-f]{40} upstream\.$")
# The sender's identity in this repository: a backport is never its own.
PLACEHOLDER = "maintainers@users.noreply.a-seed-c881d9f4.example"


def series_files(folder):
    """(path, set) for each patch of FOLDER/series; set is the name of the
    comment line above it that opens a set, or None."""
    kind = None
    with open(os.path.join(folder, "series")) as f:
        for line in f:
            m = SETS.match(line)
            if m:
                kind = m.group(1)
            line = line.split("#", 1)[0].strip()
            if line:
                yield os.path.join(folder, line), kind


def check_set(message, author, kind):
    """What the message of a patch of set KIND lacks."""
    first = message.lstrip().split("\n", 1)[0]
    if kind == "upstream":
        errors = []
        if not STABLE.match(first):
            errors.append("an upstream backport whose message does not open"
                          " with 'commit <40 hex> upstream.'")
        if PLACEHOLDER in author:
            errors.append("an upstream backport From: the sender, not its"
                          " upstream author")
        return errors
    word = "Vendor patch" if kind == "optional vendor" else "Test patch"
    if not (first.startswith(word) and "optional" in message.split("\n\n")[0]):
        return ["a patch of the %s set whose first paragraph does not say"
                " '%s ..., optional'" % (kind, word)]
    return []


def check_patch(path, prefix, mailed, kind=None):
    """What is wrong with the patch file PATH, a list of sentences."""
    errors = []
    with open(path, "rb") as f:
        raw = f.read()
    msg = email.message_from_bytes(raw, policy=email.policy.compat32)
    author = msg.get("From")
    subject = msg.get("Subject")
    if not author or not subject:
        return ["no From: or Subject: (not git format-patch output)"]
    subject = re.sub(r"\s*\n\s*", " ", subject)
    subject = re.sub(r"^\[PATCH[^]]*\]\s*", "", subject)
    body = msg.get_payload(decode=True).decode("utf-8", "replace")
    message = body.split("\n---\n", 1)[0]
    # A stand-in keeps the title of the upstream commit it stands in for,
    # and is never mailed.
    standin = message.lstrip().startswith("Stand-in, not for merging")
    if len(prefix + subject) > MAX_SUBJECT and not standin:
        errors.append("subject is %d columns with '%s' (at most %d)"
                      % (len(prefix + subject), prefix.strip(), MAX_SUBJECT))
    name = re.sub(r"\s*\n\s*", " ", author).split("<", 1)[0].strip()
    if not re.search(r"^Signed-off-by: %s <" % re.escape(name), message, re.M):
        errors.append("no Signed-off-by: of its author (%s)" % name)
    if kind:
        errors += check_set(message, author, kind)
    if mailed:
        words = len(message.split())
        if words > MAX_WORDS:
            errors.append("message of %d words (at most %d)"
                          % (words, MAX_WORDS))
    if not standin:
        for m in REPO_PATH.finditer(message):
            line = message[:m.start()].count("\n") + 1
            errors.append("line %d names a path of this repository: %s"
                          % (line, message.splitlines()[line - 1].strip()))
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "patches")
    bad = 0
    folders = sorted(d for d in os.listdir(root)
                     if os.path.isfile(os.path.join(root, d, "series")))
    if not folders:
        print("error: no series folder in %s" % root, file=sys.stderr)
        return 1
    for d in folders:
        folder = os.path.join(root, d)
        # b4's cover commit (patches/<series>/b4-cover): its tracking data.
        state = os.path.join(folder, "b4-cover")
        mailed = os.path.isfile(state)
        rev = json.loads("{" + open(state).read().split("--- b4-submit-tracking ---")[1].split(
            "{", 1)[1])["series"]["revision"] if mailed else 1
        patches = list(series_files(folder))
        for i, (p, kind) in enumerate(patches, 1):
            v = " v%d" % rev if rev > 1 else ""
            # As git format-patch and b4 number them: 01/11, 1/9.
            w = len(str(len(patches)))
            n = " %0*d/%d" % (w, i, len(patches)) if len(patches) > 1 else ""
            prefix = "[PATCH%s%s] " % (v, n)
            if not os.path.isfile(p):
                errors = ["listed in %s/series, but no such file" % d]
            else:
                errors = check_patch(p, prefix, mailed, kind)
            for e in errors:
                print("%s/%s: %s" % (d, os.path.basename(p), e))
            bad += bool(errors)
        print("# %s: %d patches%s" % (d, len(patches),
                                      ", mailed to linux-mm" if mailed else ""))
    print("%s: %d patches with errors" % ("FAIL" if bad else "ok", bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
