#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The JSON side of ci/upstream/mail.sh; run by it, not by hand.

Why this is not left to b4 alone: b4 prep keeps a series' state (its
change-id, revision, the Message-IDs of what was sent) in the cover commit
of a branch in the git repository it runs in. The series live here as
quilt folders, and every clone of this repository (CI's included) starts
without that branch: mail.sh enrolls the series as a b4 prep branch in a
scratch clone each run, and b4 writes and sends the mails. What must
outlive the scratch clone is those few fields, kept in b4.json and written
back into the cover commit's tracking data before b4 runs ("tracking"
below); b4 does everything else.

patches/<base>/b4.json keeps what b4 prep would keep in its branch, for
a branch that ci/upstream/mail.sh rebuilds every run in a scratch clone:

    {
      "change-id": "20261201-zswap-mainline-0123456789ab",
      "revision": 2,            # the revision the next mails are
      "sent": {
        "v1": {
          "message-id": "...",  # of the cover letter (or of the one patch)
          "commit": "...",      # a commit of this repository whose series
                                # folder holds v1 as it was mailed
          "series": "patches/mainline/series",
          ...
        }
      }
    }

Each run of ci/upstream/mail.sh also leaves DIR/series.json next to its
mails: the series, its revision and change-id, and the git blob id of every
file it
was made from (series file, cover-letter.txt, patches), which is how
"--mark-sent DIR" finds the commit holding the revision that was sent.

Subcommands (each prints what ci/upstream/mail.sh needs, or an error and
exits 1):
  state STATE                      shell assignments st_*
  tracking --change-id ID --revision N --prefixes P --history JSON
                                   stdin: b4's cover commit message;
                                   stdout: it with that tracking data
  tracking-msgid N                 stdin: cover commit message; stdout:
                                   the Message-ID b4 recorded for vN
  tracking-changeid                stdin: cover commit message; stdout:
                                   its change-id
  manifest OUT KEY=VALUE... -- FILE...
  find-commit MANIFEST             the commit holding the manifest's files
  export TOP COMMIT SERIES DEST    write the series at COMMIT into DEST
  record STATE MANIFEST MSGID COMMIT
  mark-sent DIR                    record the mails in DIR as sent
                                   (refused for this project's own
                                   series: --send alone records those)
  as-authored MAIL OUT             MAIL with its in-body From: as the
                                   From: header, for checkpatch
  from 'Name <addr>'               two lines: name, address
  deliverable ADDR                 exit 1 (saying why) if ADDR cannot
                                   receive replies
  sender --from 'Name <addr>'      two lines, name and address, if the
  sender NAME ADDR [FROM]          mails may be written as that identity
                                   (and From: FROM, sendemail.from);
                                   exit 2 (3 for FROM) saying why not: it
                                   cannot receive replies, or it is the
                                   placeholder author
  sign-off SENDER AUTHOR MSGFILE   make a commit the sender's to send:
                                   the placeholder author's becomes the
                                   sender's, the sender's Signed-off-by
                                   ends the chain; prints the author
  identities MAIL...               exit 2 if a mail names an identity
                                   that cannot receive replies, one line
                                   for each
"""
import datetime
import email
import email.policy
import email.utils
import hashlib
import inspect
import json
import os
import re
import subprocess
import sys

MAGIC_MARKER = '--- b4-submit-tracking ---'  # b4/ez.py


def die(msg):
    print(f'error: {msg}', file=sys.stderr)
    sys.exit(1)


def load_json(path, default=None):
    if not os.path.exists(path):
        return default
    try:
        with open(path, encoding='utf-8') as fh:
            return json.load(fh)
    except (OSError, ValueError) as ex:
        die(f'{path}: {ex}')


def save_json(path, data):
    tmp = path + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as fh:
        json.dump(data, fh, indent=2)
        fh.write('\n')
    os.replace(tmp, path)


def git(top, *args):
    res = subprocess.run(['git', '-C', top, *args], capture_output=True, text=True)
    if res.returncode:
        raise RuntimeError(f'git {" ".join(args)}: {res.stderr.strip()}')
    return res.stdout


def blob_id(path):
    with open(path, 'rb') as fh:
        data = fh.read()
    return hashlib.sha1(b'blob %d\0' % len(data) + data).hexdigest()


def repo_top(path):
    res = subprocess.run(['git', '-C', os.path.dirname(path), 'rev-parse', '--show-toplevel'],
                         capture_output=True, text=True)
    return os.path.realpath(res.stdout.strip()) if res.returncode == 0 else None


def last_sent(state):
    sent = (state or {}).get('sent', {})
    revs = sorted(int(k[1:]) for k in sent if re.fullmatch(r'v\d+', k))
    return (revs[-1], sent[f'v{revs[-1]}']) if revs else (None, None)


def cmd_state(path):
    state = load_json(path, {})
    rev, last = last_sent(state)
    history = {k: [v['message-id']]
               for k, v in state.get('sent', {}).items() if v.get('message-id')}
    out = {
        'st_exists': 'yes' if os.path.exists(path) else '',
        'st_change_id': state.get('change-id', ''),
        'st_revision': str(state.get('revision', 1)),
        'st_last': str(rev or ''),
        'st_last_msgid': (last or {}).get('message-id', ''),
        'st_last_commit': (last or {}).get('commit', ''),
        'st_last_series': (last or {}).get('series', ''),
        'st_history': json.dumps(history),
    }
    # NAME=VALUE lines, read by ci/lib.sh set_env: a value to the end of
    # its line.
    for k, v in out.items():
        assert '\n' not in v, k
        print(f'{k}={v}')


def split_cover(msg):
    if MAGIC_MARKER not in msg:
        die('the cover commit has no b4 tracking data')
    cover, magic = msg.split(MAGIC_MARKER, 1)
    return cover, json.loads('{' + magic.split('{', 1)[1])


def cmd_tracking(args):
    opts = dict(zip(args[0::2], args[1::2]))
    cover, tracking = split_cover(sys.stdin.read())
    series = tracking.setdefault('series', {})
    if opts.get('--change-id'):
        series['change-id'] = opts['--change-id']
    series['revision'] = int(opts['--revision'])
    series['prefixes'] = opts.get('--prefixes', '').split()
    history = json.loads(opts.get('--history') or '{}')
    if history:
        series['history'] = history
    # As b4's make_magic_json() writes it.
    sys.stdout.write(cover.rstrip('\n') + '\n\n' + MAGIC_MARKER + '\n'
                     '# This section is used internally by b4 prep for tracking purposes.\n'
                     + json.dumps(tracking, indent=2) + '\n')


def cmd_tracking_msgid(rev):
    _, tracking = split_cover(sys.stdin.read())
    links = tracking.get('series', {}).get('history', {}).get(f'v{rev}', [])
    if not links:
        die(f'b4 recorded no Message-ID for v{rev}')
    print(links[-1])


def cmd_tracking_changeid():
    _, tracking = split_cover(sys.stdin.read())
    print(tracking.get('series', {}).get('change-id', ''))


def cmd_manifest(args):
    out = args[0]
    sep = args.index('--')
    data = dict(a.split('=', 1) for a in args[1:sep])
    files = [os.path.realpath(f) for f in args[sep + 1:]]
    series = os.path.realpath(data['series'])
    top = repo_top(series)
    data['series'] = series
    data['top'] = top
    data['revision'] = int(data['revision'])
    data['prefixes'] = data.get('prefixes', '').split()
    data['files'] = {}
    for f in files:
        rel = os.path.relpath(f, top) if top else '..'
        key = f if rel.startswith('..') else rel
        data['files'][key] = blob_id(f)
    save_json(out, data)


def find_commit(man):
    top = man.get('top')
    if not top:
        die(f'{os.path.dirname(man["series"])} is not in a git repository: the revision cannot be '
            'recorded (b4.json names the commit that holds it)')
    want = man['files']
    if any(os.path.isabs(p) for p in want):
        outside = ', '.join(p for p in want if os.path.isabs(p))
        die(f'the series uses files outside the repository {top}: {outside}')
    try:
        commits = git(top, 'rev-list', '--max-count=1000', 'HEAD', '--', *want).split()
    except RuntimeError as ex:
        die(str(ex))
    for c in commits:
        have = {}
        for line in git(top, 'ls-tree', '-r', c, '--', *want).splitlines():
            meta, path = line.split('\t', 1)
            have[path] = meta.split()[2]
        if have == want:
            return c
    changed = []
    for p, blob in want.items():
        try:
            if git(top, 'rev-parse', f'HEAD:{p}').strip() != blob:
                changed.append(p)
        except RuntimeError:
            changed.append(p)
    die(f'no commit of {top} holds the series as it was mailed; commit it first '
        f'(differs from HEAD: {", ".join(changed) or "none"})')


def cmd_find_commit(path):
    print(find_commit(load_json(path)))


def cmd_export(top, commit, series_rel, dest):
    """Write the series file's patches and cover letter at COMMIT into DEST;
    print the patches' paths, in order."""
    folder = os.path.dirname(series_rel)
    try:
        text = git(top, 'show', f'{commit}:{series_rel}')
    except RuntimeError as ex:
        die(f'cannot read the sent revision: {ex}')
    os.makedirs(dest, exist_ok=True)
    paths = []
    for n, line in enumerate(text.splitlines()):
        entry = re.sub(r'#.*', '', line).strip()
        if not entry:
            continue
        # As ci/lib.sh load_series: beside the series file or under patches/.
        for cand in (os.path.normpath(os.path.join(folder, entry)),
                     os.path.join('patches', entry)):
            try:
                data = subprocess.run(['git', '-C', top, 'show', f'{commit}:{cand}'],
                                      capture_output=True, check=True).stdout
                break
            except subprocess.CalledProcessError:
                data = None
        if data is None:
            die(f'{commit}:{series_rel} names {entry}, which that commit does not hold')
        p = os.path.join(dest, f'{n:04d}-' + os.path.basename(entry))
        with open(p, 'wb') as fh:
            fh.write(data)
        paths.append(p)
    try:
        cover = git(top, 'show', f'{commit}:{os.path.join(folder, "cover-letter.txt")}')
    except RuntimeError:
        cover = ''
    with open(os.path.join(dest, 'cover-letter.txt'), 'w', encoding='utf-8') as fh:
        fh.write(cover)
    print('\n'.join(paths))


def record(state_path, man, msgid, commit):
    state = load_json(state_path, None)
    rev = man['revision']
    if state is None:
        state = {'change-id': man['change-id'], 'revision': rev, 'sent': {}}
    if state.get('change-id') != man['change-id']:
        die(f'the mails are of change-id {man["change-id"]}, '
            f'{state_path} is of {state.get("change-id")}')
    sent = state.setdefault('sent', {})
    prev = sent.get(f'v{rev}')
    if prev and prev.get('message-id') == msgid:
        print(f'v{rev} ({msgid}) is already recorded in {state_path}')
        return
    if rev != state.get('revision', 1):
        die(f'the mails are v{rev}, but {state_path} is at v{state.get("revision", 1)}'
            + (f' (v{rev} was recorded as sent already, as {prev.get("message-id")})'
               if prev else ''))
    top = man['top']
    sent[f'v{rev}'] = {
        'message-id': msgid,
        'commit': commit,
        'series': os.path.relpath(man['series'], top),
        'subject': man.get('subject', ''),
        'prefixes': man.get('prefixes', []),
        'upstream': man.get('upstream', ''),
        'base': man.get('base', ''),
        'from': man.get('from', ''),
        'date': datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'),
    }
    state['revision'] = rev + 1
    save_json(state_path, state)
    print(f'recorded v{rev} as sent in {state_path}: Message-ID {msgid}, commit {commit[:12]}; '
          f'the next mails are v{rev + 1}. Commit {os.path.basename(state_path)}.')


def read_cover(d, man):
    """The cover letter mail of a folder of mails, and its Message-ID."""
    eml = os.path.join(d, man['cover'])
    try:
        with open(eml, 'rb') as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
    except OSError as ex:
        die(f'cannot read the cover letter mail: {ex}')
    man['subject'] = ' '.join(str(msg.get('Subject', '')).split())
    return eml, (msg.get('Message-Id') or '').strip().strip('<>')


def cmd_record(state_path, man_path, msgid, commit):
    man = load_json(man_path)
    read_cover(os.path.dirname(man_path), man)
    record(state_path, man, msgid.strip('<>'), commit)


def written_as(d, man, msgid):
    """(what, identity, why) for each identity the mails of folder D were
    written as that cannot receive replies: the sender series.json names,
    the From: of each mail, the domain of the cover letter's Message-ID
    (b4 makes it from the sender's address)."""
    found = []
    if man.get('from'):
        found.append(('sender (series.json)', man['from']))
    for name in sorted(os.listdir(d)):
        if not name.endswith('.eml'):
            continue
        with open(os.path.join(d, name), 'rb') as fh:
            msg = email.message_from_binary_file(fh, policy=email.policy.default)
        for value in msg.get_all('From', []):
            found.append((f'{name}: From:', str(value)))
    bad = []
    seen = set()
    for what, ident in found:
        why = sender_problem(*split_ident(ident))
        if why and ident not in seen:
            seen.add(ident)
            bad.append((what, ident, why))
    domain = msgid.rpartition('@')[2]
    why = undeliverable(f'x@{domain}') if domain else None
    if why and not bad:
        bad.append(('the Message-ID', f'<{msgid}>', why))
    return bad


def cmd_mark_sent(d):
    man = load_json(os.path.join(d, 'series.json'))
    if man is None:
        die(f'{d} has no series.json: not a folder of mails written by ci/upstream/mail.sh')
    # This project's series are recorded as sent by --send alone, which
    # sends them: a mark-sent run of a test (or with a made-up sender)
    # once recorded a v1 that no list ever received.
    top = repo_top(man['state'])
    if top and os.path.exists(os.path.join(top, 'ci', 'upstream', 'mail.sh')):
        die(f'--mark-sent {d}: refusing: {man["state"]} is in {top}, a checkout of this '
            'project, whose series are recorded as sent only by ci/upstream/mail.sh --send, '
            'which sends them. Nothing was recorded.')
    eml, msgid = read_cover(d, man)
    if not msgid:
        die(f'{eml} has no Message-Id')
    bad = written_as(d, man, msgid)
    if bad:
        lines = ''.join(f'\n  {what} {ident}: {why}' for what, ident, why in bad)
        die(f'--mark-sent {d}: refusing to record these mails as sent: they were written '
            f'as {bad[0][1]}, an identity that cannot receive replies:{lines}\n'
            'Nothing was recorded. Write them again as yourself (ci/upstream/mail.sh --from '
            '\'Your Name <you@your.domain>\', or git config user.name and user.email '
            'of your own), send those, and mark them sent.')
    commit = find_commit(man)
    record(man['state'], man, msgid, commit)


def cmd_as_authored(src, dst):
    """A patch mail as git format-patch writes it: the in-body From: that
    b4 adds when the sender is not the author goes back to the header."""
    with open(src, 'rb') as fh:
        data = fh.read()
    head, sep, body = data.partition(b'\n\n')
    m = re.match(rb'From: [^\n]*\n\n', body)
    if m:
        author = body[:m.end() - 2]
        head = re.sub(rb'(?m)^From:.*(\n[ \t].*)*', lambda _: author, head, count=1)
        body = body[m.end():]
    with open(dst, 'wb') as fh:
        fh.write(head + sep + body)


def cmd_from(value):
    name, addr = email.utils.parseaddr(value)
    if not name or '@' not in addr:
        die(f'--from {value!r}: give it as \'Your Name <you@example.org>\'')
    print(name)
    print(addr)


RESERVED = ('example', 'invalid', 'test', 'localhost', 'local', 'localdomain')
RESERVED2 = ('example.com', 'example.net', 'example.org')


def undeliverable(addr):
    """Why ADDR cannot receive replies, or None."""
    if not addr:
        return 'no address is set'
    m = re.fullmatch(r'([^@\s]+)@([^@\s]+)', addr)
    if not m:
        return 'it is not an address (local@domain)'
    local, domain = m.group(1).lower(), m.group(2).lower().rstrip('.')
    labels = domain.split('.')
    why = []
    if labels[-1] in RESERVED or any(domain == d or domain.endswith('.' + d) for d in RESERVED2):
        why.append(f'{domain} is a reserved domain (RFC 2606/6761) that receives no mail')
    elif len(labels) < 2:
        why.append(f'{domain} is not a domain that mail can reach')
    if re.search(r'(^|[._+-])no-?reply($|[._+-])', local):
        why.append(f'"{m.group(1)}" is a no-reply mailbox')
    if 'noreply' in labels or 'no-reply' in labels:
        why.append(f'{domain} is a no-reply domain')
    return '; '.join(why) or None


def cmd_deliverable(addr):
    why = undeliverable(addr)
    if why:
        print(why)
        sys.exit(1)


# The author this repository gives its own patches, a placeholder that
# names no one: ci/upstream/mail.sh makes such a patch the sender's own work.
PLACEHOLDER = 'Seed c881d9f4 maintainers <maintainers@users.noreply.a-seed-c881d9f4.example>'
PLACEHOLDER_ADDR = email.utils.parseaddr(PLACEHOLDER)[1].lower()
# The tags by which the author vouches for the patch as its author.
AUTHOR_TAGS = ('signed-off-by', 'co-developed-by')
TAG_RE = re.compile(r'([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)')


def is_placeholder(ident):
    return email.utils.parseaddr(ident)[1].lower() == PLACEHOLDER_ADDR


def split_ident(ident):
    """(name, address) of 'Name <address>', the name as it is (a comma in
    it, as git config user.name may have, is no separator here)."""
    ident = ident.strip()
    if ident.endswith('>') and '<' in ident:
        at = ident.rindex('<')
        return ident[:at].strip().strip('"'), ident[at + 1:-1].strip()
    return email.utils.parseaddr(ident)


def sender_problem(name, addr):
    """Why the mails must not be written as NAME <ADDR>: the placeholder
    author (by its name or its address), or an address that cannot
    receive replies; None when they may."""
    why = undeliverable(addr)
    placeholder_name, placeholder_addr = email.utils.parseaddr(PLACEHOLDER)
    if addr.lower() == placeholder_addr.lower() or name.strip().lower() == placeholder_name.lower():
        return ("it is this repository's placeholder author, who is no one"
                + (f'; {why}' if why else ''))
    return why


def cmd_sender(*args):
    """sender --from VALUE, or sender NAME ADDR [SENDFROM]: exit 0
    printing the name and the address when the mails may be written as
    that sender (and From: SENDFROM, if given); else print why not and
    exit 2 (the sender) or 3 (SENDFROM)."""
    sendfrom = ''
    if len(args) == 2 and args[0] == '--from':
        name, addr = email.utils.parseaddr(args[1])
        if not name or '@' not in addr:
            print("it is not 'Your Name <you@your.domain>'")
            sys.exit(2)
    elif len(args) in (2, 3):
        name, addr = args[:2]
        sendfrom = args[2] if len(args) == 3 else ''
    else:
        die('sender: give --from VALUE, or NAME ADDR [SENDFROM]')
    why = sender_problem(name, addr)
    if why:
        print(why)
        sys.exit(2)
    why = sender_problem(*split_ident(sendfrom)) if sendfrom else None
    if why:
        print(why)
        sys.exit(3)
    print(name)
    print(addr)


def trailer_start(lines):
    """The index of the first line of the trailer block (the last
    paragraph, when every line is "Tag: value", a continuation, or a
    backporter's bracketed note, "[ ... ]", as stable backports carry
    between the upstream tags and their sign-off), or len(lines) when
    the message has none."""
    end = len(lines)
    start = end
    while start > 0 and lines[start - 1].strip():
        start -= 1
    if start == 0 or start == end:
        return end      # the subject alone, or no paragraph
    block = lines[start:end]
    if not TAG_RE.fullmatch(block[0]) or not all(
            TAG_RE.fullmatch(line) or line[:1] in (' ', '\t', '[') for line in block):
        return end
    return start


def cmd_sign_off(sender, author, msgfile):
    """Make a commit the sender's to send. A commit of the placeholder
    author becomes the sender's: its Signed-off-by and Co-developed-by
    lines of the placeholder name the sender. A commit of anyone else
    keeps its author and its chain of sign-offs. Either way the sender's
    Signed-off-by ends the chain (added unless it is last already, as
    git commit -s does). Rewrites MSGFILE; prints the author to commit."""
    name, addr = email.utils.parseaddr(sender)
    if not name or '@' not in addr:
        die(f'sign-off: {sender!r} is not "Name <address>"')
    sender = f'{name} <{addr}>'
    with open(msgfile, encoding='utf-8') as fh:
        lines = fh.read().rstrip('\n').split('\n')
    start = trailer_start(lines)
    own = f'Signed-off-by: {sender}'
    for i in range(start, len(lines)):
        m = TAG_RE.fullmatch(lines[i])
        if m and m.group(1).lower() in AUTHOR_TAGS and is_placeholder(m.group(2)):
            lines[i] = f'{m.group(1)}: {sender}'
    if start == len(lines):
        lines += ['', own]
    else:
        last = max(i for i in range(start, len(lines)) if TAG_RE.fullmatch(lines[i]))
        if lines[last] != own:
            lines.append(own)
    with open(msgfile, 'w', encoding='utf-8') as fh:
        fh.write('\n'.join(lines) + '\n')
    print(sender if is_placeholder(author) else author)


# Tags of a commit message that name a person: Signed-off-by and the
# other *-by tags, Cc and To (b4 mails each patch to its persons too).
PERSON_TAG_RE = re.compile(r'(?i)(?:[a-z0-9-]+-by|cc|to)')


def mail_identities(path):
    """(where, identity) for every person a mail names: its From, To, Cc,
    Reply-To and Sender headers, the in-body From: b4 writes for a patch
    of someone else, and the person tags of the message (the text above
    its first "---" line)."""
    with open(path, 'rb') as fh:
        msg = email.message_from_binary_file(fh, policy=email.policy.default)
    found = []
    for field in ('From', 'To', 'Cc', 'Reply-To', 'Sender'):
        for value in msg.get_all(field, []):
            for pair in email.utils.getaddresses([str(value)]):
                if pair[1]:
                    found.append((f'{field}:', email.utils.formataddr(pair)))
    part = msg.get_body(('plain',)) if msg.is_multipart() else msg
    body = part.get_content() if part is not None else ''
    lines = body.split('\n')
    first = 0
    while first < len(lines) and TAG_RE.fullmatch(lines[first]) and \
            lines[first].split(':', 1)[0] in ('From', 'Subject', 'Date'):
        m = TAG_RE.fullmatch(lines[first])
        if m.group(1) == 'From':
            found.append(('in-body From:', m.group(2).strip()))
        first += 1
    for line in lines[first:]:
        if line.rstrip() == '---':
            break
        m = TAG_RE.fullmatch(line)
        if m and PERSON_TAG_RE.fullmatch(m.group(1)):
            for pair in email.utils.getaddresses([m.group(2)]):
                if pair[1]:
                    found.append((f'{m.group(1)}:', email.utils.formataddr(pair)))
    if PLACEHOLDER_ADDR in body.lower() and not any(is_placeholder(i) for _, i in found):
        found.append(('text:', PLACEHOLDER))
    return found


def cmd_identities(*mails):
    """Exit 2 when a mail names an identity that cannot receive replies
    (the placeholder author among them), printing one line for each:
    MAIL: WHERE IDENTITY: WHY."""
    bad = 0
    for path in mails:
        seen = set()
        for where, ident in mail_identities(path):
            if (where, ident) in seen:
                continue
            seen.add((where, ident))
            addr = email.utils.parseaddr(ident)[1]
            why = undeliverable(addr)
            if is_placeholder(ident):
                why = 'the placeholder author of this repository' + (f'; {why}' if why else '')
            if why:
                print(f'{os.path.basename(path)}: {where} {ident}: {why}')
                bad += 1
    if bad:
        sys.exit(2)


def main(argv):
    if not argv:
        die('usage: b4state.py SUBCOMMAND ... (see the header of this file)')
    cmd, args = argv[0], argv[1:]
    table = {
        'state': cmd_state,
        'tracking-msgid': cmd_tracking_msgid,
        'tracking-changeid': cmd_tracking_changeid,
        'find-commit': cmd_find_commit,
        'export': cmd_export,
        'record': cmd_record,
        'mark-sent': cmd_mark_sent,
        'from': cmd_from,
        'as-authored': cmd_as_authored,
        'deliverable': cmd_deliverable,
        'sender': cmd_sender,
        'sign-off': cmd_sign_off,
    }
    if cmd == 'tracking':
        return cmd_tracking(args)
    if cmd == 'manifest':
        return cmd_manifest(args)
    if cmd == 'identities':
        return cmd_identities(*args)
    if cmd not in table:
        die(f'unknown subcommand {cmd}')
    try:
        inspect.signature(table[cmd]).bind(*args)
    except TypeError:
        die(f'{cmd}: wrong arguments (see the header of {sys.argv[0]})')
    table[cmd](*args)


if __name__ == '__main__':
    main(sys.argv[1:])
