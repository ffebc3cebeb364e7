// docs/ARCHITECTURE.md names functions "`name` in `path`": each must still exist there, so a rename fails here
// until the doc follows.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const doc = readFileSync(join(root, 'docs/ARCHITECTURE.md'), 'utf8');
// Line breaks inside a sentence are spaces for this purpose.
const references = [...doc.replace(/\s+/g, ' ').matchAll(/`([A-Za-z_][\w.]*)` in `([\w./-]+)`/g)].map(
  ([, name, path]) => ({ name, path }),
);

/** A napi method is `prepareAnswer` in JS and `prepare_answer` in Rust: either spelling counts in a .rs file. */
function spellings(segment: string, path: string): string[] {
  const snake = segment.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return path.endsWith('.rs') && snake !== segment ? [segment, snake] : [segment];
}

function definesEverySegment(source: string, name: string, path: string): boolean {
  return name
    .split('.')
    .every((segment) => spellings(segment, path).some((spelling) => new RegExp(`\\b${spelling}\\b`).test(source)));
}

describe('docs/ARCHITECTURE.md', () => {
  it('names functions the way the check reads them', () => {
    expect(references.length).toBeGreaterThan(20);
  });

  it.each(references)('`$name` is in `$path`', ({ name, path }) => {
    const file = join(root, path);
    expect(existsSync(file), `${path} does not exist`).toBe(true);
    expect(definesEverySegment(readFileSync(file, 'utf8'), name, path), `${name} is not in ${path}`).toBe(true);
  });
});
