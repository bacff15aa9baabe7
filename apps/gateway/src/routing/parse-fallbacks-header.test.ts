import { describe, expect, it } from 'vitest';
import { errorOf } from '../testing/error-of.test-helper.js';
import { parseFallbacksHeader } from './parse-fallbacks-header.js';

describe('R11.1 x-turnguard-fallbacks', () => {
  it.each([
    ['absent', undefined, undefined],
    ['JSON array', '["gpt-4.1","claude-haiku-4-5"]', ['gpt-4.1', 'claude-haiku-4-5']],
    ['JSON array with spaces', ' [ "gpt-4.1" , "o3" ] ', ['gpt-4.1', 'o3']],
    ['comma-separated', 'gpt-4.1, claude-haiku-4-5 ,o3', ['gpt-4.1', 'claude-haiku-4-5', 'o3']],
    ['one name', 'gpt-4.1', ['gpt-4.1']],
    ['empty array: no fallback', '[]', []],
    ['empty value: no fallback', '  ', []],
    ['repeated header lines are one list', ['a', 'b,c'], ['a', 'b', 'c']],
    ['provider-prefixed names', 'openrouter/anthropic/claude-sonnet-4.5,deepseek-chat', ['openrouter/anthropic/claude-sonnet-4.5', 'deepseek-chat']],
  ])('%s', (_name, value, expected) => {
    expect(parseFallbacksHeader(value as string | string[] | undefined)).toEqual(expected);
  });

  it.each([
    ['broken JSON', '["a",', 'x-turnguard-fallbacks: the value starts with "[" but is not a JSON array; send ["model-a","model-b"] or model-a,model-b.'],
    ['a number in the array', '["a", 3]', 'x-turnguard-fallbacks: entry 2 must be a model name (a string).'],
    ['an empty entry', 'a,,b', 'x-turnguard-fallbacks: entry 2 is empty.'],
    ['a star', 'a,*', 'x-turnguard-fallbacks: entry 2 is not a model name.'],
    ['a comma inside a JSON entry', '["a,b"]', 'x-turnguard-fallbacks: entry 1 is not a model name.'],
    ['too many', 'a,b,c,d,e,f,g,h,i', 'x-turnguard-fallbacks: at most 8 fallbacks, got 9.'],
    ['an object', '[{"model":"a"}]', 'x-turnguard-fallbacks: entry 1 must be a model name (a string).'],
  ])('%s is a typed 400 that names the entry', (_name, value, message) => {
    const error = errorOf(() => parseFallbacksHeader(value));
    expect(error).toMatchObject({ kind: 'invalid_request', code: 'GATEWAY_INVALID_FALLBACKS_HEADER', status: 400, retryable: false, message });
  });

  it('an entry is never echoed back', () => {
    const error = errorOf(() => parseFallbacksHeader('["MARKER-secret-looking\\u0001"]'));
    expect(error.message).not.toContain('MARKER');
  });
});
