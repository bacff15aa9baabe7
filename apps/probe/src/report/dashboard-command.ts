import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, relative } from 'node:path';

function quoteForShell(path: string): string {
  return /^[\w@%+=:,./~-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** A path as the user would type it from `cwd`: relative when it is inside, else absolute. */
function fromCwd(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

/**
 * The command that opens the dashboard of `statsFile`, runnable wherever the
 * probe runs: `node <the installed @turnguard/stats CLI> serve --file …`.
 * The stats CLI is the probe's own dependency, so the path exists in a clone
 * (after the build) and in any install from the packed tarballs alike; an
 * `npx @turnguard/stats` line would need the package on npm (R10.4).
 */
export function describeDashboardCommand(statsFile: string, cwd: string = process.cwd()): string {
  const manifestPath = createRequire(import.meta.url).resolve('@turnguard/stats/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin: Record<string, string> };
  const cli = join(dirname(manifestPath), manifest.bin['turnguard-stats']!);
  return `node ${quoteForShell(fromCwd(cli, cwd))} serve --file ${quoteForShell(fromCwd(statsFile, cwd))}`;
}
