#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures of README.md and docs/, from their sources.

A figure in the text stands between markers that name it:

    <!--fig:NAME-->value<!--/fig-->

and NAME is one of the figures below, each read from what produces it:
a series file (patch counts), a must-catch file (faults), a script
(time limits), or a timing table of a real run kept in docs/timing/
(times; see docs/timing.md for how each was made).

  figures.py --check    exit 1 naming every figure whose text differs
  figures.py --write    rewrite the texts with the current values
  figures.py --list     print every figure's name and value
"""
import os
import re
import sys

# The repository: figures.py is in ci/timing/.
TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TEXTS = ['README.md'] + sorted(
    os.path.join('docs', f) for f in os.listdir(os.path.join(TOP, 'docs'))
    if f.endswith('.md')) if os.path.isdir(os.path.join(TOP, 'docs')) \
    else ['README.md']
MARK = re.compile(r'<!--fig:([a-z0-9.-]+)-->(.*?)<!--/fig-->', re.S)


def read(rel):
    with open(os.path.join(TOP, rel)) as f:
        return f.read()


def lines(rel):
    """The entries of a quilt series or must-catch file."""
    out = []
    for line in read(rel).splitlines():
        line = line.split('#', 1)[0].strip()
        if line:
            out.append(line)
    return out


def count(rel):
    return str(len(lines(rel)))


def minutes(rel):
    """A run's total from its timing table (ci/timing/timing.py's last total)."""
    path = os.path.join(TOP, rel)
    if not os.path.exists(path):
        return 'not measured yet'
    totals = re.findall(r'^\s*total\s+([0-9.]+)', read(rel), re.M)
    if not totals:
        raise SystemExit(f'{rel}: no "total" line')
    return f'{round(float(totals[-1]))} min'


def shell_default(rel, var):
    """VAR=value on an assignment line of a script."""
    m = re.search(r'(?:^|\s)' + var + r'=([0-9]+)', read(rel), re.M)
    if not m:
        raise SystemExit(f'{rel}: no {var}=N')
    return m.group(1)


def debug_limit():
    m = re.search(r'frags_debug\[@\]}"\) limit=([0-9]+)',
                  read('ci/jobs/run-series.sh'))
    if not m:
        raise SystemExit('ci/jobs/run-series.sh: no debug limit')
    return m.group(1)


def c_default(rel, pattern):
    """A default in a C file or script: the first group of PATTERN."""
    m = re.search(pattern, read(rel))
    if not m:
        raise SystemExit(f'{rel}: no match for {pattern}')
    return m.group(1)


def added_lines(series):
    """Lines a quilt series adds, '+' lines of its patches' diffs."""
    folder = os.path.dirname(series)
    n = 0
    for name in lines(series):
        for line in read(os.path.join(folder, name)).splitlines():
            if line.startswith('+') and not line.startswith('+++'):
                n += 1
    return str(n)


def kselftest_time(rel, label):
    """A binary's seconds on one kernel, from a table of kselftest-time.py."""
    for line in read(rel).splitlines():
        f = line.split('\t')
        if f[0] == label:
            return f'{f[1]} s' if f[1] != '-' else 'no time (the guest crashed)'
    raise SystemExit(f'{rel}: no line {label}')


def kselftest_failed(rel, label):
    """The cases that failed on one kernel, from the same table."""
    for line in read(rel).splitlines():
        f = line.split('\t')
        if f[0] == label:
            return ', '.join(f[6].split(',')) if len(f) > 6 else 'none (the guest crashed)'
    raise SystemExit(f'{rel}: no line {label}')


KS = 'docs/timing/kselftests.txt'


def kept_table(rel):
    """A table kept whole (its first line, a comment, names its source)."""
    path = os.path.join(TOP, rel)
    if not os.path.exists(path):
        return '\nnot measured yet\n'
    return '\n' + ''.join(read(rel).splitlines(True)[1:])


def flakes(rel, what):
    """From ci/jobs/repeat-boots.sh's flakes.txt: its boots, or the cases
    that failed (each with how many boots failed it)."""
    path = os.path.join(TOP, rel)
    if not os.path.exists(path):
        return 'not measured yet'
    rows = [line.split('\t') for line in read(rel).splitlines()
            if line and not line.startswith('#')]
    if what == 'boots':
        return str(len(rows))
    failed = {}
    for row in rows:
        for case in row[3].split(','):
            if case != '-':
                failed[case] = failed.get(case, 0) + 1
    failed.pop('test_zswap', None)
    if not failed:
        return 'none'
    return ', '.join(f'{c} ({n})' for c, n in sorted(failed.items()))

FIGURES = {
    'patches-mainline': lambda: count('patches/mainline/series'),
    'patches-selftests': lambda: count('patches/selftests-zswap/series'),
    'patches-v6.12': lambda: count('patches/v6.12/series'),
    'patches-v6.1': lambda: count('patches/v6.1/series'),
    'standins': lambda: count('patches/mm-stable/series'),
    'faults-mainline': lambda: count('ci/tests/faults/mainline/must-catch'),
    'faults-selftests': lambda: count('ci/tests/faults/selftests-zswap/must-catch'),
    'faults-v6.12': lambda: count('ci/tests/faults/v6.12/must-catch'),
    'faults-v6.1': lambda: count('ci/tests/faults/v6.1/must-catch'),
    'tests': lambda: count('selftests/tests.list'),
    'boot-limit': lambda: shell_default('ci/6-boot/boot.sh', 'limit'),
    'debug-limit': debug_limit,
    'stall-grace': lambda: shell_default('ci/6-boot/boot.sh', 'STALL_GRACE'),
    'boot-min-free': lambda: c_default('ci/6-boot/boot.sh',
                                       r'-ge \$\(\(([0-9]+) \* 1024\)\)'),
    'stress-short': lambda: c_default('ci/jobs/run-series.sh',
                                      r'ZSWAP_STRESS_SECONDS=([0-9]+)'),
    'stress-zswap': lambda: c_default('selftests/zswap/zswap_stress.c',
                                      r'"ZSWAP_STRESS_SECONDS", ([0-9]+)'),
    'stress-swapcg': lambda: c_default('selftests/memcg/swapcg_concurrent.c',
                                       r'"SWAPCG_SECONDS", ([0-9]+)'),
    'swapon-fail-mib': lambda: c_default('selftests/zswap/zswap_swapon_fail.c',
                                         r'#define SF_SWAP_MIB\s+([0-9]+)'),
    'selftests-added': lambda: added_lines('patches/selftests-zswap/series'),
    'tz-bases': lambda: kept_table('docs/timing/test-zswap-bases.md'),
    'flakes-stock-boots': lambda: flakes('docs/timing/kselftest-flakes-stock.txt', 'boots'),
    'flakes-stock-failed': lambda: flakes('docs/timing/kselftest-flakes-stock.txt', 'failed'),
    'flakes-boots': lambda: flakes('docs/timing/kselftest-flakes.txt', 'boots'),
    'flakes-failed': lambda: flakes('docs/timing/kselftest-flakes.txt', 'failed'),
    'kill-harness-lines': lambda: str(len(read('selftests/zswap/zswap_kselftest_kill.c').splitlines())),
    'tz-good': lambda: kselftest_time(KS, 'good'),
    'tz-leak-entry': lambda: kselftest_time(KS, 'leak-entry'),
    'tz-leak-entry-failed': lambda: kselftest_failed(KS, 'leak-entry'),
    'tz-range-skips-last': lambda: kselftest_time(KS, 'range-skips-last'),
    'tz-range-skips-last-failed': lambda: kselftest_failed(KS, 'range-skips-last'),
    'tz-lookup-misses-last': lambda: kselftest_time(KS, 'lookup-misses-last'),
    'tz-lookup-misses-last-failed': lambda: kselftest_failed(KS, 'lookup-misses-last'),
    'tz-single-not-erased': lambda: kselftest_time(KS, 'single-not-erased'),
    'tz-single-not-erased-failed': lambda: kselftest_failed(KS, 'single-not-erased'),
    'tz-before-leak-entry': lambda: kselftest_time(KS, 'before-leak-entry'),
    'test-cold': lambda: minutes('docs/timing/test-cold.txt'),
    'test-warm': lambda: minutes('docs/timing/test-warm.txt'),
    'main-cold': lambda: minutes('docs/timing/main-cold.txt'),
    'main-warm': lambda: minutes('docs/timing/main-warm.txt'),
}


def main(argv):
    mode = argv[1] if len(argv) == 2 else ''
    if mode not in ('--check', '--write', '--list'):
        print(__doc__.strip())
        return 0 if mode in ('-h', '--help') else 2
    values = {name: f() for name, f in FIGURES.items()}
    if mode == '--list':
        for name, value in values.items():
            print(f'{name}\t{value}')
        return 0
    bad = 0
    for rel in TEXTS:
        text = read(rel)

        def sub(m, rel=rel):
            nonlocal bad
            name, old = m.group(1), m.group(2)
            if name not in values:
                print(f'{rel}: unknown figure {name}')
                bad += 1
                return m.group(0)
            if old != values[name]:
                if mode == '--check':
                    print(f'{rel}: figure {name} says "{old}", '
                          f'its source says "{values[name]}"')
                    bad += 1
            return f'<!--fig:{name}-->{values[name]}<!--/fig-->'
        new = MARK.sub(sub, text)
        if mode == '--write' and new != text:
            with open(os.path.join(TOP, rel), 'w') as f:
                f.write(new)
            print(f'{rel}: written')
    if mode == '--check':
        n = sum(len(MARK.findall(read(rel))) for rel in TEXTS)
        print(f'{n} figures in {len(TEXTS)} texts, {bad} stale')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
