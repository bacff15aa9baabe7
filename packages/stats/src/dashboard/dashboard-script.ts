/*
 * Browser code of the dashboard, shipped inline (no CDN, no network beyond
 * the page's own /api/summary). Charts are plain SVG built here. Every value
 * is written with textContent / setAttribute, never innerHTML, and the data
 * itself holds only numbers, model names, error codes and time labels (R4.10).
 * Written as ES2017 without template literals so it can live in a TS string.
 */
export const DASHBOARD_SCRIPT = String.raw`
(function () {
  'use strict';
  var SVG = 'http://www.w3.org/2000/svg';
  var DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var node = tag.indexOf('svg:') === 0 ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, String(attrs[key])); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function count(n) { return n === undefined || n === null ? 'unknown' : Number(n).toLocaleString('en-US'); }
  function pct(r) { return r === undefined || r === null ? '—' : (r * 100).toFixed(1) + '%'; }
  function num(v, unit, digits) { return v === undefined || v === null ? '—' : v.toFixed(digits || 0) + ' ' + unit; }
  // An error code breaks only after an underscore (PROMPT_TOO_/LONG), never inside a word (R6.6).
  function codeCell(code) {
    var cell = el('td', { class: 'code' });
    String(code).split('_').forEach(function (part, i, parts) {
      cell.appendChild(document.createTextNode(part + (i < parts.length - 1 ? '_' : '')));
      if (i < parts.length - 1) cell.appendChild(el('wbr', {}));
    });
    return cell;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  function renderStacked(target, parts, total) {
    var svg = el('svg:svg', { viewBox: '0 0 300 24', width: '100%', height: 24, preserveAspectRatio: 'none', role: 'img' });
    var x = 0;
    parts.forEach(function (part) {
      var w = total > 0 ? (part.value / total) * 300 : 0;
      var rect = el('svg:rect', { x: x, y: 0, width: w, height: 24, fill: part.color, 'data-part': part.key, 'data-value': part.value });
      rect.appendChild(el('svg:title', {}, part.label + ': ' + count(part.value)));
      svg.appendChild(rect);
      x += w;
    });
    clear(target).appendChild(svg);
  }

  function renderFigures(prefix, rows) {
    var list = clear($(prefix + '-figures'));
    rows.forEach(function (row) {
      var item = el('div', { class: 'figure' });
      item.appendChild(el('span', { class: 'label' }, row[0]));
      item.appendChild(el('span', { class: 'value', 'data-testid': prefix + '-' + row[1] }, row[2]));
      list.appendChild(item);
    });
  }

  function renderBars(target, bars, unit, testid) {
    var max = bars.reduce(function (m, b) { return Math.max(m, b.value || 0); }, 0);
    var height = bars.length * 30 + 10;
    var svg = el('svg:svg', { viewBox: '0 0 360 ' + height, width: '100%', role: 'img', 'data-testid': testid });
    bars.forEach(function (bar, i) {
      var y = 10 + i * 30;
      var w = max > 0 && bar.value ? (bar.value / max) * 220 : 0;
      svg.appendChild(el('svg:text', { x: 0, y: y + 15, class: 'axis' }, bar.label));
      svg.appendChild(el('svg:rect', { x: 60, y: y, width: w, height: 20, rx: 3, fill: bar.color || '#4c78a8', 'data-bar': bar.label, 'data-value': bar.value === undefined ? '' : bar.value }));
      svg.appendChild(el('svg:text', { x: 66 + w, y: y + 15, class: 'bar-label' }, num(bar.value, unit, unit === 'tok/s' ? 1 : 0)));
    });
    clear(target).appendChild(svg);
  }

  function renderRecoveryOverTime(target, days) {
    clear(target);
    var withAttempts = days.filter(function (d) { return d.attempts > 0; });
    if (withAttempts.length === 0) { target.appendChild(el('p', { class: 'muted' }, 'No recovery requests in the retained window.')); return; }
    var shown = withAttempts.slice(-30);
    var w = 360, h = 140, left = 34, step = Math.min((w - left) / shown.length, 48);
    var svg = el('svg:svg', { viewBox: '0 0 ' + w + ' ' + (h + 30), width: '100%', role: 'img', 'data-testid': 'recovery-chart' });
    svg.appendChild(el('svg:line', { x1: left, y1: h, x2: w, y2: h, stroke: '#999' }));
    svg.appendChild(el('svg:text', { x: 0, y: 16, class: 'axis' }, '100%'));
    svg.appendChild(el('svg:text', { x: 0, y: h, class: 'axis' }, '0%'));
    shown.forEach(function (d, i) {
      var bh = (d.rate || 0) * (h - 10);
      var rect = el('svg:rect', { x: left + i * step + 2, y: h - bh, width: Math.max(step - 4, 1), height: bh, fill: '#59a14f', 'data-day': d.day, 'data-rate': d.rate, 'data-attempts': d.attempts, 'data-recovered': d.recovered });
      rect.appendChild(el('svg:title', {}, d.day + ': ' + d.recovered + '/' + d.attempts + ' recovered (' + pct(d.rate) + ')'));
      svg.appendChild(rect);
      if (shown.length <= 10 || i % Math.ceil(shown.length / 6) === 0) svg.appendChild(el('svg:text', { x: left + i * step + 2, y: h + 18, class: 'axis' }, d.day.slice(5)));
    });
    target.appendChild(svg);
  }

  function renderHeatmap(target, heatmap) {
    var cell = 14, left = 34, top = 16;
    var svg = el('svg:svg', { viewBox: '0 0 ' + (left + 24 * cell) + ' ' + (top + 7 * cell + 4), width: '100%', role: 'img', 'data-testid': 'heatmap' });
    for (var hour = 0; hour < 24; hour += 3) svg.appendChild(el('svg:text', { x: left + hour * cell, y: 11, class: 'axis' }, String(hour)));
    heatmap.counts.forEach(function (row, day) {
      svg.appendChild(el('svg:text', { x: 0, y: top + day * cell + 11, class: 'axis' }, DAYS[day]));
      row.forEach(function (n, hour) {
        var shade = heatmap.max > 0 ? 0.08 + 0.92 * (n / heatmap.max) : 0.08;
        var rect = el('svg:rect', { x: left + hour * cell, y: top + day * cell, width: cell - 2, height: cell - 2, rx: 2, fill: '#4c78a8', 'fill-opacity': n > 0 ? shade.toFixed(3) : 0.06, 'data-weekday': day, 'data-hour': hour, 'data-count': n });
        rect.appendChild(el('svg:title', {}, DAYS[day] + ' ' + hour + ':00 — ' + n + ' requests'));
        svg.appendChild(rect);
      });
    });
    clear(target).appendChild(svg);
  }

  function renderModels(target, models) {
    clear(target);
    models.slice(0, 12).forEach(function (m) {
      var row = el('tr', {});
      row.appendChild(el('td', {}, m.model));
      row.appendChild(el('td', { class: 'num' }, count(m.calls)));
      row.appendChild(el('td', { class: 'num' }, count(m.failedCalls)));
      row.appendChild(el('td', { class: 'num' }, count(m.outputTokens)));
      target.appendChild(row);
    });
  }

  function renderHourly(target, hourly) {
    clear(target);
    var hours = hourly.hours;
    $('hourly-range').textContent = hours.length === 0 ? '' : (hourly.truncated ? 'last ' : '') + hours.length + ' hours, ' + hours[0].label + ' to ' + hours[hours.length - 1].label;
    if (hours.length === 0) { target.appendChild(el('p', { class: 'muted' }, 'No requests in the retained window.')); return; }
    var w = 760, h = 150, left = 34, step = (w - left) / hours.length;
    var max = hours.reduce(function (m, b) { return Math.max(m, b.requests, b.turns); }, 0) || 1;
    var y = function (n) { return h - (n / max) * (h - 12); };
    var svg = el('svg:svg', { viewBox: '0 0 ' + w + ' ' + (h + 24), width: '100%', role: 'img', 'data-testid': 'hourly-chart' });
    svg.appendChild(el('svg:line', { x1: left, y1: h, x2: w, y2: h, stroke: '#999' }));
    svg.appendChild(el('svg:text', { x: 0, y: 16, class: 'axis' }, String(max)));
    svg.appendChild(el('svg:text', { x: 0, y: h, class: 'axis' }, '0'));
    var turnsLine = [], failedTurns = [];
    hours.forEach(function (b, i) {
      var x = left + i * step, bw = Math.max(step - 1, 1);
      var bar = el('svg:rect', { x: x, y: y(b.requests), width: bw, height: h - y(b.requests), fill: '#a6c3e0', 'data-hour': b.label, 'data-requests': b.requests, 'data-failed-requests': b.failedRequests, 'data-turns': b.turns, 'data-failed-turns': b.failedTurns });
      bar.appendChild(el('svg:title', {}, b.label + ': ' + b.requests + ' requests (' + b.failedRequests + ' failed), ' + b.turns + ' turns (' + b.failedTurns + ' failed)'));
      svg.appendChild(bar);
      if (b.failedRequests > 0) svg.appendChild(el('svg:rect', { x: x, y: y(b.failedRequests), width: bw, height: h - y(b.failedRequests), fill: '#e15759', 'data-failed-hour': b.label }));
      turnsLine.push((x + bw / 2).toFixed(1) + ',' + y(b.turns).toFixed(1));
      if (b.failedTurns > 0) failedTurns.push([x + bw / 2, y(b.failedTurns)]);
      if (hours.length <= 12 || i % Math.ceil(hours.length / 8) === 0) svg.appendChild(el('svg:text', { x: x, y: h + 16, class: 'axis' }, b.label.slice(5)));
    });
    svg.appendChild(el('svg:polyline', { points: turnsLine.join(' '), fill: 'none', stroke: '#1d2330', 'stroke-width': 1.5, 'data-series': 'turns' }));
    failedTurns.forEach(function (p) { svg.appendChild(el('svg:circle', { cx: p[0], cy: p[1], r: 3, fill: '#f28e2b' })); });
    target.appendChild(svg);
  }

  function renderRows(target, rows, empty, numericFrom, codeColumn) {
    clear(target);
    if (rows.length === 0) {
      var row = el('tr', {});
      row.appendChild(el('td', { class: 'muted', colspan: 5 }, empty));
      target.appendChild(row);
      return;
    }
    rows.forEach(function (cells) {
      var row = el('tr', {});
      cells.forEach(function (cell, i) {
        if (i === codeColumn) row.appendChild(codeCell(cell));
        else row.appendChild(el('td', i >= numericFrom ? { class: 'num' } : {}, typeof cell === 'string' ? cell : count(cell)));
      });
      target.appendChild(row);
    });
  }

  function renderFailures(failures) {
    renderRows($('failure-codes'), failures.byCode.map(function (f) { return [f.code, f.count, f.byProtocol.chat, f.byProtocol.messages, f.byProtocol.responses]; }), 'No failed requests in the retained window.', 1, 0);
    renderRows($('failure-protocols'), failures.byProtocol.map(function (p) { return [p.protocol, p.requests, p.failed, pct(p.rate)]; }), 'No requests in the retained window.', 1);
    renderRows($('recent-failures'), failures.recent.map(function (f) { return [f.label, f.protocol, f.model, f.code]; }), 'No failed requests in the retained window.', 4, 3);
  }

  function renderFailover(failover) {
    renderFigures('failover', [['Fallback requests', 'fallbacks', count(failover.fallbacks)], ['Continuations', 'continuations', count(failover.continuations)]]);
    var target = clear($('failover-routes'));
    if (failover.routes.length === 0) {
      target.appendChild(el('p', { class: 'note', 'data-testid': 'failover-none' }, 'No request fell back to another model in the retained window.'));
      return;
    }
    var table = el('table', { 'data-testid': 'failover-routes' });
    var head = el('tr', {});
    ['model replaced', 'fallback model', 'requests'].forEach(function (name, i) { head.appendChild(el('th', i === 2 ? { class: 'num' } : {}, name)); });
    table.appendChild(head);
    failover.routes.forEach(function (r) {
      var row = el('tr', {});
      row.appendChild(el('td', {}, r.from));
      row.appendChild(el('td', {}, r.to));
      row.appendChild(el('td', { class: 'num' }, count(r.count)));
      table.appendChild(row);
    });
    target.appendChild(table);
  }

  function describeNoUsage(n) {
    return '“No usage”: ' + count(n) + (n === 1 ? ' request' : ' requests') + ' for which the upstream reported no token counts. Their tokens are unknown: never estimated and never counted as 0, so the token totals leave them out.';
  }

  function showState(state, message) {
    document.body.setAttribute('data-state', state);
    $('state-message').textContent = message || '';
  }

  function render(payload) {
    if (payload.state === 'error') { showState('error', 'Cannot read ' + payload.path + ': ' + payload.message + ' (' + payload.code + ')'); return; }
    if (payload.state === 'empty') { showState('empty', 'No stats recorded yet at ' + payload.path + '. Figures appear after the first request.'); return; }
    var s = payload.summary, p = s.physical, l = s.logical;
    showState('ready', '');
    $('source').textContent = payload.path + ' — updated ' + new Date(s.updatedAt).toLocaleString();
    $('estimated').hidden = !(p.estimated || l.estimated);
    renderFigures('physical', [['Requests', 'requests', count(p.requests)], ['OK', 'ok', count(p.ok)], ['Failed', 'failed', count(p.failed)], ['No usage', 'no-usage', count(p.noUsage)], ['Success', 'success', pct(p.successRate)]]);
    renderFigures('logical', [['Turns', 'turns', count(l.turns)], ['OK', 'ok', count(l.ok)], ['Recovered', 'recovered', count(l.recovered)], ['Failed', 'failed', count(l.failed)], ['Aborted', 'aborted', count(l.aborted)], ['Success', 'success', pct(l.successRate)]]);
    renderStacked($('physical-bar'), [{ key: 'ok', label: 'OK', value: p.ok, color: '#59a14f' }, { key: 'failed', label: 'Failed', value: p.failed, color: '#e15759' }], p.requests);
    renderStacked($('logical-bar'), [{ key: 'ok', label: 'OK', value: l.ok, color: '#59a14f' }, { key: 'recovered', label: 'Recovered', value: l.recovered, color: '#76b7b2' }, { key: 'failed', label: 'Failed', value: l.failed, color: '#e15759' }, { key: 'aborted', label: 'Aborted', value: l.aborted, color: '#bab0ac' }], l.turns);
    $('recovery-rate').textContent = pct(s.recovery.rate) + ' (' + s.recovery.recovered + ' of ' + s.recovery.attempts + ' recovery requests)';
    renderRecoveryOverTime($('recovery-over-time'), s.recovery.byDay);
    renderBars($('decode-chart'), [{ label: 'p50', value: s.decodeSpeed.p50 }, { label: 'p90', value: s.decodeSpeed.p90 }, { label: 'p99', value: s.decodeSpeed.p99 }, { label: 'mean', value: s.decodeSpeed.mean, color: '#f28e2b' }], 'tok/s', 'decode-chart-svg');
    $('decode-count').textContent = s.decodeSpeed.count + ' successful segments with a known window and output tokens';
    renderBars($('ttft-chart'), [{ label: 'p50', value: s.ttftMs.p50 }, { label: 'p90', value: s.ttftMs.p90 }, { label: 'p99', value: s.ttftMs.p99 }], 'ms', 'ttft-chart-svg');
    $('ttft-count').textContent = s.ttftMs.count + ' requests with a first token';
    $('no-usage-note').textContent = describeNoUsage(p.noUsage);
    renderHourly($('hourly-chart'), s.hourly);
    renderFailures(s.failures);
    renderFailover(s.failover);
    renderHeatmap($('heatmap'), s.heatmap);
    renderModels($('models'), s.models);
  }

  function refresh() {
    fetch('api/summary', { cache: 'no-store' })
      .then(function (res) { return res.json(); })
      .then(render)
      .catch(function () { showState('error', 'The stats server did not answer. Is turnguard stats serve still running?'); });
  }
  refresh();
  setInterval(refresh, 5000);
})();
`;
