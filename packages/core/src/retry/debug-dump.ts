import { TurnError } from '../errors/turn-error.js';
import { readHttpErrorBody } from '../errors/http-error-response.js';
import { collectCredentialValues, redactCredentials } from './redact-credentials.js';
import type { UpstreamTarget } from '../adapter/protocol-adapter.js';

/** One 400 debug dump (R1.10), already free of credentials. */
export interface DebugDump {
  version: 1;
  createdAt: string;
  status: number | undefined;
  kind: string;
  code: string;
  requestId: string | undefined;
  /** The request as `describeRequest()` gave it: messages, model settings… */
  request: unknown;
  /** The upstream error body: parsed JSON when it was JSON, else its text. */
  errorBody: unknown;
}

/**
 * R1.10 wiring. Core's main entry must not touch node:fs, so the writer is
 * injected; `createTempDirDebugDumpWriter()` from `@turnguard/core/node` is
 * the Node one (OS temp dir, `turnguard/`, mode 0600).
 */
export interface DebugDumpOptions {
  /** The request that got the 400; called only when a dump is written. */
  describeRequest: () => unknown;
  /** Persists the dump and returns where (a file path). */
  write: (dump: DebugDump) => Promise<string>;
  /** Credential values of the request, replaced wherever they appear (an upstream may echo them in any shape). */
  secrets?: readonly string[];
}

/** runTurn's hook: the dump also redacts the target's own key and credential headers by value (R1.10, R4.10). */
export function withTargetSecrets<T extends { debugDump?: DebugDumpOptions | undefined }>(retry: T, target: UpstreamTarget): T {
  if (retry.debugDump === undefined) return retry;
  const secrets = [...(retry.debugDump.secrets ?? []), ...collectCredentialValues(target)];
  return { ...retry, debugDump: { ...retry.debugDump, secrets } };
}

/** The dump for an error, redacted recursively. */
export function createDebugDump(error: TurnError, request: unknown, now: number, secrets: readonly string[] = []): DebugDump {
  return {
    version: 1,
    createdAt: new Date(now).toISOString(),
    status: error.status,
    kind: error.kind,
    code: error.code,
    requestId: error.requestId,
    request: redactCredentials(request, secrets),
    errorBody: redactCredentials(parseBody(readHttpErrorBody(error)), secrets),
  };
}

/**
 * Writes the dump and returns the error with `details.debugDumpPath`. A dump
 * that cannot be built or written never hides the 400 itself: the original
 * error comes back, marked `debugDumpFailed`.
 */
export async function attachDebugDump(error: TurnError, options: DebugDumpOptions, now: number): Promise<TurnError> {
  try {
    const path = await options.write(createDebugDump(error, options.describeRequest(), now, options.secrets));
    return error.with({ details: { ...error.details, debugDumpPath: path } });
  } catch {
    return error.with({ details: { ...error.details, debugDumpFailed: true } });
  }
}

function parseBody(bodyText: string | undefined): unknown {
  if (bodyText === undefined) return undefined;
  try {
    return JSON.parse(bodyText) as unknown;
  } catch {
    return bodyText;
  }
}
