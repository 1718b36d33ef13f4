// SPDX-License-Identifier: GPL-2.0
// The flame graph's script (embedded by user/output/svg.c in a CDATA
// section, so it must never contain the three characters that end one).
// Every frame is a <g class="f"> whose data-x, data-n and data-d give its
// first sample column, its samples and its row: zooming and searching use
// only those, so they are exact whatever the boxes were rounded to.
(function () {
	'use strict';
	var box = document.getElementById('frames');
	var frames = Array.prototype.slice.call(box.querySelectorAll('g.f'));
	var total = num(box, 'total'), width = num(box, 'width');
	var pad = num(box, 'pad'), charPx = num(box, 'char');
	var reset = document.getElementById('reset');
	var details = document.getElementById('details');
	var matched = document.getElementById('matched');
	var query = '';

	function num(el, key) {
		return Number(el.getAttribute('data-' + key));
	}

	// As svg.c's label(): what fits, ".." for the rest, nothing under 3 chars.
	function label(name, w) {
		var fit = w > 3 * charPx ? Math.floor((w - 6) / charPx) : 0;

		if (name.length <= fit)
			return name;
		return fit ? name.slice(0, fit - 2) + '..' : '';
	}

	// Frame @f drawn @x pixels from the left, @w wide. svg.c leaves out
	// the labels of narrow boxes: one is added, 3 px above the box's
	// bottom as svg.c puts it, when the box has room for it.
	function place(f, x, w) {
		var r = f.querySelector('rect'), t = f.querySelector('text');
		var s = label(f.getAttribute('data-name'), w);

		r.setAttribute('x', (pad + x).toFixed(1));
		r.setAttribute('width', w.toFixed(1));
		if (!t && !s)
			return;
		if (!t) {
			t = f.appendChild(document.createElementNS(r.namespaceURI, 'text'));
			t.setAttribute('y', (Number(r.getAttribute('y')) +
					     Number(r.getAttribute('height')) - 3).toFixed(1));
		}
		t.setAttribute('x', (pad + x + 3).toFixed(1));
		t.textContent = s;
	}

	// Frame @g full width: what runs under it in proportion, the frames it
	// runs under full width and greyed, everything else hidden.
	function zoom(g) {
		var x0 = num(g, 'x'), n0 = num(g, 'n'), d0 = num(g, 'd');

		frames.forEach(function (f) {
			var x = num(f, 'x'), n = num(f, 'n'), d = num(f, 'd');
			var under = d >= d0 && x >= x0 && x + n <= x0 + n0;
			var caller = d < d0 && x <= x0 && x + n >= x0 + n0;

			f.classList.toggle('hide', !under && !caller);
			f.classList.toggle('anc', caller);
			if (caller)
				place(f, 0, width);
			else if (under)
				place(f, (x - x0) * width / n0, n * width / n0);
		});
		reset.classList.remove('hide');
	}

	function unzoom() {
		frames.forEach(function (f) {
			f.classList.remove('hide', 'anc');
			place(f, num(f, 'x') * width / total, num(f, 'n') * width / total);
		});
		reset.classList.add('hide');
	}

	// Highlight the frames whose name @re matches, and show the share of
	// the samples under them: the union of their columns, so a match
	// inside another match (a recursion, a caller) is not counted twice.
	function search(re) {
		var spans = [], end = 0, samples = 0;

		frames.forEach(function (f) {
			var hit = re !== null && re.test(f.getAttribute('data-name'));

			f.classList.toggle('hit', hit);
			if (hit)
				spans.push([num(f, 'x'), num(f, 'x') + num(f, 'n')]);
		});
		spans.sort(function (a, b) { return a[0] - b[0]; });
		spans.forEach(function (s) {
			if (s[1] > end) {
				samples += s[1] - Math.max(s[0], end);
				end = s[1];
			}
		});
		matched.textContent = re === null ? '' :
			'Matched: ' + (total ? 100 * samples / total : 0).toFixed(1) + '%';
	}

	function ask() {
		var s = window.prompt('Search frames (a regular expression; empty to clear)', query);

		if (s === null)
			return;
		query = s;
		try {
			search(s ? new RegExp(s) : null);
		} catch (e) {
			matched.textContent = 'Bad expression: ' + e.message;
		}
	}

	function frameOf(ev) {
		return ev.target.closest ? ev.target.closest('g.f') : null;
	}

	box.addEventListener('click', function (ev) {
		var f = frameOf(ev);

		if (f)
			zoom(f);
	});
	box.addEventListener('mouseover', function (ev) {
		var f = frameOf(ev);

		if (f)
			details.textContent = f.querySelector('title').textContent;
	});
	box.addEventListener('mouseout', function () {
		details.textContent = ' ';
	});
	reset.addEventListener('click', unzoom);
	document.getElementById('search').addEventListener('click', ask);
}());
