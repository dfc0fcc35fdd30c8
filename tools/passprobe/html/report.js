/* passprobe's HTML report: draws the report.json embedded in the page (the element
 * #pp-data) as charts and tables. Inline in the page, no network. Data reaches the DOM only
 * through textContent and attributes, never as markup, so a pass called "</b>" stays text.
 * Every value the report has as null is shown as "unavailable", never as 0. Each cell and
 * chart element carries its raw value in data-v / data-ns for tests and for copying. Maps
 * keyed by names from the report have no prototype, so a pass called "constructor" is a pass. */
(function () {
	'use strict';
	var SVG = 'http://www.w3.org/2000/svg';
	var errors = [];
	window.addEventListener('error', function (e) {
		errors.push(String(e.message));
		var b = document.getElementById('pp-error');
		if (b) {
			b.hidden = false;
			b.textContent = 'This page failed to draw part of the report: ' + errors.join('; ');
		}
	});

	var PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948',
		'#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#1f77b4', '#8c564b', '#17becf',
		'#bcbd22', '#7f7f7f', '#d62728'];
	var UNAVAILABLE = 'unavailable';

	function isNum(v) { return typeof v === 'number' && isFinite(v); }

	/* The table's duration format (pp_summary_format_ns): three significant digits. */
	function fmtNs(ns) {
		if (!isNum(ns)) return UNAVAILABLE;
		if (ns === 0) return '0 ns';
		var units = [[1, 'ns'], [1e3, '\u00b5s'], [1e6, 'ms'], [1e9, 's']];
		var a = Math.abs(ns), u = 0;
		while (u + 1 < units.length && a / units[u][0] >= 999.5) u++;
		var x = a / units[u][0];
		var digits = x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2;
		return (ns < 0 ? '-' : '') + x.toFixed(digits) + ' ' + units[u][1];
	}
	function fmtShare(v) { return isNum(v) ? (v * 100).toFixed(1) + '%' : UNAVAILABLE; }
	function fmtCount(v) {
		if (!isNum(v)) return UNAVAILABLE;
		if (Math.abs(v) < 1000) return String(Math.round(v * 100) / 100);
		var units = [[1e3, 'k'], [1e6, 'M'], [1e9, 'G'], [1e12, 'T']], u = 0;
		while (u + 1 < units.length && Math.abs(v) / units[u][0] >= 999.5) u++;
		return (v / units[u][0]).toPrecision(3) + units[u][1];
	}
	/* Nested objects (a capture window, an output limit) as "key: value, ...". */
	function fmtPlain(v) {
		if (v === null || v === undefined) return UNAVAILABLE;
		if (Array.isArray(v)) return v.length ? v.map(fmtPlain).join('; ') : 'none';
		if (typeof v === 'object')
			return Object.keys(v).map(function (k) { return k + ': ' + (v[k] === null ? 'none' : fmtPlain(v[k])); }).join(', ');
		return String(v);
	}

	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		if (attrs) for (var k in attrs) if (attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}
	function svg(tag, attrs, text) {
		var e = document.createElementNS(SVG, tag);
		if (attrs) for (var k in attrs) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}
	function tip(node, text) { node.appendChild(svg('title', null, text)); return node; }
	function byId(id) { return document.getElementById(id); }

	var D = JSON.parse(byId('pp-data').textContent);
	var S = D.summary || {};
	var frames = Array.isArray(D.frames) ? D.frames : [];

	function passKey(name, kind) { return kind + '\u0000' + name; }
	var colors = Object.create(null), ncolors = 0;
	function colorOf(key) {
		if (!(key in colors)) colors[key] = PALETTE[ncolors++ % PALETTE.length];
		return colors[key];
	}
	(S.passes || []).forEach(function (p) { colorOf(passKey(p.name, p.kind)); });

	/* ---- header: process, devices, settings, frames ------------------------------------ */
	function kvTable(obj, id) {
		var t = el('table', { 'class': 'kv', id: id });
		Object.keys(obj).forEach(function (k) {
			var tr = el('tr');
			tr.appendChild(el('th', null, k));
			var none = obj[k] === null && (k === 'notes' || k === 'gpu_time_caveat' || k === 'trigger_file');
			tr.appendChild(el('td', { 'data-v': obj[k] === null ? '' : fmtPlain(obj[k]) },
				none ? 'none' : fmtPlain(obj[k])));
			t.appendChild(tr);
		});
		return t;
	}
	function renderHeader() {
		var proc = D.process || {};
		document.title = 'passprobe: ' + (proc.name || 'report');
		byId('pp-title').textContent = 'passprobe report: ' + (proc.name || '?') +
			(isNum(proc.pid) ? ' (pid ' + proc.pid + ')' : '');
		var w = D.frames_window || {};
		var meta = {
			generator: D.generator, 'report format version': D.version, clock: D.clock,
			'frames (summary covers)': D.frames_total,
			'frames kept in the report': isNum(w.count) ? w.count + ' of at most ' + w.limit +
				(isNum(w.first) ? ', from frame ' + w.first : '') : null,
			'frames dropped': D.frames_dropped, 'CPU events dropped': D.cpu_events_dropped
		};
		if (S.notes) meta.notes = S.notes;
		var box = byId('pp-meta');
		function group(title, obj, id) {
			/* The settings' table is three pairs of columns wide: its group takes the width
			 * it needs instead of overflowing into the group beside it. */
			var g = el('div', { 'class': id === 'pp-settings' ? 'group wide' : 'group' });
			g.appendChild(el('h3', null, title));
			g.appendChild(kvTable(obj, id));
			box.appendChild(g);
		}
		group('Run', meta, 'pp-meta-table');
		/* Devices alike but for their id and name (a GLES program's contexts, one device
		 * each: glmark2 makes one per scene) share one table, which names their ids. */
		var alike = [];
		(D.devices || []).forEach(function (d, i) {
			var key = JSON.stringify(Object.keys(d).filter(function (k) { return k !== 'id' && k !== 'name'; })
				.sort().map(function (k) { return [k, d[k]]; }));
			var id = isNum(d.id) ? d.id : i;
			for (var j = 0; j < alike.length; j++)
				if (alike[j].key === key) { alike[j].ids.push(id); return; }
			alike.push({ key: key, d: d, i: i, ids: [id] });
		});
		function idRanges(ids) {
			var out = [];
			for (var k = 0; k < ids.length; k++) {
				var a = ids[k];
				while (k + 1 < ids.length && ids[k + 1] === ids[k] + 1) k++;
				out.push(a === ids[k] ? String(a) : a + '-' + ids[k]);
			}
			return out.join(', ');
		}
		alike.forEach(function (g) {
			if (g.ids.length === 1) {
				group('Device ' + g.ids[0] + ': ' + g.d.name, g.d, 'pp-device-' + g.i);
				return;
			}
			var obj = {};
			Object.keys(g.d).forEach(function (k) { obj[k] = g.d[k]; });
			obj['devices alike'] = idRanges(g.ids) + ' (' + g.ids.length + ' devices: the same but for id and name)';
			group('Devices ' + idRanges(g.ids) + ': ' + g.d.name + ' and ' + (g.ids.length - 1) + ' alike', obj,
			      'pp-device-' + g.i);
		});
		if (D.settings && typeof D.settings === 'object') group('Settings', D.settings, 'pp-settings');
		/* Written by passprobe versions with capture windows and bounded outputs. */
		if (D.capture && typeof D.capture === 'object') group('Capture', D.capture, 'pp-capture');
		if (D.output_limit && typeof D.output_limit === 'object') group('Output limit', D.output_limit, 'pp-output-limit');
		/* Frames RenderDoc captured (docs/frame-debuggers.md): where each capture is. */
		if (D.renderdoc && typeof D.renderdoc === 'object') {
			var rd = { library: D.renderdoc.library, 'API version': D.renderdoc.api_version,
				'frames asked for': D.renderdoc.requested_frames, captures: D.renderdoc.captures_total };
			(D.renderdoc.captures || []).forEach(function (c) {
				rd[c.frame === null ? 'capture of no frame' : 'frame ' + c.frame] = c.path + ' (' + c.requested_by + ')';
			});
			group('RenderDoc captures', rd, 'pp-renderdoc');
		}
	}
	/* Passes another layer recorded for itself (recorded_by): apart from the application's,
	 * as in the summary, unless the run counted them (layer_passes). */
	var layerPasses = !!(D.settings && D.settings.layer_passes);
	function counted(p) { return layerPasses || !p.recorded_by; }

	/* ---- per-pass GPU time over frames, stacked ---------------------------------------- */
	/* Round steps from 0; cover: one past max, so the top tick is at or above it. */
	function axisTicks(max, cover) {
		if (!(max > 0)) return [0, 1];
		var step = Math.pow(10, Math.floor(Math.log10(max / 4)));
		[1, 2, 5, 10].some(function (m) { if (max / (step * m) <= 5) { step *= m; return true; } });
		var n = cover ? Math.ceil(max / step - 1e-9) : Math.floor(max / step + 1e-9), t = [];
		for (var i = 0; i <= n; i++) t.push(i * step);
		return t;
	}
	function frameParts(f) {
		var parts = Object.create(null), order = [];
		(f.passes || []).forEach(function (p) {
			if (!isNum(p.gpu_ns) || !counted(p)) return;
			var k = passKey(p.name, p.kind);
			if (!(k in parts)) { parts[k] = 0; order.push(k); }
			parts[k] += isNum(p.gpu_exclusive_ns) ? p.gpu_exclusive_ns : 0;
		});
		return { parts: parts, order: order };
	}
	function renderStack() {
		var box = byId('pp-stack');
		if (!frames.length) {
			box.appendChild(el('p', { 'class': 'none' }, 'No frames in this report (frames_window.count is 0).'));
			return;
		}
		var MAXCOLS = 600, per = Math.max(1, Math.ceil(frames.length / MAXCOLS));
		var cols = [];
		for (var i = 0; i < frames.length; i += per) {
			var group = frames.slice(i, i + per), sums = Object.create(null), measured = 0, total = 0;
			group.forEach(function (f) {
				/* A mean of several frames leaves out those the experiment rewrote (they measure a fix). */
				if (!isNum(f.gpu_ns) || (per > 1 && f.experiment_modified)) return;
				measured++;
				total += f.gpu_ns;
				var fp = frameParts(f);
				fp.order.forEach(function (k) { sums[k] = (sums[k] || 0) + fp.parts[k]; });
			});
			Object.keys(sums).forEach(function (k) { sums[k] /= measured; });
			cols.push({ first: group[0], last: group[group.length - 1], sums: sums,
				total: measured ? total / measured : null, pos: i });
		}
		var max = 0;
		cols.forEach(function (c) { if (isNum(c.total) && c.total > max) max = c.total; });
		var W = 1000, H = 280, ml = 70, mr = 10, mt = 10, mb = 34;
		var pw = W - ml - mr, ph = H - mt - mb, bw = pw / cols.length;
		var ticks = axisTicks(max, true), top = ticks[ticks.length - 1] || 1;
		var root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, 'class': 'chart', id: 'pp-stack-svg',
			role: 'img', 'aria-label': 'GPU time per frame, stacked by pass' });
		ticks.forEach(function (t) {
			var y = mt + ph - t / top * ph;
			root.appendChild(svg('line', { x1: ml, x2: W - mr, y1: y, y2: y, 'class': 'grid' }));
			root.appendChild(svg('text', { x: ml - 6, y: y + 4, 'text-anchor': 'end', 'class': 'tick' }, fmtNs(t)));
		});
		var order = Object.keys(colors);
		cols.forEach(function (c, ci) {
			var x = ml + ci * bw, g = svg('g', { 'class': 'col', 'data-frame': c.first.index,
				'data-frame-last': c.last.index, 'data-total': isNum(c.total) ? c.total : '' });
			var label = per > 1 ? 'frames ' + c.first.index + '-' + c.last.index + ' (mean)' : 'frame ' + c.first.index +
				(c.first.experiment_modified ? ' (with passprobe\'s experiment fix)' : '');
			if (!isNum(c.total)) {
				var why = per === 1 && c.first.gpu_unavailable ? ' (' + c.first.gpu_unavailable + ')' : '';
				g.appendChild(tip(svg('rect', { x: x, y: mt, width: Math.max(bw - 0.5, 0.5), height: ph,
					'class': 'unmeasured' }), label + ': GPU time ' + UNAVAILABLE + why));
			}
			var y = mt + ph;
			Object.keys(c.sums).forEach(function (k) { colorOf(k); });
			order = Object.keys(colors);
			order.forEach(function (k) {
				if (!(k in c.sums)) return;
				var h = c.sums[k] / top * ph, name = k.split('\u0000')[1];
				y -= h;
				g.appendChild(tip(svg('rect', { x: x, y: y, width: Math.max(bw - (bw > 3 ? 1 : 0), 0.5),
					height: Math.max(h, 0), fill: colors[k], 'data-pass': name,
					'data-kind': k.split('\u0000')[0], 'data-ns': c.sums[k] }),
					label + ', ' + name + ': ' + fmtNs(c.sums[k])));
			});
			g.addEventListener('click', function () { selectFrame(c.pos); });
			root.appendChild(g);
		});
		var xt = Math.max(1, Math.round(cols.length / 8));
		for (var j = 0; j < cols.length; j += xt)
			root.appendChild(svg('text', { x: ml + (j + 0.5) * bw, y: H - mb + 16, 'text-anchor': 'middle',
				'class': 'tick' }, String(cols[j].first.index)));
		root.appendChild(svg('text', { x: ml + pw / 2, y: H - 4, 'text-anchor': 'middle', 'class': 'axis' },
			'frame' + (per > 1 ? ' (each column: the mean of ' + per + ' frames)' : '')));
		box.appendChild(root);
		var legend = el('ul', { 'class': 'legend' });
		Object.keys(colors).forEach(function (k) {
			var li = el('li');
			li.appendChild(el('span', { 'class': 'swatch', style: 'background:' + colors[k] }));
			li.appendChild(document.createTextNode(k.split('\u0000')[1] + ' (' + k.split('\u0000')[0] + ')'));
			legend.appendChild(li);
		});
		box.appendChild(legend);
	}

	/* ---- time line of one frame ---------------------------------------------------------- */
	var selected = -1, zoom = 'all';
	var ZOOMS = [['all', 'the whole frame'], ['gpu', 'its GPU work'], ['cpu', 'its recording and submits']];
	function medianFrame() {
		var m = frames.map(function (f, i) { return [f.gpu_ns, i]; })
			.filter(function (x) { return isNum(x[0]) && !frames[x[1]].experiment_modified; })
			.sort(function (a, b) { return a[0] - b[0]; });
		return m.length ? m[Math.floor((m.length - 1) / 2)][1] : frames.length - 1;
	}
	function selectFrame(pos) {
		selected = pos;
		var sel = byId('pp-frame-select');
		if (sel) sel.value = String(pos);
		rememberView();
		renderTimeline();
	}
	function renderTimelineControls() {
		var box = byId('pp-timeline-controls');
		if (!frames.length) return;
		var label = el('label', null, 'Frame ');
		var sel = el('select', { id: 'pp-frame-select' });
		var med = medianFrame();
		frames.forEach(function (f, i) {
			sel.appendChild(el('option', { value: String(i) }, String(f.index) + '  (' +
				(isNum(f.gpu_ns) ? fmtNs(f.gpu_ns) : 'GPU time ' + UNAVAILABLE) + ')' +
				(f.experiment_modified ? '  experiment fix' : '') + (i === med ? '  median' : '')));
		});
		sel.addEventListener('change', function () { selectFrame(Number(sel.value)); });
		label.appendChild(sel);
		box.appendChild(label);
		var zl = el('label', null, '  show '), zs = el('select', { id: 'pp-zoom-select' });
		ZOOMS.forEach(function (z) { zs.appendChild(el('option', { value: z[0] }, z[1])); });
		zs.addEventListener('change', function () { zoom = zs.value; rememberView(); renderTimeline(); });
		zl.appendChild(zs);
		box.appendChild(zl);
		box.appendChild(el('span', { 'class': 'hint' },
			' (the median frame by GPU time first; a click on a column of the chart above picks its frame)'));
		selected = med;
		/* #frame=<index>&zoom=<all|gpu|cpu> in the address picks them, so a view can be linked. */
		(location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
			var k = kv.split('=')[0], v = decodeURIComponent(kv.split('=')[1] || '');
			if (k === 'frame')
				frames.forEach(function (f, i) { if (String(f.index) === v) selected = i; });
			if (k === 'zoom' && ZOOMS.some(function (z) { return z[0] === v; })) zoom = v;
		});
		sel.value = String(selected);
		zs.value = zoom;
	}
	function rememberView() {
		if (selected >= 0 && frames[selected] && history.replaceState)
			try { history.replaceState(null, '', '#frame=' + frames[selected].index + '&zoom=' + zoom); } catch (e) { /* file: URLs in some browsers */ }
	}
	function renderTimeline() {
		var box = byId('pp-timeline');
		box.textContent = '';
		if (selected < 0 || !frames[selected]) {
			box.appendChild(el('p', { 'class': 'none' }, 'No frames in this report.'));
			return;
		}
		var f = frames[selected], spans = [];
		function add(row, begin, end, label, cls, color, extra) {
			if (!isNum(begin) || !isNum(end)) return;
			spans.push({ row: row, b: begin, e: Math.max(end, begin), label: label, cls: cls,
				color: color, extra: extra || {} });
		}
		var subs = f.submissions || [];
		subs.forEach(function (s) {
			var q = s.queue || {};
			var qrow = 'GPU queue ' + q.family + '.' + q.index;
			add('CPU thread ' + s.tid, s.cpu_begin_ns, s.cpu_end_ns, 'submit #' + s.seq, 'submit');
			add(qrow, s.gpu_begin_ns, s.gpu_end_ns, 'submission #' + s.seq, 'submission');
			for (var i = s.first_pass; i < s.first_pass + s.passes && f.passes && i < f.passes.length; i++) {
				var p = f.passes[i];
				add(qrow + ' passes', p.gpu_begin_ns, p.gpu_end_ns, p.name + ' (' + fmtNs(p.gpu_ns) + ')' +
					(p.recorded_by ? ' [recorded by ' + p.recorded_by + ']' : ''),
					p.recorded_by ? 'pass foreign' : 'pass', colorOf(passKey(p.name, p.kind)),
					{ 'data-pass': p.name, 'data-ns': p.gpu_ns, 'data-recorded-by': p.recorded_by || null });
				if (p.cpu && !p.recording_reused && isNum(p.cpu.begin_ns))
					add('CPU thread ' + (p.cpu.tid === null ? 'several' : p.cpu.tid) + ' recording',
						p.cpu.begin_ns, p.cpu.begin_ns + p.cpu.wall_ns, 'record ' + p.name, 'record',
						colorOf(passKey(p.name, p.kind)));
			}
		});
		if (f.blocked && isNum(f.blocked.begin_ns))
			add('CPU blocked', f.blocked.begin_ns, f.blocked.begin_ns + f.blocked.wall_ns,
				'blocking calls (' + fmtNs(f.blocked.wall_ns) + ')', 'blocked');
		var info = el('p', { id: 'pp-timeline-info', 'data-frame': f.index },
			'Frame ' + f.index + ', closed by ' + f.delimiter + '; GPU time ' + fmtNs(f.gpu_ns) +
			(f.gpu_unavailable ? ' (' + f.gpu_unavailable + ')' : '') + '; ' + subs.length +
			' submission(s), ' + (f.passes || []).length + ' pass(es). Times from the start of the range shown.');
		box.appendChild(info);
		if (!spans.length) {
			box.appendChild(el('p', { 'class': 'none' }, 'Nothing of this frame has times to draw.'));
			return;
		}
		var t0 = Infinity, t1 = -Infinity, inZoom = {
			all: function () { return true; },
			gpu: function (s) { return s.cls.indexOf('pass') === 0 || s.cls === 'submission'; },
			cpu: function (s) { return s.cls === 'record' || s.cls === 'submit'; } }[zoom];
		spans.forEach(function (s) { if (inZoom(s)) { t0 = Math.min(t0, s.b); t1 = Math.max(t1, s.e); } });
		if (!isFinite(t0)) spans.forEach(function (s) { t0 = Math.min(t0, s.b); t1 = Math.max(t1, s.e); });
		var rows = [], lanes = Object.create(null);
		spans.forEach(function (s) {
			if (!(s.row in lanes)) { lanes[s.row] = []; rows.push(s.row); }
			var L = lanes[s.row], lane = 0;
			while (lane < L.length && L[lane] > s.b) lane++;
			L[lane] = s.e;
			s.lane = lane;
		});
		rows.sort(function (a, b) { return (a.indexOf('GPU') === 0) - (b.indexOf('GPU') === 0) || (a < b ? -1 : a > b); });
		var LH = 20, W = 1000, ml = 190, mr = 10, y = 8, rowY = Object.create(null);
		rows.forEach(function (r) { rowY[r] = y; y += LH * lanes[r].length + 8; });
		var H = y + 30, pw = W - ml - mr, span = Math.max(t1 - t0, 1);
		var root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, 'class': 'chart timeline', id: 'pp-timeline-svg',
			'data-zoom': zoom });
		/* Spans reaching outside a zoomed range are cut at the plot's edges. */
		var plotClip = svg('clipPath', { id: 'pp-timeline-plot' });
		plotClip.appendChild(svg('rect', { x: ml, y: 0, width: pw, height: H }));
		root.appendChild(plotClip);
		var plot = svg('g', { 'clip-path': 'url(#pp-timeline-plot)' });
		axisTicks(span, false).forEach(function (t) {
			var x = ml + t / span * pw;
			root.appendChild(svg('line', { x1: x, x2: x, y1: 4, y2: H - 24, 'class': 'grid' }));
			root.appendChild(svg('text', { x: x, y: H - 8, 'text-anchor': 'middle', 'class': 'tick' }, fmtNs(t)));
		});
		rows.forEach(function (r) {
			root.appendChild(svg('text', { x: ml - 8, y: rowY[r] + 14, 'text-anchor': 'end', 'class': 'rowlabel' }, r));
		});
		spans.forEach(function (s) {
			var x = ml + (s.b - t0) / span * pw, w = Math.max((s.e - s.b) / span * pw, 1);
			if (x + w < ml - 1 || x > W) return;
			var yy = rowY[s.row] + s.lane * LH;
			var g = svg('g', { 'class': 'span ' + s.cls });
			for (var k in s.extra) g.setAttribute(k, s.extra[k] === null ? '' : s.extra[k]);
			var r = svg('rect', { x: x, y: yy, width: w, height: LH - 3 });
			if (s.color) r.setAttribute('fill', s.color);
			g.appendChild(tip(r, s.label + ': ' + fmtNs(s.b - t0) + ' to ' + fmtNs(s.e - t0)));
			if (w > 40) {
				var clip = 'clip-' + rowY[s.row] + '-' + s.lane + '-' + Math.round(x);
				var cp = svg('clipPath', { id: clip });
				cp.appendChild(svg('rect', { x: x, y: yy, width: w, height: LH - 3 }));
				g.appendChild(cp);
				g.appendChild(svg('text', { x: Math.max(x, ml) + 3, y: yy + 12, 'clip-path': 'url(#' + clip + ')', 'class': 'spanlabel' }, s.label));
			}
			plot.appendChild(g);
		});
		root.appendChild(plot);
		box.appendChild(root);
		var missing = (f.passes || []).filter(function (p) { return !isNum(p.gpu_ns); });
		if (missing.length) {
			var ul = el('ul', { 'class': 'missing' });
			missing.forEach(function (p) {
				ul.appendChild(el('li', null, p.name + ' (' + p.kind + '): GPU time ' + UNAVAILABLE +
					(p.gpu_unavailable ? ': ' + p.gpu_unavailable : '')));
			});
			box.appendChild(el('p', null, 'Passes of this frame without a GPU time:'));
			box.appendChild(ul);
		}
	}

	/* ---- sortable tables ----------------------------------------------------------------- */
	/* cols: [title, getter(row) -> raw value, formatter, numeric]. */
	function table(id, cols, rows, note) {
		var t = el('table', { id: id, 'class': 'data sortable' });
		var thead = el('thead'), tr = el('tr');
		cols.forEach(function (c, ci) {
			var th = el('th', { 'data-col': String(ci), title: 'click to sort' }, c[0]);
			if (c[3]) th.className = 'num';
			th.addEventListener('click', function () { sortBy(t, ci, c[3]); });
			tr.appendChild(th);
		});
		thead.appendChild(tr);
		t.appendChild(thead);
		var tb = el('tbody');
		rows.forEach(function (r) {
			var row = el('tr');
			cols.forEach(function (c) {
				var v = c[1](r);
				var shown = c[2](v, r), td = el('td', { 'data-v': v === null || v === undefined ? '' : String(v) });
				if (shown instanceof Node) td.appendChild(shown); else td.textContent = shown;
				if (c[3]) td.className = 'num';
				if (v === null || v === undefined) td.classList.add('na');
				row.appendChild(td);
			});
			tb.appendChild(row);
		});
		t.appendChild(tb);
		if (!rows.length) {
			var e = el('tr'), td = el('td', { colspan: String(cols.length), 'class': 'none' }, note || 'none');
			e.appendChild(td);
			tb.appendChild(e);
		}
		var wrap = el('div', { 'class': 'scroll' });
		wrap.appendChild(t);
		return wrap;
	}
	function sortBy(t, col, numeric) {
		var tb = t.tBodies[0], rows = Array.prototype.slice.call(tb.rows);
		var dir = t.getAttribute('data-sort-col') === String(col) && t.getAttribute('data-sort-dir') === 'desc' ? 'asc' : 'desc';
		if (!numeric && t.getAttribute('data-sort-col') !== String(col)) dir = 'asc';
		rows.sort(function (a, b) {
			var x = a.cells[col].getAttribute('data-v'), y = b.cells[col].getAttribute('data-v');
			if (x === '' || y === '') return (x === '') - (y === '');  /* unavailable last */
			var c = numeric ? Number(x) - Number(y) : x.localeCompare(y);
			return dir === 'asc' ? c : -c;
		});
		rows.forEach(function (r) { tb.appendChild(r); });
		t.setAttribute('data-sort-col', String(col));
		t.setAttribute('data-sort-dir', dir);
		Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
			th.classList.toggle('sorted-asc', i === col && dir === 'asc');
			th.classList.toggle('sorted-desc', i === col && dir === 'desc');
		});
	}
	function get(o, path) {
		for (var i = 0; i < path.length; i++) {
			if (o === null || o === undefined) return null;
			o = o[path[i]];
		}
		return o === undefined ? null : o;
	}
	function ident(v) { return fmtPlain(v); }

	function renderSummary() {
		var fg = S.frame_gpu_ns || {};
		byId('pp-frame-line').textContent = 'Frame GPU time over ' + fmtPlain(S.frames) + ' frames' +
			(isNum(S.frames_gpu_timed) ? ' (' + S.frames_gpu_timed + ' of them GPU-timed)' : '') + ': mean ' +
			fmtNs(fg.mean) + ', p50 ' + fmtNs(fg.p50) + ', p95 ' + fmtNs(fg.p95) + '.';
		['mean', 'p50', 'p95'].forEach(function (k) {
			byId('pp-frame-line').setAttribute('data-' + k, isNum(fg[k]) ? String(fg[k]) : '');
		});
		byId('pp-summary').appendChild(table('pp-summary-table', [
			['pass', function (r) { return r.name; }, ident, false],
			['kind', function (r) { return r.kind; }, ident, false],
			['per frame', function (r) { return r.per_frame; }, function (v) { return isNum(v) ? String(Number(v.toPrecision(3))) : UNAVAILABLE; }, true],
			['count', function (r) { return r.count; }, ident, true],
			['measured', function (r) { return r.measured; }, ident, true],
			['mean', function (r) { return get(r, ['gpu_ns', 'mean']); }, fmtNs, true],
			['p50', function (r) { return get(r, ['gpu_ns', 'p50']); }, fmtNs, true],
			['p95', function (r) { return get(r, ['gpu_ns', 'p95']); }, fmtNs, true],
			['max', function (r) { return get(r, ['gpu_ns', 'max']); }, fmtNs, true],
			['share', function (r) { return r.share_of_frame; }, fmtShare, true],
			['cpu record', function (r) { return get(r, ['cpu_record_ns', 'mean']); }, fmtNs, true]
		], S.passes || [], 'no passes'));
	}

	/* The experiment's verdict on a site (docs/diagnostics.md, "Experiment mode"). */
	function fmtExperiment(e) {
		if (!e) return 'n/a (no experiment)';
		var box = el('div');
		box.appendChild(el('div', { 'class': 'message' }, e.verdict || ''));
		if (e.fix) box.appendChild(el('div', { 'class': 'suggestion' }, 'Fix: ' + e.fix));
		var s = e.saving || {}, arms = e.arms || {};
		[['frame_gpu_ns', 'frame GPU'], ['passes_gpu_ns', 'passes after it'], ['cpu_record_ns', 'CPU recording']].forEach(function (m) {
			var c = s[m[0]];
			if (!c || !isNum(c.saving_ns)) return;
			box.appendChild(el('div', null, m[1] + ': ' + (c.saving_ns >= 0 ? 'saved ' : 'grew by ') +
				fmtNs(Math.abs(c.saving_ns)) + (isNum(c.noise_ns) ? ' (noise ' + fmtNs(c.noise_ns) + ')' : '') + ', ' + c.verdict));
		});
		if (arms.fixed && arms.as_written)
			box.appendChild(el('div', null, arms.fixed.frames + ' frames fixed, ' + arms.as_written.frames + ' as written'));
		return box;
	}

	/* A report written before severities: every finding was a warning. */
	function severityOf(d) { return d.severity === 'info' ? 'info' : 'warning'; }
	function renderDiagnostics() {
		var diags = (Array.isArray(D.diagnostics) ? D.diagnostics : []).slice();
		/* What to look at first: warnings, the costliest (per frame) first, the unmeasured after
		 * the measured, then the most frequent. A click on a column's title sorts by it. */
		diags.sort(function (a, b) {
			var sa = severityOf(a) === 'info' ? 1 : 0, sb = severityOf(b) === 'info' ? 1 : 0;
			if (sa !== sb) return sa - sb;
			var ma = isNum(a.cost_ns), mb = isNum(b.cost_ns);
			if (ma !== mb) return ma ? -1 : 1;
			if (ma && a.cost_ns !== b.cost_ns) return b.cost_ns - a.cost_ns;
			return (isNum(b.count) ? b.count : 0) - (isNum(a.count) ? a.count : 0);
		});
		var box = byId('pp-diagnostics');
		var experiment = diags.some(function (d) { return d.experiment; });
		var warnings = diags.filter(function (d) { return severityOf(d) === 'warning'; }).length;
		box.appendChild(el('p', { id: 'pp-diag-counts', 'class': 'explain', 'data-warnings': String(warnings),
			'data-info': String(diags.length - warnings) },
			warnings + ' warning' + (warnings === 1 ? '' : 's') + ' (worth a developer\'s time), ' +
			(diags.length - warnings) + ' information (little or nothing to gain); warnings first, the costliest ' +
			'per frame first.'));
		box.appendChild(table('pp-diag-table', [
			['diagnostic', function (d) { return d.id; }, ident, false],
			['severity', severityOf, function (v) {
				return el('span', { 'class': 'severity ' + v }, v === 'info' ? 'information' : 'warning');
			}, false],
			['where', function (d) { return d.site === undefined ? null : d.site; }, function (v) { return v === null ? '' : v; }, false],
			['what, and what to do', function (d) { return d.message === undefined ? null : d.message; }, function (v, d) {
				var box = el('div');
				box.appendChild(el('div', { 'class': 'message' }, v === null ? '' : v));
				if (d.suggestion) box.appendChild(el('div', { 'class': 'suggestion' }, 'Suggestion: ' + d.suggestion));
				if (d.verdict) box.appendChild(el('div', { 'class': 'verdict' }, 'Fixing it: ' + d.verdict));
				return box;
			}, false],
			['count', function (d) { return d.count; }, ident, true],
			['frames', function (d) { return d.frames === undefined ? null : d.frames; }, ident, true],
			['cost per frame', function (d) { return d.cost_ns === undefined ? null : d.cost_ns; },
				function (v, d) {
					if (!isNum(v)) return UNAVAILABLE + (d.cost_unavailable ? ': ' + d.cost_unavailable : '');
					return fmtNs(v) + ' (' + (d.cost_kind || '') + ')' +
						(isNum(d.share_of_frame) ? ', ' + fmtShare(d.share_of_frame) + ' of a frame' : '');
				}, true],
			['GPU idle after', function (d) { return d.gpu_idle_ns === undefined ? null : d.gpu_idle_ns; },
				function (v, d) { return isNum(v) ? fmtNs(v) : d.gpu_idle_unavailable ? UNAVAILABLE + ': ' + d.gpu_idle_unavailable : 'n/a (not a blocking call)'; }, true]
		].concat(experiment ? [['experiment', function (d) { return d.experiment ? d.experiment.verdict : null; },
			function (v, d) { return fmtExperiment(d.experiment); }, false]] : []), diags, 'no diagnostics'));
	}

	/* Mean per pass (name, kind) over the kept frames of its recording's CPU cost. */
	function renderCpu() {
		var rows = Object.create(null), order = [], names = [];
		frames.forEach(function (f) {
			if (f.experiment_modified) return; /* the experiment's fixed frames measure a fix */
			(f.passes || []).forEach(function (p) {
				var k = passKey(p.name, p.kind);
				if (!(k in rows)) { rows[k] = { name: p.name, kind: p.kind, n: 0, sums: Object.create(null), counts: Object.create(null) }; order.push(k); }
				var r = rows[k];
				if (!p.cpu) return;
				r.n++;
				function acc(name, v) {
					if (names.indexOf(name) < 0) names.push(name);
					if (!isNum(v)) return;
					r.sums[name] = (r.sums[name] || 0) + v;
					r.counts[name] = (r.counts[name] || 0) + 1;
				}
				acc('wall_ns', p.cpu.wall_ns);
				acc('thread_cpu_ns', p.cpu.thread_cpu_ns);
				Object.keys(p.cpu.counters || {}).forEach(function (c) { acc(c, p.cpu.counters[c]); });
			});
		});
		var cols = [
			['pass', function (r) { return r.name; }, ident, false],
			['kind', function (r) { return r.kind; }, ident, false],
			['instances measured', function (r) { return r.n; }, ident, true]
		];
		names.forEach(function (c) {
			var isTime = /_ns$|^task-clock$|^cpu-clock$/.test(c);
			cols.push([c + (isTime ? '' : ' (mean)'), function (r) { return r.counts[c] ? r.sums[c] / r.counts[c] : null; },
				isTime ? fmtNs : fmtCount, true]);
		});
		byId('pp-cpu').appendChild(table('pp-cpu-table', cols, order.map(function (k) { return rows[k]; }),
			'no passes in the kept frames'));
	}

	renderHeader();
	renderStack();
	renderTimelineControls();
	renderTimeline();
	renderSummary();
	renderDiagnostics();
	renderCpu();
	document.body.setAttribute('data-pp-rendered', errors.length ? 'with-errors' : 'ok');
})();
