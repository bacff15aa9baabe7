import { DASHBOARD_SCRIPT } from './dashboard-script.js';

const STYLE = `
  :root { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1d2330; background: #f5f6f8; }
  body { margin: 0; padding: 24px; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 15px; margin: 0 0 12px; color: #3a4250; }
  .muted, #source { color: #6b7280; font-size: 13px; }
  .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; margin-top: 16px; }
  .card { background: #fff; border-radius: 8px; padding: 16px; box-shadow: 0 1px 2px rgba(0,0,0,.08); min-width: 0; overflow-x: auto; }
  .figures { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; margin-bottom: 12px; }
  .figure .label { display: block; font-size: 12px; color: #6b7280; }
  .figure .value { font-size: 22px; font-weight: 600; }
  .badge { background: #fff4d6; color: #8a5a00; border-radius: 4px; padding: 2px 8px; font-size: 12px; }
  .axis, .bar-label { font-size: 10px; fill: #4b5563; }
  table { width: 100%; border-collapse: collapse; font-size: 13px; }
  td, th { padding: 4px 6px; border-bottom: 1px solid #eceef2; text-align: left; }
  th { white-space: nowrap; }
  /* A long error code or model name wraps inside its cell instead of pushing the table out of its card. */
  td { overflow-wrap: anywhere; }
  td.code { overflow-wrap: normal; }
  .num { text-align: right; font-variant-numeric: tabular-nums; }
  #state-panel { display: none; margin-top: 16px; padding: 16px; border-radius: 8px; }
  body[data-state="empty"] #state-panel { display: block; background: #eef4ff; }
  body[data-state="error"] #state-panel { display: block; background: #fdecec; color: #8a1c1c; }
  body:not([data-state="ready"]) #content { display: none; }
  .wide { grid-column: 1 / -1; }
  .note { color: #4b5563; font-size: 12px; margin: 8px 0 0; }
  .legend { font-size: 12px; color: #4b5563; margin-top: 4px; }
  .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 12px; vertical-align: middle; }
  code { font-size: 12px; }
`;

/**
 * The whole dashboard as one self-contained page: inline CSS, inline script,
 * SVG drawn in the browser. The CSP forbids every network source except the
 * page's own origin, so nothing is fetched from elsewhere (R6.6).
 */
export function renderDashboardPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:">
<title>turnguard stats</title>
<style>${STYLE}</style>
</head>
<body data-state="loading">
<h1>turnguard stats</h1>
<div id="source">loading…</div>
<div id="state-panel" data-testid="state-panel"><span id="state-message" data-testid="state-message"></span></div>
<div id="content">
  <p><span id="estimated" class="badge" hidden>Includes an estimated baseline from a migrated older stats file</span></p>
  <div class="grid">
    <section class="card" data-testid="physical-card">
      <h2>Physical requests <span class="muted">every HTTP request sent upstream</span></h2>
      <div class="figures" id="physical-figures"></div>
      <div id="physical-bar"></div>
      <p class="note" id="no-usage-note" data-testid="no-usage-note"></p>
    </section>
    <section class="card" data-testid="logical-card">
      <h2>Logical turns <span class="muted">what the user experienced</span></h2>
      <div class="figures" id="logical-figures"></div>
      <div id="logical-bar"></div>
    </section>
  </div>
  <div class="grid">
    <section class="card">
      <h2>Recovery rate over time</h2>
      <div class="muted" id="recovery-rate" data-testid="recovery-rate"></div>
      <div id="recovery-over-time"></div>
    </section>
    <section class="card">
      <h2>Decode speed (tokens/s, successful segments)</h2>
      <div class="muted" id="decode-count" data-testid="decode-count"></div>
      <div id="decode-chart"></div>
    </section>
    <section class="card">
      <h2>Time to first token</h2>
      <div class="muted" id="ttft-count" data-testid="ttft-count"></div>
      <div id="ttft-chart"></div>
    </section>
  </div>
  <div class="grid">
    <section class="card wide">
      <h2>Requests, turns and failures per hour <span class="muted" id="hourly-range" data-testid="hourly-range"></span></h2>
      <div id="hourly-chart"></div>
      <div class="legend"><span class="swatch" style="background:#a6c3e0"></span>requests<span class="swatch" style="background:#e15759"></span>failed requests<span class="swatch" style="background:#1d2330"></span>turns<span class="swatch" style="background:#f28e2b"></span>failed turns</div>
    </section>
  </div>
  <div class="grid">
    <section class="card">
      <h2>Failures by error code <span class="muted">retained window</span></h2>
      <table><thead><tr><th>code</th><th class="num">failed</th><th class="num">chat</th><th class="num">messages</th><th class="num">responses</th></tr></thead>
      <tbody id="failure-codes" data-testid="failure-codes"></tbody></table>
    </section>
    <section class="card">
      <h2>Failures by protocol <span class="muted">retained window</span></h2>
      <table><thead><tr><th>protocol</th><th class="num">requests</th><th class="num">failed</th><th class="num">failure rate</th></tr></thead>
      <tbody id="failure-protocols" data-testid="failure-protocols"></tbody></table>
    </section>
    <section class="card" data-testid="failover-card">
      <h2>Fallbacks and continuations <span class="muted">retained window</span></h2>
      <div class="figures" id="failover-figures"></div>
      <div id="failover-routes"></div>
    </section>
  </div>
  <div class="grid">
    <section class="card wide">
      <h2>Recent failures <span class="muted">codes only: no prompt, answer or message is ever stored</span></h2>
      <table><thead><tr><th>time</th><th>protocol</th><th>model</th><th>code</th></tr></thead>
      <tbody id="recent-failures" data-testid="recent-failures"></tbody></table>
    </section>
  </div>
  <div class="grid">
    <section class="card">
      <h2>Requests by weekday and hour</h2>
      <div id="heatmap"></div>
    </section>
    <section class="card">
      <h2>Models (lifetime)</h2>
      <table><thead><tr><th>model</th><th class="num">calls</th><th class="num">failed</th><th class="num">output tokens</th></tr></thead>
      <tbody id="models" data-testid="models"></tbody></table>
    </section>
  </div>
</div>
<script>${DASHBOARD_SCRIPT}</script>
</body>
</html>
`;
}
