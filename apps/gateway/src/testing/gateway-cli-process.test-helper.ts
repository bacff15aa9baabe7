import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFromSource } from '../../../../scripts/bundle-from-source.mjs';

/**
 * The `turnguard` bin bundled from source into one CommonJS file in a temp
 * dir, so a test runs the CLI as a user does (its own process, its own exit)
 * on a clean clone with no dist/.
 */
export async function bundleGatewayCli(): Promise<string> {
  return bundleFromSource({
    entryName: 'turnguard',
    entryFile: fileURLToPath(new URL('../cli.ts', import.meta.url)),
    outDir: await mkdtemp(join(tmpdir(), 'tg-gateway-cli-')),
    sourceRoot: fileURLToPath(new URL('../../../../', import.meta.url)),
  });
}

export interface CliRun {
  readonly child: ChildProcess;
  /** stdout and stderr so far. */
  readonly out: () => string;
  readonly err: () => string;
  /** Resolves with the exit code, or `'timeout'` when it did not exit within `ms` (the child is then killed). */
  exited(ms: number): Promise<number | 'timeout'>;
  /** Resolves when stdout matches, rejects when the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

export function runCli(bundle: string, args: readonly string[], env: Record<string, string | undefined> = {}): CliRun {
  const child = spawn(process.execPath, [bundle, ...args], { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exit = new Promise<number>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal === null ? -1 : 128))));
  return {
    child,
    out: () => out,
    err: () => err,
    async exited(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
      const result = await Promise.race([exit, timeout]);
      clearTimeout(timer);
      if (result === 'timeout') child.kill('SIGKILL');
      return result;
    },
    waitFor(pattern) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(out);
          if (match !== null) {
            child.stdout!.off('data', check);
            resolve(match);
          }
        };
        child.stdout!.on('data', check);
        check();
        void exit.then((code) => reject(new Error(`exited ${code} before ${String(pattern)}:\n${out}\n${err}`)));
      });
    },
  };
}
