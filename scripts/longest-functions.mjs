// The longest functions of a source tree, by lines from their first to their
// last line (signature and closing brace included), test files left out:
// a size check for code a newcomer has to read at once (CONTRIBUTING.md).
//
//   node scripts/longest-functions.mjs [dir=packages/core/src] [count=10]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const [dir = 'packages/core/src', count = '10'] = process.argv.slice(2);

function* sourceFiles(root) {
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.test(-helper)?\.ts$/.test(name)) yield path;
  }
}

function nameOf(node, source) {
  if (node.name !== undefined) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isPropertyAssignment(parent))) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

function enclosingClass(node) {
  for (let at = node.parent; at !== undefined; at = at.parent) if (ts.isClassLike(at)) return at.name?.text;
  return undefined;
}

const found = [];
for (const path of sourceFiles(dir)) {
  const text = readFileSync(path, 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const owner = enclosingClass(node);
      found.push({ lines: last - first + 1, name: `${owner === undefined ? '' : `${owner}.`}${nameOf(node, source)}`, at: `${relative(process.cwd(), path)}:${first + 1}` });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
found.sort((a, b) => b.lines - a.lines);
for (const { lines, name, at } of found.slice(0, Number(count))) process.stdout.write(`${String(lines).padStart(4)}  ${name}  (${at})\n`);
