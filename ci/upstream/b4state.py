#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What ci/upstream/mail.sh needs beside b4, which keeps the series' state
(patches/<series>/b4-cover, its cover commit); run by mail.sh:
  sender NAME ADDR [FROM] | sender --from VALUE: the name and the address
      if the mails may be written as that sender (and From: FROM), else
      why not and exit 2 (3: FROM)
  identities MAIL...: a line for each identity a mail names that cannot
      receive replies (the placeholder author too), exit 2 if any
  as-authored MAIL OUT: MAIL with b4's in-body From: as From:, for checkpatch
  tracking COVER: b4's tracking data in a cover commit message:
      b4_revision, b4_change_id, b4_last (sent last), b4_last_msgid
  unrecordable DIR: why the mails of DIR must not be recorded as sent
"""
import email.policy
import email.utils
import json
import os
import re
import sys

# The author this repository gives its own patches; it names no one.
PLACEHOLDER = 'Seed c881d9f4 maintainers <maintainers@users.noreply.a-seed-c881d9f4.example>'
P_NAME, P_ADDR = email.utils.parseaddr(PLACEHOLDER)
RESERVED = ('example', 'invalid', 'test', 'localhost', 'local', 'localdomain')
# Tags that name a person: *-by, Cc, To (b4 mails a patch's persons too).
PERSON = re.compile(r'(?i)([a-z0-9-]+-by|cc|to):[ \t]*(.*)')


# Why ADDR cannot receive replies, or None.
def undeliverable(addr):
    m = re.fullmatch(r'([^@\s]+)@([^@\s]+)', addr or '')
    if not m:
        return 'it is not an address (local@domain)'
    local, domain = m.group(1).lower(), m.group(2).lower().rstrip('.')
    labels, why = domain.split('.'), []
    if labels[-1] in RESERVED or re.search(r'(^|\.)example\.(com|net|org)$', domain):
        why.append(f'{domain} is a reserved domain (RFC 2606/6761) that receives no mail')
    elif len(labels) < 2:
        why.append(f'{domain} is not a domain that mail can reach')
    if re.search(r'(^|[._+-])no-?reply($|[._+-])', local):
        why.append(f'"{m.group(1)}" is a no-reply mailbox')
    if 'noreply' in labels or 'no-reply' in labels:
        why.append(f'{domain} is a no-reply domain')
    return '; '.join(why) or None


def split_ident(ident):
    """(name, address) of 'Name <address>', a comma in the name kept."""
    m = re.fullmatch(r'\s*"?(.*?)"?\s*<([^<>]*)>\s*', ident)
    return (m.group(1), m.group(2).strip()) if m else email.utils.parseaddr(ident)


# Why the mails must not be written as NAME <ADDR>, or None.
def problem(name, addr):
    why = undeliverable(addr)
    if addr.lower() == P_ADDR or name.strip().lower() == P_NAME.lower():
        return "it is this repository's placeholder author, who is no one" + (f'; {why}' if why else '')
    return why


def cmd_sender(*args):
    name, addr, sendfrom = (args + ('',))[:3]
    if args[:1] == ('--from',):
        (name, addr), sendfrom = email.utils.parseaddr(args[1]), ''
        if not name or '@' not in addr:
            sys.exit(print("it is not 'Your Name <you@your.domain>'") or 2)
    for why, rc in ((problem(name, addr), 2), (sendfrom and problem(*split_ident(sendfrom)), 3)):
        if why:
            sys.exit(print(why) or rc)
    print(name + '\n' + addr)


def read(path):
    return email.message_from_bytes(open(path, 'rb').read(), policy=email.policy.default)


# (where, identity) for each person a mail names: headers, in-body From:,
# the person tags above its first "---".
def identities(path):
    msg = read(path)
    found = [(f'{f}:', email.utils.formataddr(p)) for f in ('From', 'To', 'Cc', 'Reply-To', 'Sender')
             for p in email.utils.getaddresses([str(v) for v in msg.get_all(f, [])]) if p[1]]
    part = msg.get_body(('plain',)) if msg.is_multipart() else msg
    body = part.get_content() if part is not None else ''
    m = re.match(r'From:[ \t]*(.*)\n', body)
    if m:
        found.append(('in-body From:', m.group(1).strip()))
    for line in body.split('\n---\n')[0].split('\n'):
        m = PERSON.fullmatch(line)
        if m:
            found += [(f'{m.group(1)}:', email.utils.formataddr(p))
                      for p in email.utils.getaddresses([m.group(2)]) if p[1]]
    if P_ADDR in body.lower() and not any(P_ADDR in i.lower() for _, i in found):
        found.append(('text:', PLACEHOLDER))
    return found


def cmd_identities(*mails):
    bad = [f'{os.path.basename(p)}: {where} {ident}: {problem(*split_ident(ident))}'
           for p in mails for where, ident in dict.fromkeys(identities(p)) if problem(*split_ident(ident))]
    sys.exit(print('\n'.join(bad)) or 2 if bad else 0)


def cmd_as_authored(src, dst):
    with open(src, 'rb') as fh:
        head, sep, body = fh.read().partition(b'\n\n')
    m = re.match(rb'From: [^\n]*\n\n', body)
    if m:
        head = re.sub(rb'(?m)^From:.*(\n[ \t].*)*', lambda _: body[:m.end() - 2], head, count=1)
        body = body[m.end():]
    with open(dst, 'wb') as fh:
        fh.write(head + sep + body)


def cmd_tracking(path):
    # As b4 reads it (b4/ez.py load_cover): the JSON after its marker.
    text = open(path, encoding='utf-8').read().split('--- b4-submit-tracking ---')[1]
    series = json.loads('{' + text.split('{', 1)[1])['series']
    sent = sorted((int(k[1:]), v[-1]) for k, v in series.get('history', {}).items() if v)
    last, msgid = sent[-1] if sent else ('', '')
    print(f"b4_revision={series['revision']}\nb4_change_id={series['change-id']}\n"
          f"b4_last={last}\nb4_last_msgid={msgid}")


def cmd_unrecordable(d):
    man = json.load(open(os.path.join(d, 'series.json'), encoding='utf-8'))
    names = sorted(n for n in os.listdir(d) if n.endswith('.eml'))
    msgid = str(read(os.path.join(d, man['cover'])).get('Message-Id', '')).strip()
    found = {}
    for what, ident in [('sender (series.json)', man['from'])] + [
            (f'{n}: From:', str(v)) for n in names for v in read(os.path.join(d, n)).get_all('From', [])
            ] + [('the Message-ID', msgid)]:
        why = problem(*split_ident(ident))
        if why:
            found.setdefault(ident, f'\n  {what} {ident}: {why}')
    if found:
        sys.exit(print(f'refusing to record these mails as sent: they were written as '
                       f'{next(iter(found))}, an identity that cannot receive replies:'
                       + ''.join(found.values())) or 2)


def main(cmd='', *args):
    globals().get('cmd_' + cmd.replace('-', '_'), lambda *_: sys.exit('usage: see the header'))(*args)


if __name__ == '__main__':
    main(*sys.argv[1:])
