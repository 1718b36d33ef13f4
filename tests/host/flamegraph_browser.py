#!/usr/bin/env python3
# The flame graph in a real browser: vmstack-flamegraph draws collapsed
# stacks whose call tree is known, headless Chromium loads the SVG and the
# test uses it as a person would, through the DevTools protocol over
# --remote-debugging-pipe (fd 3 takes commands, fd 4 gives replies, each
# message JSON ended by a NUL: no websocket, standard library only):
# real mouse clicks and moves (Input.dispatchMouseEvent) at the boxes'
# coordinates, the Search control's prompt() answered as a dialog.
# Usage: flamegraph_browser.py FLAMEGRAPH [RESULTS_DIR]
#   FLAMEGRAPH   the vmstack-flamegraph binary
#   RESULTS_DIR  where the screenshots go (default build/test-results)
# Prints "PASS flamegraph:NAME" or "FAIL flamegraph:NAME" per check, with
# "# " lines saying why; every wait has a time limit, and Chromium is
# killed at the end whatever happened.
import base64, fcntl, json, os, re, select, shutil, signal, subprocess, sys, tempfile, time
import xml.etree.ElementTree as ET

# z is 12 px wide, too narrow for a label until zoomed.
FOLDED = """main;a;x 59
main;a;x;z 1
main;a;y 20
main;b;run_[vm];trace_1_[j] 10
main;b;sys_read_[k] 10
"""
TOTAL = 100
# Each frame's samples, root first (the normal graph) ...
COUNTS = {'main': 100, 'a': 80, 'x': 60, 'y': 20, 'b': 20, 'run_[vm]': 10,
          'trace_1_[j]': 10, 'sys_read_[k]': 10, 'z': 1}
# ... and leaf first (--inverted): (row, name, samples), row 0 on top;
# a is a box under x and another under y.
INVERTED = sorted([(0, 'x', 59), (0, 'y', 20), (0, 'trace_1_[j]', 10), (0, 'sys_read_[k]', 10),
                   (0, 'z', 1), (1, 'a', 59), (1, 'a', 20), (1, 'run_[vm]', 10), (1, 'b', 10),
                   (1, 'x', 1), (2, 'main', 59), (2, 'main', 20), (2, 'b', 10), (2, 'main', 10),
                   (2, 'a', 1), (3, 'main', 10), (3, 'main', 1)])
WIDTH = 1200.0          # user/output/svg.c's WIDTH: the boxes' full width
SVGNS = '{http://www.w3.org/2000/svg}'
TIMEOUT = 20            # seconds for any one reply or event
failures = 0


def result(name, why):
    global failures
    if why:
        failures += 1
        for line in str(why).splitlines():
            print('# ' + line)
    print('%s flamegraph:%s' % ('FAIL' if why else 'PASS', name))
    sys.stdout.flush()


def near(a, b, eps=0.15):
    return abs(a - b) <= eps


class Browser:
    """Headless Chromium and one page, over the DevTools pipe."""

    def __init__(self, tmp):
        exe = next((shutil.which(n) for n in ('chromium', 'chromium-browser',
                                              'google-chrome') if shutil.which(n)), None)
        if not exe:
            raise RuntimeError('no chromium (scripts/setup installs Debian\'s chromium)')
        cmd_r, self.cmd_w = os.pipe()
        self.resp_r, resp_w = os.pipe()
        # Away from 3 and 4, so that the shell's renumbering cannot clobber
        # one with the other.
        hi_r = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(resp_w, fcntl.F_DUPFD, 10)
        os.close(cmd_r)
        os.close(resp_w)
        self.log = open(os.path.join(tmp, 'chromium.log'), 'w+')
        args = [exe, '--headless=new', '--no-sandbox', '--disable-gpu',
                '--remote-debugging-pipe', '--user-data-dir=' + os.path.join(tmp, 'profile'),
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--mute-audio', '--hide-scrollbars', 'about:blank']
        self.proc = subprocess.Popen(
            ['bash', '-c', 'exec "$@" 3<&%d 4>&%d %d<&- %d>&-' % (hi_r, hi_w, hi_r, hi_w),
             'bash'] + args, pass_fds=(hi_r, hi_w), stdin=subprocess.DEVNULL,
            stdout=self.log, stderr=self.log, start_new_session=True)
        os.close(hi_r)
        os.close(hi_w)
        self.buf, self.next_id, self.events, self.session = b'', 0, [], None
        self.on_event = None

    def open_page(self):
        target = self.call('Target.createTarget', url='about:blank')['targetId']
        self.session = self.call('Target.attachToTarget', targetId=target,
                                 flatten=True)['sessionId']
        self.call('Page.enable')

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=TIMEOUT)
        for fd in (self.cmd_w, self.resp_r):
            os.close(fd)
        self.log.close()

    def log_tail(self):
        self.log.seek(0)
        return ''.join(self.log.readlines()[-10:])

    def _read(self, deadline):
        """The next message, within @deadline."""
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.resp_r], [], [], left)[0]:
                raise RuntimeError('Chromium did not answer within %d s' % TIMEOUT)
            chunk = os.read(self.resp_r, 1 << 16)
            if not chunk:
                raise RuntimeError('Chromium closed its pipe (exit %s): %s' %
                                   (self.proc.poll(), self.log_tail()))
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def send(self, method, **params):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params}
        if self.session:
            msg['sessionId'] = self.session
        data = json.dumps(msg).encode() + b'\0'
        while data:
            data = data[os.write(self.cmd_w, data):]
        return self.next_id

    def call(self, method, **params):
        """@method's result; events meanwhile are kept, or given to
        on_event (which may send commands of its own)."""
        want = self.send(method, **params)
        deadline = time.monotonic() + TIMEOUT
        while True:
            msg = self._read(deadline)
            if msg.get('id') == want:
                if 'error' in msg:
                    raise RuntimeError('%s: %s' % (method, msg['error'].get('message')))
                return msg['result']
            if 'method' in msg and not (self.on_event and self.on_event(msg)):
                self.events.append(msg)

    def wait_event(self, method):
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, e in enumerate(self.events):
                if e['method'] == method:
                    return self.events.pop(i)
            msg = self._read(deadline)
            if 'method' in msg:
                self.events.append(msg)

    def load(self, path):
        self.events = []
        self.call('Page.navigate', url='file://' + os.path.abspath(path))
        self.wait_event('Page.loadEventFired')
        w, h = self.js('[document.documentElement.width.baseVal.value,'
                       ' document.documentElement.height.baseVal.value]')
        # The whole picture in the viewport, one CSS pixel a unit.
        self.call('Emulation.setDeviceMetricsOverride', width=int(w), height=int(h),
                  deviceScaleFactor=1, mobile=False)

    def js(self, expr):
        r = self.call('Runtime.evaluate', expression=expr, returnByValue=True)
        if 'exceptionDetails' in r:
            raise RuntimeError('%s: %s' % (expr, r['exceptionDetails']))
        return r['result'].get('value')

    def mouse(self, kind, x, y):
        extra = {'button': 'left', 'clickCount': 1} if kind != 'mouseMoved' else {}
        self.call('Input.dispatchMouseEvent', type=kind, x=x, y=y, **extra)

    def click(self, x, y):
        self.mouse('mouseMoved', x, y)
        self.mouse('mousePressed', x, y)
        self.mouse('mouseReleased', x, y)

    def screenshot(self, path):
        png = base64.b64decode(self.call('Page.captureScreenshot', format='png')['data'])
        with open(path, 'wb') as f:
            f.write(png)
        return png


# Each frame box as the browser lays it out: name, data-*, its rect's
# attributes and client box, whether it is shown, its classes and fill.
BOXES_JS = r"""
Array.prototype.map.call(document.querySelectorAll('#frames g.f'), function (g) {
	var r = g.querySelector('rect'), b = r.getBoundingClientRect();
	return { name: g.getAttribute('data-name'), n: +g.getAttribute('data-n'),
		 d: +g.getAttribute('data-d'), x: +r.getAttribute('x'),
		 y: +r.getAttribute('y'), w: +r.getAttribute('width'),
		 cx: b.left + b.width / 2, cy: b.top + b.height / 2, cw: b.width,
		 shown: getComputedStyle(g).display != 'none', cls: g.getAttribute('class'),
		 fill: getComputedStyle(r).fill, own: r.getAttribute('fill'), tip: g.querySelector('title').textContent,
		 label: (g.querySelector('text') || {}).textContent };
})
"""


def boxes(b):
    return b.js(BOXES_JS)


def by_name(bx, name):
    """The first box of @name, in document order (a caller's before its callees')."""
    return next(f for f in bx if f['name'] == name)


def center_of(b, elem_id):
    return b.js('(function (r) { return [r.left + r.width / 2, r.top + r.height / 2]; })'
                '(document.getElementById("%s").getBoundingClientRect())' % elem_id)


def check_static(svg):
    """Without a script: valid XML, every box drawn at full view."""
    root = ET.parse(svg).getroot()
    frames = root.find(".//%sg[@id='frames']" % SVGNS)
    seen = {}
    for g in frames.iter(SVGNS + 'g'):
        if g.get('class') != 'f':
            continue
        rect = g.find(SVGNS + 'rect')
        n = int(g.get('data-n'))
        seen[g.get('data-name')] = n
        if not near(float(rect.get('width')), n * WIDTH / TOTAL):
            return '%s: width %s for %d samples' % (g.get('data-name'), rect.get('width'), n)
    if seen != COUNTS:
        return 'frames %s, want %s' % (seen, COUNTS)
    if root.find('%sscript' % SVGNS) is None:
        return 'no script'
    return None


def check_widths(b):
    bx = boxes(b)
    for name, n in COUNTS.items():
        f = by_name(bx, name)
        if f['n'] != n or not near(f['cw'], n * WIDTH / TOTAL) or not f['shown']:
            return '%s: %d samples, %.1f px wide (want %d, %.1f)' % (
                name, f['n'], f['cw'], n, n * WIDTH / TOTAL)
    return None


def class_of(fill):
    r, g, b = map(int, re.findall(r'\d+', fill)[:3])
    if r >= 220:
        return 'native'
    if b == 230:
        return 'kernel'
    if r < 40 and g >= 170 and b >= 170:
        return 'jit'
    return 'vm' if g > r and g > b else '?'


def check_colours(b):
    want = {'main': 'native', 'a': 'native', 'sys_read_[k]': 'kernel',
            'run_[vm]': 'vm', 'trace_1_[j]': 'jit'}
    bx = boxes(b)
    got = {n: class_of(by_name(bx, n)['fill']) for n in want}
    if got != want:
        return 'colour classes %s, want %s' % (got, want)
    legend = b.js("Array.prototype.map.call(document.querySelectorAll('#legend text'),"
                  " function (t) { return t.textContent; })")
    if [t.split()[0] for t in legend] != ['native', 'kernel', 'VM', 'JIT']:
        return 'legend %s' % legend
    return None


def check_zoom(b, results):
    a = by_name(boxes(b), 'a')
    b.click(a['cx'], a['cy'])
    bx = boxes(b)
    want = {'a': (0, WIDTH), 'x': (0, WIDTH * 60 / 80), 'y': (WIDTH * 60 / 80, WIDTH * 20 / 80),
            'main': (0, WIDTH)}
    for name, (x, w) in want.items():
        f = by_name(bx, name)
        if not f['shown'] or not near(f['x'] - 10, x) or not near(f['cw'], w):
            return 'zoomed on a: %s at %.1f, %.1f px wide (want %.1f, %.1f)' % (
                name, f['x'] - 10, f['cw'], x, w)
    if 'anc' not in by_name(bx, 'main')['cls'] or 'anc' in by_name(bx, 'a')['cls']:
        return 'the caller main is not greyed (classes %s)' % by_name(bx, 'main')['cls']
    for name in ('b', 'run_[vm]', 'trace_1_[j]', 'sys_read_[k]'):
        if by_name(bx, name)['shown']:
            return 'zoomed on a: %s still shown' % name
    if by_name(bx, 'y').get('label') != 'y':
        return 'label of y: %r' % by_name(bx, 'y').get('label')
    if by_name(bx, 'z').get('label') is not None:
        return 'z, 15 px wide, labelled %r' % by_name(bx, 'z').get('label')
    b.screenshot(os.path.join(results, 'flamegraph-zoomed.png'))
    # Zoom on a zoomed graph's frame too; z gets the label it lacked.
    z = by_name(bx, 'z')
    b.click(z['cx'], z['cy'])
    z = by_name(boxes(b), 'z')
    if not near(z['cw'], WIDTH) or z.get('label') != 'z':
        return 'zoomed on z: %.1f px wide, labelled %r' % (z['cw'], z.get('label'))
    # Reset zoom, by its control: the full view again, the control gone.
    b.click(*center_of(b, 'reset'))
    why = check_widths(b)
    if why:
        return 'after Reset zoom: ' + why
    if b.js('getComputedStyle(document.getElementById("reset")).display') != 'none':
        return 'Reset zoom still shown in the full view'
    return None


def search(b, text):
    """Click Search and answer its prompt with @text: the matched line."""
    asked = []

    def answer(msg):
        if msg['method'] != 'Page.javascriptDialogOpening':
            return False
        asked.append(msg['params'].get('type'))
        b.send('Page.handleJavaScriptDialog', accept=True, promptText=text)
        return True
    b.on_event = answer
    try:
        b.click(*center_of(b, 'search'))
        # The dialog may open after the click's reply: a round trip more.
        b.js('1')
    finally:
        b.on_event = None
    if asked != ['prompt']:
        raise RuntimeError('Search opened %s, not one prompt' % asked)
    return b.js('document.getElementById("matched").textContent')


def check_search(b):
    # a holds x: 80% however many matches nest; run_[vm] holds trace_1_[j].
    for query, want, hits in (('^(a|x)$', 'Matched: 80.0%', {'a', 'x'}),
                              (r'_\[(k|vm|j)\]$', 'Matched: 20.0%',
                               {'run_[vm]', 'trace_1_[j]', 'sys_read_[k]'}),
                              ('^b$', 'Matched: 20.0%', {'b'})):
        got = search(b, query)
        bx = boxes(b)
        lit = {f['name'] for f in bx if 'hit' in f['cls'].split()}
        if got != want or lit != hits:
            return 'search %r: %r, highlighted %s (want %r, %s)' % (query, got, sorted(lit),
                                                                    want, sorted(hits))
        for f in bx:
            if (f['name'] in hits) != (f['fill'].replace(' ', '') != f['own']):
                return 'search %r: %s is %s, its own colour %s' % (query, f['name'],
                                                                 f['fill'], f['own'])
    if search(b, '') != '' or any('hit' in f['cls'].split() for f in boxes(b)):
        return 'an empty search did not clear the highlights'
    return None


def check_tooltip(b):
    x = by_name(boxes(b), 'x')
    if x['tip'] != 'x (60 samples, 60.00%)':
        return 'tooltip of x: %r' % x['tip']
    b.mouse('mouseMoved', x['cx'], x['cy'])
    details = b.js('document.getElementById("details").textContent')
    if details != x['tip']:
        return 'details line on x: %r' % details
    return None


def check_inverted(b):
    bx = boxes(b)
    got = sorted((f['d'], f['name'], f['n']) for f in bx)
    if got != INVERTED:
        return 'frames %s, want %s' % (got, INVERTED)
    # Rows top down; x on the top row at 59% (1% more is under z), its
    # caller a right below it.
    rows = sorted({f['y'] for f in bx})
    x, a = by_name(bx, 'x'), by_name(bx, 'a')
    if x['y'] != rows[0] or x['cx'] != a['cx'] or a['y'] != rows[1]:
        return 'x at y %.0f, a at %.0f, %.0f (rows at %s)' % (x['y'], a['y'], a['cx'], rows)
    if not near(x['cw'], WIDTH * 0.59) or not near(a['cw'], WIDTH * 0.59):
        return 'x %.1f px wide, a under it %.1f (want 59%%)' % (x['cw'], a['cw'])
    if 'inverted' not in b.js('document.getElementById("totals").textContent'):
        return 'the totals line does not say it is inverted'
    # Zoom works the same way: under x, a and main fill the width.
    b.click(x['cx'], x['cy'])
    under = [f for f in boxes(b) if f['shown']]
    got = sorted((f['d'], f['name'], round(f['cw'], 1)) for f in under)
    if got != [(0, 'x', WIDTH), (1, 'a', WIDTH), (2, 'main', WIDTH)]:
        return 'zoomed on x, shown: %s' % got
    return None


def run(b, name, fn, *args):
    try:
        result(name, fn(b, *args) if b else fn(*args))
    except Exception as e:  # one check's failure must not stop the others
        result(name, '%s: %s' % (type(e).__name__, e))


def main():
    if len(sys.argv) not in (2, 3):
        print('usage: flamegraph_browser.py FLAMEGRAPH [RESULTS_DIR]', file=sys.stderr)
        return 2
    tool = sys.argv[1]
    results = sys.argv[2] if len(sys.argv) == 3 else 'build/test-results'
    os.makedirs(results, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='vmstack-fg-')
    b = None
    try:
        folded = os.path.join(tmp, 'known.folded')
        with open(folded, 'w') as f:
            f.write(FOLDED)
        svg, inv = os.path.join(tmp, 'known.svg'), os.path.join(tmp, 'inverted.svg')
        for out, extra in ((svg, []), (inv, ['--inverted'])):
            subprocess.run([tool, '--title', 'known tree', '-o', out] + extra + [folded],
                           check=True, timeout=TIMEOUT)
        run(None, 'svg-static', check_static, svg)
        t0 = time.monotonic()
        try:
            b = Browser(tmp)
            b.open_page()
            b.load(svg)
        except Exception as e:
            result('browser-start', '%s%s' % (e, '\n' + b.log_tail() if b else ''))
            return 1
        result('browser-start', None)
        run(b, 'browser-widths', check_widths)
        run(b, 'browser-colours', check_colours)
        run(b, 'browser-tooltip', check_tooltip)
        png = os.path.join(results, 'flamegraph.png')
        run(b, 'browser-screenshot',
            lambda b: None if b.screenshot(png)[:8] == b'\x89PNG\r\n\x1a\n' else 'not a PNG')
        run(b, 'browser-zoom', check_zoom, results)
        run(b, 'browser-search', check_search)
        b.load(inv)
        b.screenshot(os.path.join(results, 'flamegraph-inverted.png'))
        run(b, 'browser-inverted', check_inverted)
        print('# browser checks took %.1f s; screenshots in %s' % (time.monotonic() - t0,
                                                                   results))
    except (subprocess.SubprocessError, OSError) as e:
        result('browser-setup', e)
    finally:
        if b:
            b.close()
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
