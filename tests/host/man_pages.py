#!/usr/bin/env python3
# The man pages against what they describe, so that they cannot drift:
# - a tool's page lists in OPTIONS every option its --help lists and no
#   other; each option's text holds the numbers of its --help text and the
#   words --help gives as its default ("'X' (default", "X (default)",
#   "default X", "default 'X Y'"); every name --help lists (VM runtimes,
#   output formats) is there;
# - libvmstack(3) names every key and word the descriptor parser takes
#   (user/vm/text.c);
# - man --warnings renders each page without a warning.
# Prints "PASS man:PAGE" or "FAIL man:PAGE" per page, with "# " lines
# saying why.
# Usage: tests/host/man_pages.py BUILD_DIR MAN_DIR
import os, re, subprocess, sys

TOOLS = {
    'vmstack.8': 'vmstack',
    'vmstack-record.1': 'vmstack-record',
    'vmstack-report.1': 'vmstack-report',
    'vmstack-flamegraph.1': 'vmstack-flamegraph',
}
PAGES = sorted(TOOLS) + ['libvmstack.3']
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def warnings(path):
    r = subprocess.run(['man', '--warnings', '-l', path], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode or r.stderr.strip():
        return ['man --warnings: ' + (r.stderr.strip() or 'exit %d' % r.returncode)]
    return []


def render(path):
    # One line per paragraph, plain ASCII: nothing is hyphenated or wrapped.
    env = dict(os.environ, MANWIDTH='10000')
    return subprocess.run(['man', '-E', 'ascii', '-l', path], env=env, check=True,
                          capture_output=True, text=True).stdout


def help_of(tool):
    """The options (name: text, the argument first) and the listed names."""
    text = subprocess.run([tool, '--help'], check=True, capture_output=True,
                          text=True).stdout
    opts, names, cur = {}, set(), None
    for line in text.splitlines():
        m = re.match(r'(?:  -\w, |      )--([a-z][\w-]*)(.*)$', line)
        if m:
            cur = m[1]
            opts[cur] = m[2]
            continue
        if cur and line.startswith(' ' * 24):
            opts[cur] += ' ' + line.strip()
            continue
        cur = None
        m = re.match(r'  (\S+) {2,}\S', line)
        if m:
            names.add(m[1])
    return opts, names


def page_options(text):
    """The OPTIONS section's items: name -> the item's text."""
    opts, cur, inside = {}, None, False
    for line in text.splitlines():
        if line and not line[0].isspace():
            inside = line.strip() == 'OPTIONS'
            cur = None
            continue
        if not inside:
            continue
        m = re.match(r' {7}(?:-\w, )?--([a-z][\w-]*)', line)
        if m:
            cur = m[1]
            opts[cur] = line
        elif cur and line.startswith(' ' * 14):
            opts[cur] += ' ' + line.strip()
    return opts


def defaults(text):
    """What a --help text says of an option's default: numbers and words."""
    # A version ("4.5") is one number: its '5' alone is no default.
    got = set(re.findall(r'(?<![\w.])\d+(?:\.\d+)*(?!\w|\.\d)', text))
    got |= set(re.findall(r"default:? '([^']+)'", text))
    got |= set(re.findall(r"default:? ([\w.-]+)", text))
    got |= set(re.findall(r"'([\w.-]+)' \(default", text))
    got |= set(re.findall(r"([\w.-]+) \(default\)", text))
    return got


def has(text, word):
    return re.search(r'(?<![\w.-])' + re.escape(word) + r'(?![\w-])', text, re.I)


def check_tool(build, tool, text):
    why = []
    opts, names = help_of(os.path.join(build, tool))
    page = page_options(text)
    for name, said in opts.items():
        if name not in page:
            why.append('--%s is in --help, not in the page' % name)
            continue
        for word in sorted(defaults(said)):
            if not has(page[name], word):
                why.append("--%s: --help says '%s', the page does not" % (name, word))
    why += ['--%s is in the page, not in --help' % n for n in page if n not in opts]
    why += ["'%s' is listed by --help, not in the page" % n for n in sorted(names)
            if not has(text, n)]
    return why


def check_library(text):
    src = open(os.path.join(REPO, 'user/vm/text.c')).read()
    words = re.findall(r'\bF\((\w+), [01]\)', src)
    words += re.findall(r'\{ "(\w+)", "\w+" \}', src)     # renamed keys
    words += re.findall(r'\{ "(\w+)", VMSTACK_VM_', src)  # states, links, regs, flags
    if len(words) < 60:
        return ['user/vm/text.c: only %d keys and words found' % len(words)]
    return ["'%s' (user/vm/text.c) is not in the page" % w for w in words
            if not has(text, w)]


def main():
    build, mandir = sys.argv[1], sys.argv[2]
    failed = 0
    for page in PAGES:
        path = os.path.join(mandir, page)
        if not os.path.exists(path):
            why = ['missing']
        else:
            text = render(path)
            why = warnings(path)
            why += check_tool(build, TOOLS[page], text) if page in TOOLS else \
                check_library(text)
        for w in why:
            print('# %s: %s' % (page, w))
        print('%s man:%s' % ('FAIL' if why else 'PASS', page))
        failed += bool(why)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
