import type { UpstreamTarget } from '../adapter/protocol-adapter.js';
import { TurnError } from '../errors/turn-error.js';

/**
 * What a `refreshCredentials` hook may return (R1.7, decision 0261): the new key
 * and/or headers to send from the next request on. Returning nothing keeps
 * the target as it is (a hook that updated the target object itself still
 * works, as before).
 */
export interface RefreshedCredentials {
  apiKey?: string;
  /** Merged over the target's headers (e.g. a fresh `authorization` for a proxy). */
  headers?: Record<string, string>;
}

/** R1.7: the host's hook; may return the new credentials. */
export type RefreshCredentialsHook = () => Promise<RefreshedCredentials | void | undefined>;

/**
 * The target with the refreshed credentials applied; `undefined` returns the
 * target itself. A value of the wrong shape is a typed error (the 401/403
 * then stands, with this as its cause): never a key silently dropped.
 */
export function applyRefreshedCredentials(target: UpstreamTarget, refreshed: unknown): UpstreamTarget {
  if (refreshed === undefined) return target;
  if (typeof refreshed !== 'object' || refreshed === null || Array.isArray(refreshed)) throw badCredentials('must return an object or nothing');
  const { apiKey, headers } = refreshed as Record<string, unknown>;
  if (apiKey !== undefined && typeof apiKey !== 'string') throw badCredentials('apiKey must be a string');
  if (headers !== undefined && !isStringRecord(headers)) throw badCredentials('headers must map names to strings');
  return {
    ...target,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(headers === undefined ? {} : { headers: { ...target.headers, ...headers } }),
  };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');
}

function badCredentials(reason: string): TurnError {
  return new TurnError({ kind: 'invalid_request', code: 'INVALID_REFRESHED_CREDENTIALS', retryable: false, message: `refreshCredentials ${reason}.` });
}
