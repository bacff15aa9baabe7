/**
 * R10.1 for the gateway's config file: every JSON block of its README that is
 * a config file (all its keys are config keys) is accepted by the same
 * validation `turnguard serve --config` runs, so a reader can copy it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG, resolveGatewayConfig } from '../../apps/gateway/src/config/gateway-config.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'apps/gateway/README.md'), 'utf8');
const CONFIG_KEYS = new Set([...Object.keys(DEFAULT_GATEWAY_CONFIG), 'authToken']);

const configBlocks = [...README.matchAll(/```json\n([\s\S]*?)```/g)]
  .map((match) => JSON.parse(match[1]!) as Record<string, unknown>)
  .filter((block) => Object.keys(block).every((key) => CONFIG_KEYS.has(key)));

describe('the gateway README\'s config file examples (R10.1, R11.1)', () => {
  it('has the routing example', () => {
    expect(configBlocks.some((block) => 'routing' in block)).toBe(true);
  });

  it.each(configBlocks.map((block) => [Object.keys(block).join(', '), block] as const))('{ %s } is a valid config file', (_keys, block) => {
    const config = resolveGatewayConfig(block);
    if ('routing' in block) expect(Object.keys(config.routing.upstreams).length).toBeGreaterThan(0);
  });
});
