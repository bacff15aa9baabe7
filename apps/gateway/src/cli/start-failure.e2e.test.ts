import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleGatewayCli, runCli } from '../testing/gateway-cli-process.test-helper.js';

/**
 * A start that fails ends the process with a non-zero code and one line
 * naming the address and the option that changes it (R8.9): a half-started
 * gateway (the embedded mock already listening) must not keep it alive.
 */
let bundle: string;
let occupied: Server;
let port: number;

beforeAll(async () => {
  bundle = await bundleGatewayCli();
  occupied = createServer();
  await new Promise<void>((resolve) => occupied.listen(0, '127.0.0.1', resolve));
  port = (occupied.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((resolve) => occupied.close(() => resolve()));
});

describe('turnguard serve on a port already in use (R8.9)', () => {
  it.each([
    ['with --mock', ['--mock']],
    ['forwarding to the real APIs', []],
  ])('%s: exits 2 naming the address and --port', async (_name, extra) => {
    const run = runCli(bundle, ['serve', ...extra, '--port', String(port), '--no-stats']);
    expect(await run.exited(10_000)).toBe(2);
    expect(run.err()).toBe(
      `turnguard serve: Cannot listen on 127.0.0.1:${port}: the address is already in use (another gateway, or another program, is listening there) (EADDRINUSE). ` +
        'Choose another port with --port <n> (or TURNGUARD_PORT); --port 0 takes any free port.\n',
    );
    expect(run.out()).toBe('');
  });

  it('a listen address that is not this machine\'s names --host', async () => {
    // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never assigned to a local interface.
    const run = runCli(bundle, ['serve', '--mock', '--host', '192.0.2.1', '--port', '0', '--no-stats', '--dangerously-allow-unauthenticated-network']);
    expect(await run.exited(10_000)).toBe(2);
    expect(run.err()).toContain('Cannot listen on 192.0.2.1:0: the address is not one of this machine\'s (EADDRNOTAVAIL). Choose another listen address with --host');
  });

  it('the same CLI starts and answers on a free port (the control)', async () => {
    const run = runCli(bundle, ['serve', '--mock', '--port', '0', '--no-stats']);
    const [, url] = await run.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited(10_000)).toBe(0);
  });
});
