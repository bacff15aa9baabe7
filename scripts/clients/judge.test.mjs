// The real-client run's request checks for R11's scenarios (judgeRequests), without the clients.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeRequests } from './judge.mjs';

const shapes = (roles) => roles.map((role) => ({ role }));

test('fallback-503 passes on three tries of the primary and one fallback, and says what differed otherwise', () => {
  assert.equal(judgeRequests('fallback-503', shapes(['main', 'main', 'main', 'fallback', 'side'])), null);
  assert.equal(judgeRequests('fallback-503', shapes(['main', 'main', 'main', 'main', 'main', 'fallback'])), 'expected the upstream to see 3 main; it saw 5 main');
});

test('cut-continued passes on one request and one continuation, never a fallback', () => {
  assert.equal(judgeRequests('cut-continued', shapes(['main', 'continuation'])), null);
  assert.equal(judgeRequests('cut-continued', shapes(['main', 'fallback'])), 'expected the upstream to see 0 fallback, 1 continuation; it saw 1 fallback, 0 continuation');
});

test('other scenarios are judged on what the person saw only', () => {
  assert.equal(judgeRequests('plain', shapes(['main', 'main'])), null);
});
