// Where the bench finds what it measures. bench/ is not a workspace package
// (no package.json of its own, on purpose), so every import is resolved by
// path: our decoders from their BUILT output (packages/*/dist), the official
// SDKs and eventsource-parser from the packages that already depend on them.
import { readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const fromPackage = (relativeDir) => join(REPO_ROOT, relativeDir, 'package.json');

/**
 * The ESM entry of `name` as seen from a workspace package. Not
 * `require.resolve` alone: that returns the CJS build, a different module
 * instance (and different code) from the one the adapters' ESM dist imports.
 */
export function resolveEsmEntry(fromPackageJson, name) {
  const cjsPath = createRequire(fromPackageJson).resolve(name);
  let dir = dirname(cjsPath);
  for (;;) {
    const manifestPath = join(dir, 'package.json');
    if (existsSync(manifestPath)) {
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (manifest.name === name) {
        const root = manifest.exports?.['.'];
        const entry = typeof root === 'string' ? root : (root?.import?.default ?? root?.import ?? root?.default ?? manifest.module ?? manifest.main);
        return pathToFileURL(join(dir, entry)).href;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`bench: cannot find the package root of ${name}`);
    dir = parent;
  }
}

const DIST_WAIT_MS = 90_000;

/**
 * The dist entry of a workspace package. Others rebuild in the same tree and
 * tsup's `clean` empties dist/ for a few seconds, so a missing file is waited
 * for (bounded) before it counts as "not built".
 */
async function distUrl(packageDir) {
  const path = join(REPO_ROOT, packageDir, 'dist', 'index.js');
  const deadline = Date.now() + DIST_WAIT_MS;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`bench: ${packageDir}/dist/index.js is missing; build first (node bench/decode/run.mjs does)`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  // A rebuild may still be writing the other files: give it a moment to finish.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return pathToFileURL(path).href;
}

/** Our three adapters, from dist. */
export async function loadAdapters() {
  const chat = await import(await distUrl('packages/adapter-chat'));
  const messages = await import(await distUrl('packages/adapter-messages'));
  const responses = await import(await distUrl('packages/adapter-responses'));
  return { chat: chat.chatAdapter, messages: messages.messagesAdapter, responses: responses.responsesAdapter };
}

/** The official SDKs, installed as devDependencies of packages/testkit. */
export async function loadSdks() {
  const testkit = fromPackage('packages/testkit');
  const [openai, anthropic] = await Promise.all([
    import(resolveEsmEntry(testkit, 'openai')),
    import(resolveEsmEntry(testkit, '@anthropic-ai/sdk')),
  ]);
  return { OpenAI: openai.default, Anthropic: anthropic.default };
}

/** eventsource-parser 3.1.1 for the floor (a devDependency of adapter-responses; the decoders frame with core's SseFramer, decision 0320). */
export async function loadEventsourceParser() {
  return import(resolveEsmEntry(fromPackage('packages/adapter-responses'), 'eventsource-parser'));
}

/** @turnguard/testkit from dist: its wire writers render the served streams. */
export async function loadTestkit() {
  return import(await distUrl('packages/testkit'));
}
