/**
 * A comment that says "decision NNNN" sends the reader to
 * `docs/decisions/NNNN-*.md`. Decisions are folded when superseded, so a
 * number can stop existing while code still cites it: this fails on every
 * such dangling reference in the sources, tests and docs of apps/,
 * packages/, bench/, scripts/ and docs/ (CONTRIBUTING.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCANNED = /\.(?:ts|mts|cts|js|mjs|cjs|md)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.turbo']);

/** The four-digit numbers of the decision records that exist. */
function knownDecisions(): Set<string> {
  return new Set(readdirSync(join(ROOT, 'docs/decisions')).flatMap((name) => /^(\d{4})-/.exec(name)?.[1] ?? []));
}

/** One reference to a decision that has no record. */
export interface DanglingReference {
  line: number;
  decision: string;
}

/**
 * Every decision number a text cites: "decision 0320", "decisions 0234, 0235",
 * "decisions 0340–0342" (each number of a range's ends), "docs/decisions/0030",
 * also when a comment wraps between the word and the number.
 */
export function citedDecisions(text: string): Array<{ line: number; decision: string }> {
  const cited: Array<{ line: number; decision: string }> = [];
  // A comment's line leader between the word and its numbers does not break the reference.
  const pattern = /\b[Dd]ecisions?(?:\/|(?:\s*(?:\*|\/\/|#)?\s*)+)((?:\d{4}(?:\s*[–-]\s*\d{4})?(?:\s*,\s*|\s+and\s+|\s*\/\s*)?)+)/g;
  for (const match of text.matchAll(pattern)) {
    const line = text.slice(0, match.index).split('\n').length;
    for (const number of match[1]!.matchAll(/\d{4}/g)) cited.push({ line, decision: number[0] });
  }
  return cited;
}

export function danglingReferences(text: string, known: Set<string>): DanglingReference[] {
  return citedDecisions(text).filter((reference) => !known.has(reference.decision));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory()) return SKIPPED_DIRS.has(entry.name) ? [] : sourceFiles(join(dir, entry.name));
    return SCANNED.test(entry.name) ? [join(dir, entry.name)] : [];
  });
}

describe('decision references', () => {
  it('reads the forms the code uses, across a wrapped comment', () => {
    const text = ['// decision 0320, decisions 0234, 0235 and 0236', ' * as measured (decision', ' * 0204), see decisions 0340–0342', 'docs/decisions/0030'].join('\n');
    expect(citedDecisions(text).map((reference) => reference.decision)).toEqual(['0320', '0234', '0235', '0236', '0204', '0340', '0342', '0030']);
    expect(danglingReferences(text, new Set(['0320', '0234', '0235', '0236', '0340', '0342', '0030']))).toEqual([{ line: 2, decision: '0204' }]);
  });

  it('every "decision NNNN" in apps/, packages/, bench/, scripts/ and docs/ names a record in docs/decisions', () => {
    const known = knownDecisions();
    expect(known.size).toBeGreaterThan(20);
    const files = ['apps', 'packages', 'bench', 'scripts', 'docs'].flatMap((group) => sourceFiles(join(ROOT, group)));
    expect(files.length).toBeGreaterThan(100);
    const dangling = files.flatMap((file) =>
      danglingReferences(readFileSync(file, 'utf8'), known).map((reference) => `${relative(ROOT, file)}:${reference.line}: decision ${reference.decision}`),
    );
    expect(dangling).toEqual([]);
  });
});
