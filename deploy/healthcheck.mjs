// The container's health check (R12.5): GET /healthz on the gateway's own port.
// /healthz needs no token (a load balancer calls it too) and 127.0.0.1 passes
// the Host check (R8.9). Exit 0 when the gateway answers 200, 1 otherwise.
const port = process.env.TURNGUARD_PORT || '8787';
const listenHost = process.env.TURNGUARD_HOST || '127.0.0.1';
// A wildcard address listens on loopback too; a specific address is asked directly.
const host = ['0.0.0.0', '::', '[::]'].includes(listenHost) ? '127.0.0.1' : listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
try {
  const response = await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(2500) });
  process.exitCode = response.ok ? 0 : 1;
} catch {
  process.exitCode = 1;
}
