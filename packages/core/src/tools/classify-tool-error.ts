import { TurnError } from '../errors/turn-error.js';
import { TelemetrySafeError } from './telemetry-safe-error.js';

const MAX_CLASSIFICATION_LENGTH = 200;
const MAX_NAME_LENGTH = 60;
/** Node system-error codes: ENOENT, EACCES, ECONNRESET… */
const ERRNO_CODE = /^E[A-Z][A-Z0-9_]{1,30}$/;
/** A class name, not prose: guards against a `name` someone filled with text. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A telemetry label for a tool failure that never carries message text,
 * which may contain file contents, paths or prompts (R3.12, R4.10). In order:
 * 1. an explicitly safe message: `TelemetrySafeError.safeMessage`, or a
 *    `TurnError`'s stable `code`;
 * 2. the errno code of a Node system error (`ENOENT`);
 * 3. the error's class name, if it is a real identifier other than `Error`
 *    and longer than 3 characters (minified bundles shorten class names to
 *    meaningless ones, R4.10 still holds: no message text);
 * 4. `unknown`.
 */
export function classifyToolError(error: unknown): string {
  if (TelemetrySafeError.isInstance(error)) return error.safeMessage.slice(0, MAX_CLASSIFICATION_LENGTH);
  if (TurnError.isInstance(error)) return error.code;
  if (typeof error !== 'object' || error === null) return 'unknown';

  const code = readProperty(error, 'code');
  if (typeof code === 'string' && ERRNO_CODE.test(code)) return code;

  const name = readProperty(error, 'name');
  if (typeof name === 'string' && name !== 'Error' && name.length > 3 && name.length <= MAX_NAME_LENGTH && IDENTIFIER.test(name)) {
    return name;
  }
  return 'unknown';
}

/** Reads a property without letting a throwing getter escape. */
function readProperty(target: object, key: string): unknown {
  try {
    return (target as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}
