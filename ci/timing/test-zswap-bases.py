#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What each case of test_zswap did on each base, from the guest's KTAP.

  test-zswap-bases.py [--results RESULTS] [NAME=ROW...]

Reads test_zswap's cases from ROW/ktap.txt (a row folder of a run of
ci/jobs/run-series.sh) and writes docs/timing/test-zswap-bases.md: a
table, one line a case, one column a base, each cell ok, SKIP or FAIL
with the first message the case printed. --results takes the rows from a
run of the test command (ci/tests/test.sh): mainline's last default row
(series-mainline) and the row of each LTS base's Debian stage
(debian-<base>) where the newest test_zswap ran; NAME=ROW
adds the row of another run (v6.12's, from the main job). The table is a
figure of docs/tests.md (ci/timing/figures.py).
"""
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
OUT = os.path.join(TOP, 'docs', 'timing', 'test-zswap-bases.md')
RESULT = re.compile(r'^\s+(not ok|ok) \d+ (# SKIP )?(\S+)')


def cases(ktap):
    """(case, verdict, last message) of test_zswap's block of a KTAP file."""
    out, msg, inside = [], '', False
    with open(ktap, errors='replace') as f:
        for line in f:
            if line.startswith('# running test_zswap'):
                inside = True
                continue
            if not inside:
                continue
            if not line.startswith(' '):
                if re.match(r'(not ok|ok) \d+ test_zswap\b', line):
                    break
                continue
            m = RESULT.match(line)
            if m:
                verdict = 'FAIL' if m.group(1) == 'not ok' else \
                    'SKIP' if m.group(2) else 'ok'
                out.append((m.group(3), verdict, msg))
                msg = ''
                continue
            m = re.match(r'^\s+# (.*)', line)
            # The case's first message says why; later ones add detail.
            if m and not msg and not m.group(1).startswith(('Totals', 'TAP', '1..')):
                msg = m.group(1).strip()
    return out


def row_of(pattern):
    rows = sorted(glob.glob(pattern))
    if not rows:
        raise SystemExit(f'no row {pattern}')
    return rows[-1]


def row_with_test_zswap(run):
    """The last row of RUN whose boot ran test_zswap."""
    for row in sorted(glob.glob(f'{run}/*-*'), reverse=True):
        try:
            with open(os.path.join(row, 'ktap.txt'), errors='replace') as f:
                if '# running test_zswap' in f.read():
                    return row
        except OSError:
            pass
    raise SystemExit(f'{run}: no row ran test_zswap')


def kernel(row):
    """The kernel's version, from the row's console."""
    try:
        with open(os.path.join(row, 'console.log'), errors='replace') as f:
            for line in f:
                m = re.search(r'Linux version (\S+)', line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return '?'


def main(argv):
    args, named = argv[1:], []
    if args[:1] == ['--results'] and len(args) >= 2:
        res = args[1]
        args = args[2:]
        named.append(('mainline', row_of(f'{res}/series-mainline/*-default')))
        for d in sorted(glob.glob(f'{res}/debian-v*')):
            named.append((os.path.basename(d)[len('debian-'):],
                          row_with_test_zswap(d)))
    if not all('=' in a for a in args) or not named + args:
        print(__doc__.strip())
        return 2
    named += [tuple(a.split('=', 1)) for a in args]
    table, order = {}, []
    for name, row in named:
        got = cases(os.path.join(row, 'ktap.txt'))
        if not got:
            raise SystemExit(f'{row}: no test_zswap cases in ktap.txt')
        for case, verdict, msg in got:
            if case not in table:
                table[case] = {}
                order.append(case)
            cell = verdict if verdict == 'ok' or not msg else f'{verdict}: {msg}'
            table[case][name] = cell.replace('|', '/')
    head = '| case | ' + ' | '.join(
        f'{n} ({kernel(r)}, {os.path.basename(r)})' for n, r in named) + ' |'
    lines = [head, '| --- |' + ' --- |' * len(named)]
    for case in order:
        lines.append(f'| `{case}` | ' + ' | '.join(
            table[case].get(n, 'not run') for n, _ in named) + ' |')
    commit = subprocess.run(['git', '-C', TOP, 'rev-parse', '--short', 'HEAD'],
                            capture_output=True, text=True).stdout.strip()
    with open(OUT, 'w') as f:
        f.write(f'<!-- ci/timing/test-zswap-bases.py {" ".join(argv[1:])}; '
                f'commit {commit} -->\n')
        f.write('\n'.join(lines) + '\n')
    print('\n'.join(lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
