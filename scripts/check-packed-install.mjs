// Part of `release:check` (R10.3, R10.4): the packed tarballs installed by npm
// into an empty project, as a user would before the packages are on npm. No
// published manifest pins an exact runtime dependency; nothing pulls msw (or
// its graphql, @inquirer, tldts); and `turnguard serve --mock` answers a chat
// completion from that install, so the embedded mock really runs without msw.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EXACT = /^=?v?\d+\.\d+\.\d+(?:[-+].*)?$/;
const UNWANTED = ['msw', 'graphql', '@inquirer/core', '@inquirer/confirm', 'tldts'];

function readPackedManifest(tarball) {
  return JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
}

/** Every dependency range of every tarball; throws on an exact pin. */
export function checkNoExactPins(tarballs) {
  for (const tarball of tarballs) {
    const { name, dependencies = {} } = readPackedManifest(tarball);
    const exact = Object.entries(dependencies).filter(([, range]) => EXACT.test(range));
    if (exact.length > 0) throw new Error(`${name} pins exact runtime versions: ${exact.map(([dep, range]) => `${dep}@${range}`).join(', ')}`);
    console.log(`${name}: ${Object.keys(dependencies).length} runtime dependencies, none pinned exactly`);
  }
}

function askMock(bin, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['serve', '--mock', '--port', '0', '--no-stats'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const fail = (why) => {
      child.kill('SIGTERM');
      reject(new Error(`${why}\n${output}`));
    };
    const timer = setTimeout(() => fail('turnguard serve --mock did not start within 20 s'), 20_000);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => fail(`turnguard serve --mock exited ${code}`));
    child.stdout.on('data', async (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      try {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-real-key' },
          body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
        });
        const body = await response.json();
        resolve({ status: response.status, content: body.choices?.[0]?.message?.content });
      } catch (error) {
        reject(error);
      } finally {
        child.kill('SIGTERM');
      }
    });
  });
}

/** Installs the tarballs into `dir` (a fresh folder) and checks what came with them. */
export async function checkPackedInstall(tarballs, dir) {
  checkNoExactPins(tarballs);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "name": "turnguard-release-check", "private": true, "type": "module" }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', ...tarballs], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
  const found = UNWANTED.filter((name) => existsSync(join(dir, 'node_modules', name)));
  if (found.length > 0) throw new Error(`installing the packages pulled ${found.join(', ')}`);
  const tree = execFileSync('npm', ['ls', '--all', '--parseable'], { cwd: dir, encoding: 'utf8' });
  const nested = tree.split('\n').filter((line) => UNWANTED.some((name) => line.endsWith(join('node_modules', name))));
  if (nested.length > 0) throw new Error(`installing the packages pulled ${nested.join(', ')}`);
  console.log(`installed ${tarballs.length} tarballs into an empty project: no ${UNWANTED.join(', ')}`);
  const answer = await askMock(join(dir, 'node_modules', '.bin', 'turnguard'), dir);
  if (answer.status !== 200 || !String(answer.content).includes('turnguard mock upstream')) throw new Error(`turnguard serve --mock answered ${JSON.stringify(answer)}`);
  console.log('turnguard serve --mock from that install answered a chat completion (no msw installed)');
}
