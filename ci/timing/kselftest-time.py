#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How long one kselftest binary ran in the guest, and what its cases gave.

  kselftest-time.py TEST LABEL=ROW_FOLDER...

For each ROW_FOLDER (a row of ci/jobs/run-series.sh, with its ktap.txt),
print one tab-separated line: LABEL, the binary's seconds (the guest's
"time=Ns" on its KTAP line), its verdict, and its cases passed, failed and
skipped, with the names of those that failed. docs/timing/ keeps such
tables; ci/timing/figures.py reads figures from them.
"""
import os
import re
import sys


def one(test, folder):
    path = os.path.join(folder, 'ktap.txt')
    if not os.path.exists(path):
        sys.exit(f'{folder}: no ktap.txt')
    text = open(path).read()
    top = re.search(r'^(not ok|ok) \d+ ' + re.escape(test) + r'\b.*?time=(\d+)s',
                    text, re.M)
    if not top:
        return None
    # Its cases: the indented results before its own line.
    body = text[:top.start()].rsplit('# running ' + test, 1)[-1]
    # "ok 9 name # SKIP why", or as ksft_test_result_skip() prints it,
    # "ok 9 # SKIP name".
    cases = re.findall(r'^\s+(not ok|ok) \d+ (?:- )?(?:(# SKIP) )?(\S+)(.*)$',
                       body, re.M)
    cases = [(r, n, (skip or '') + rest) for r, skip, n, rest in cases]
    failed = [n for r, n, rest in cases if r == 'not ok']
    skipped = [n for r, n, rest in cases if r == 'ok' and '# SKIP' in rest]
    passed = len(cases) - len(failed) - len(skipped)
    verdict = 'pass' if top.group(1) == 'ok' else 'fail'
    return (top.group(2), verdict, passed, len(failed), len(skipped),
            ','.join(failed) or '-')


def main(argv):
    if len(argv) < 3 or argv[1] in ('-h', '--help'):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ('-h', '--help') else 2
    test = argv[1]
    print('# label\tseconds\tverdict\tpassed\tfailed\tskipped\tfailed cases')
    for arg in argv[2:]:
        label, sep, folder = arg.partition('=')
        if not sep:
            sys.exit(f'{arg}: not LABEL=ROW_FOLDER')
        r = one(test, folder)
        if r is None:
            print(f'{label}\t-\tdid not finish (crash or timeout: {folder})')
        else:
            print(label + '\t' + '\t'.join(str(x) for x in r))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
