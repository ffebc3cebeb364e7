// Production Rust by size: lines in `src/` outside test files and outside `#[cfg(test)]` items (wherever they sit in
// a file), the files over 500 such lines and the functions over 80 lines. `--check` exits 1 when a limit is passed.
//
//   node scripts/rust-lines.mjs [--check]
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const LIMITS = { total: 14_500, query: 4_500, file: 500, fn: 80 };

const files = execFileSync('git', ['ls-files', 'src/*.rs'], { encoding: 'utf8' })
  .split('\n')
  .filter((path) => path && !/(^|\/)tests?(\.rs$|\/)/.test(path));

/** A line without its comment, strings and character literals (which may hold braces). */
function codeOf(line) {
  return line
    .replace(/b?'(\\.|\\x[0-9a-fA-F]{2}|[^\\'])'/g, "' '")
    .replace(/r#*"[^"]*"#*/g, '""')
    .replace(/"(\\.|[^"\\])*"/g, '""')
    .replace(/\/\/.*$/, '');
}

/** The index of the line where the item starting at `from` ends (a `;` item, or its braces balanced). */
function itemEnd(lines, from) {
  let depth = 0;
  let opened = false;
  for (let i = from; i < lines.length; i += 1) {
    const code = codeOf(lines[i]);
    if (!opened && depth === 0 && code.trimEnd().endsWith(';')) return i;
    for (const ch of code) {
      if (ch === '{') {
        depth += 1;
        opened = true;
      } else if (ch === '}') depth -= 1;
    }
    if (opened && depth <= 0) return i;
  }
  return lines.length - 1;
}

/** The file's lines without `#[cfg(test)]` items. */
function productionLines(text) {
  const lines = text.split('\n');
  const kept = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (/^\s*#\[cfg\((all\()?test\b/.test(lines[i])) {
      let j = i + 1;
      while (j < lines.length && /^\s*#\[/.test(lines[j])) j += 1;
      i = itemEnd(lines, j);
      continue;
    }
    kept.push(lines[i]);
  }
  if (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept;
}

/** Functions longer than the limit: `[name, lines]`. */
function longFunctions(lines) {
  const long = [];
  for (let i = 0; i < lines.length; i += 1) {
    const match = /^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)/.exec(lines[i]);
    if (!match) continue;
    const end = itemEnd(lines, i);
    if (end - i + 1 > LIMITS.fn) long.push([match[6], end - i + 1]);
  }
  return long;
}

let total = 0;
let query = 0;
const bigFiles = [];
const bigFunctions = [];
for (const path of files) {
  const lines = productionLines(readFileSync(path, 'utf8'));
  total += lines.length;
  if (path.startsWith('src/core/query')) query += lines.length;
  if (lines.length > LIMITS.file) bigFiles.push([path, lines.length]);
  for (const [name, length] of longFunctions(lines)) bigFunctions.push([`${path} ${name}`, length]);
}

const report = [
  `production Rust in src: ${total} lines (limit ${LIMITS.total})`,
  `  of which src/core/query: ${query} lines (limit ${LIMITS.query})`,
  `files over ${LIMITS.file} lines: ${bigFiles.length}`,
  ...bigFiles.map(([path, n]) => `  ${n} ${path}`),
  `functions over ${LIMITS.fn} lines: ${bigFunctions.length}`,
  ...bigFunctions.map(([name, n]) => `  ${n} ${name}`),
];
console.log(report.join('\n'));

if (process.argv.includes('--check')) {
  const over = total > LIMITS.total || query > LIMITS.query || bigFiles.length > 0 || bigFunctions.length > 0;
  process.exit(over ? 1 : 0);
}
