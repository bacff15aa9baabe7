/** Starts an installed `turnguard` the way the image's ENTRYPOINT and CMD do, and waits for its banner. */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface RunningGateway {
  child: ChildProcess;
  /** The port it listens on (the banner's URL names the wildcard address). */
  port: number;
  output(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.once('error', reject);
  });
}

/** `command` looked up on `env.PATH`, as a container runtime does with ENTRYPOINT; resolves once it listens. */
export function startEntrypoint(command: readonly string[], env: Record<string, string>): Promise<RunningGateway> {
  const [file, ...args] = command;
  const child = spawn(file!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }
    });
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString('utf8');
      const port = /listening on http:\/\/[^\s]+:(\d+)/.exec(output)?.[1];
      if (port !== undefined) resolve({ child, port: Number(port), output: () => output, stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(Object.assign(new Error(`exited ${String(code)} before listening:\n${output}`), { code, output })));
  });
}

/** Runs a command to its end (the health check); its exit code and output. */
export function runToEnd(command: readonly string[], env: Record<string, string>, cwd: string): { status: number | null; output: string } {
  const [file, ...args] = command;
  const result = spawnSync(file!, args, { env, cwd, encoding: 'utf8', timeout: 10_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
