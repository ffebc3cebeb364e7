// Writes an ESM declaration tree (dist/**/*.d.mts) beside the CommonJS one tsc emits (dist/**/*.d.ts).
//
// Why: the `import` entries (index.mjs, mcp.mjs) are ES modules, and TypeScript resolves a dependency's own imports
// in the mode of the file that holds them. Declarations in .d.ts files of a package without "type": "module" are read
// as CommonJS, so `@modelcontextprotocol/sdk/server/mcp.js` and `zod` resolved to their CommonJS declarations,
// whose classes an ESM app cannot pass in (McpServer's private members differ). Each .d.mts is the same text with
// its relative imports pointed at the sibling .d.mts files, so every import in the tree resolves as ESM.
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const distDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

function declarationFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarationFiles(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `./x` or `./x.js` → `./x.mjs` when dist holds `x.d.ts` (so also `x.d.mts`); anything else is left as is. */
function esmSpecifier(file, specifier) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return specifier;
  const bare = specifier.replace(/\.js$/, '');
  const target = resolve(dirname(file), bare);
  if (!target.startsWith(distDir) || !existsSync(`${target}.d.ts`)) return specifier;
  return `${bare}.mjs`;
}

const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|^import\s+)(['"])([^'"]+)\2/gm;

let written = 0;
for (const file of declarationFiles(distDir)) {
  const text = readFileSync(file, 'utf8');
  const esm = text.replace(SPECIFIER, (_, lead, quote, spec) => `${lead}${quote}${esmSpecifier(file, spec)}${quote}`);
  writeFileSync(file.replace(/\.d\.ts$/, '.d.mts'), esm);
  written += 1;
}
console.log(`[esm-types] wrote ${written} .d.mts files in dist/`);
