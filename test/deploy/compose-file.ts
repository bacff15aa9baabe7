/** deploy/compose.yaml and deploy/prometheus.yml as a container engine would read them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../release/packed-workspace.js';

export const DEPLOY_DIR = join(REPO_ROOT, 'deploy');

export function readYaml(path: string): Record<string, unknown> {
  // `merge: true`: Compose files use YAML merge keys (`<<: *gateway`), as the Compose loader does.
  return parse(readFileSync(path, 'utf8'), { merge: true }) as Record<string, unknown>;
}

/**
 * Compose's variable interpolation for the forms the example uses:
 * `${NAME}`, `${NAME:-default}` and `${NAME:?message}` (an error when unset).
 */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([?-])([^}]*))?\}/g, (_whole, name: string, kind: string | undefined, rest: string | undefined) => {
    const set = env[name];
    if (set !== undefined && set !== '') return set;
    if (kind === '?') throw new Error(`compose: ${name} is required: ${rest ?? ''}`);
    return kind === '-' ? (rest ?? '') : '';
  });
}
