/**
 * R10.1, R10.4: every command a README shows works from a clone today. The
 * packages are not on npm yet, so an `npm install @turnguard/…` or
 * `npx @turnguard/…` line must say "once published"; `npm run <script>` must
 * be a root script; `node <path>` must be a package's built bin; `npx <bin>`
 * must be a bin a package installs.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = ['README.md', 'CONTRIBUTING.md', ...['packages', 'apps'].flatMap((group) => readdirSync(join(ROOT, group)).sort().map((name) => `${group}/${name}/README.md`))];
const rootScripts = Object.keys((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);

interface Bin {
  name: string;
  path: string;
}
const bins: Bin[] = ['packages', 'apps'].flatMap((group) =>
  readdirSync(join(ROOT, group)).flatMap((name) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, group, name, 'package.json'), 'utf8')) as { bin?: Record<string, string> };
    return Object.entries(manifest.bin ?? {}).map(([bin, path]) => ({ name: bin, path: join(group, name, path) }));
  }),
);

interface CommandLine {
  doc: string;
  line: string;
}

function shellLines(doc: string): CommandLine[] {
  const text = readFileSync(join(ROOT, doc), 'utf8');
  return [...text.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].flatMap((match) =>
    match[1]!.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('#')).map((line) => ({ doc, line })),
  );
}

const lines = DOCS.flatMap(shellLines);

/** Why a command line does not work from a clone today, or undefined. */
function judge(line: string): string | undefined {
  const [command, comment = ''] = line.split(/\s#\s/, 2) as [string, string?];
  if (/\b(npm install|npx(?: -y)?) @turnguard\//.test(command) || /npx(?: -y)? @turnguard\//.test(comment)) {
    return /once published/.test(comment) ? undefined : 'an npm form of an unpublished package without "once published"';
  }
  if (/^pnpm\b/.test(command.trim())) return 'a bare pnpm: the setup installs none (npx -y pnpm@12.4.2 …)';
  for (const match of command.matchAll(/\bnpm run ([\w:-]+)/g)) if (!rootScripts.includes(match[1]!)) return `no root script "${match[1]}"`;
  for (const match of command.matchAll(/(?:^|&&\s*|\s)node ((?:apps|packages)\/[\w./-]+)/g)) {
    if (!bins.some((bin) => bin.path === match[1])) return `${match[1]} is no package's bin`;
  }
  const npxBin = /^npx (?!-y )([\w-]+)\b/.exec(command.trim())?.[1];
  if (npxBin !== undefined && !bins.some((bin) => bin.name === npxBin)) return `no package installs the bin "${npxBin}"`;
  return undefined;
}

describe('README commands work from a clone (R10.1, R10.4)', () => {
  it('finds the command blocks', () => {
    expect(lines.length).toBeGreaterThan(15);
  });

  it.each(DOCS)('%s: every shell line runs today, npm forms marked "once published"', (doc) => {
    const broken = lines.filter((entry) => entry.doc === doc).map(({ line }) => ({ line, why: judge(line) })).filter((entry) => entry.why !== undefined);
    expect(broken).toEqual([]);
  });

  it.each(DOCS)('%s: prose names no npx of an unpublished package except as "once published"', (doc) => {
    const paragraphs = readFileSync(join(ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '').split(/\n\s*\n/);
    const unmarked = paragraphs.filter((paragraph) => /`npx(?: -y)? @turnguard\//.test(paragraph) && !/once\s+(?:the\s+packages\s+are\s+)?published/i.test(paragraph));
    expect(unmarked).toEqual([]);
  });
});
