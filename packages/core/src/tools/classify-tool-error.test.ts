import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TurnError } from '../errors/turn-error.js';
import { classifyToolError } from './classify-tool-error.js';
import { TelemetrySafeError } from './telemetry-safe-error.js';

class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
}

describe('classifyToolError (R3.12)', () => {
  it('uses an explicitly safe message first', () => {
    const error = new TelemetrySafeError('cannot read /home/alice/secret.txt', 'read failed: permission');
    expect(classifyToolError(error)).toBe('read failed: permission');
    expect(classifyToolError(new TurnError({ kind: 'rate_limit', message: 'user text' }))).toBe('RATE_LIMIT');
  });

  it('recognises a TelemetrySafeError from another package copy by its marker', () => {
    const lookalike = Object.assign(new Error('m'), { [Symbol.for('turnguard.TelemetrySafeError')]: true, safeMessage: 'copy' });
    expect(TelemetrySafeError.isInstance(lookalike)).toBe(true);
    expect(classifyToolError(lookalike)).toBe('copy');
    expect(TelemetrySafeError.isInstance(Object.assign(new Error('m'), { safeMessage: 'not opted in' }))).toBe(false);
  });

  it('caps a safe message at 200 characters', () => {
    expect(classifyToolError(new TelemetrySafeError('m', 'x'.repeat(500)))).toHaveLength(200);
  });

  it('uses the errno code of a Node system error', () => {
    const error = Object.assign(new Error("ENOENT: no such file or directory, open '/home/alice/diary.txt'"), {
      code: 'ENOENT',
      errno: -2,
    });
    expect(classifyToolError(error)).toBe('ENOENT');
  });

  it('falls back to a custom error name, but not a generic, short or prose name', () => {
    expect(classifyToolError(new FileTooLargeError('the file /x is 9 MB'))).toBe('FileTooLargeError');
    expect(classifyToolError(new TypeError('x is not a function'))).toBe('TypeError');
    expect(classifyToolError(new Error('plain'))).toBe('unknown');
    expect(classifyToolError(Object.assign(new Error('m'), { name: 'Qe' }))).toBe('unknown');
    expect(classifyToolError(Object.assign(new Error('m'), { name: 'contents of my file' }))).toBe('unknown');
  });

  it('ignores a non-errno code (it may be anything) and non-object throws', () => {
    expect(classifyToolError(Object.assign(new Error('m'), { code: 'secret value' }))).toBe('unknown');
    expect(classifyToolError('a thrown string with user text')).toBe('unknown');
    expect(classifyToolError(undefined)).toBe('unknown');
    expect(classifyToolError(42)).toBe('unknown');
  });

  it('survives a throwing getter', () => {
    const hostile = Object.defineProperty(new Error('m'), 'code', {
      get() {
        throw new Error('boom');
      },
    });
    expect(classifyToolError(hostile)).toBe('unknown');
  });

  it('property: never contains the message text of the error', () => {
    const userText = fc.string({ minLength: 1 }).map((text) => `user said: ${text}`);
    fc.assert(
      fc.property(userText, (text) => {
        const candidates: unknown[] = [
          new Error(text),
          new RangeError(text),
          Object.assign(new Error(text), { code: text }),
          Object.assign(new Error(text), { name: text }),
          text,
          { message: text, name: text, code: text },
        ];
        for (const candidate of candidates) expect(classifyToolError(candidate)).not.toContain(text);
      }),
      { numRuns: 200 },
    );
  });
});
