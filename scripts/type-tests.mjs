// Type tests (`npm run test:types`, part of `npm test`): strict apps compiled with `tsc --noEmit` against the built
// package as an app would resolve it (package.json "exports", CommonJS and ESM declarations):
//   __test__/types/frontmcp-app  — FrontMCP 1.5.x, CommonJS, the package installed as @frontmcp/plugin-result-handles
//   __test__/types/mcp-esm-app   — MCP TypeScript SDK, ESM NodeNext
// Every ```ts block of README.md is compiled too: each is preceded by `<!-- type-checked: <app> -->` and is written
// into that app as readme-<n>.ts, so the README's code cannot drift from what compiles. A ts block without the marker
// fails the run.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const typesDir = join(root, '__test__', 'types');
const apps = readdirSync(typesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
  .map((entry) => entry.name);

// Packages as an app sees them: this package under both names, and the FrontMCP SDK's test double.
const links = {
  'result-handles-native': root,
  '@frontmcp/plugin-result-handles': root,
  '@frontmcp/sdk': join(root, '__test__', 'fixtures', 'frontmcp-sdk'),
};
const modulesDir = join(typesDir, 'node_modules');
rmSync(modulesDir, { recursive: true, force: true });
for (const [name, target] of Object.entries(links)) {
  const link = join(modulesDir, name);
  mkdirSync(dirname(link), { recursive: true });
  symlinkSync(relative(dirname(link), target), link, 'dir');
}

/** The README's ts blocks, each with the app its marker names. */
function readmeBlocks() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [];
  const fence = /(?:<!-- type-checked: ([\w-]+) -->\n\n?)?```ts\n([\s\S]*?)```/g;
  for (const match of readme.matchAll(fence)) {
    const line = readme.slice(0, match.index).split('\n').length;
    if (!match[1]) throw new Error(`README.md:${line}: a ts block without <!-- type-checked: <app> --> above it`);
    if (!apps.includes(match[1])) throw new Error(`README.md:${line}: no type-test app named ${match[1]}`);
    blocks.push({ app: match[1], line, code: match[2] });
  }
  return blocks;
}

for (const app of apps) {
  for (const file of readdirSync(join(typesDir, app))) {
    if (/^readme-\d+\.ts$/.test(file)) rmSync(join(typesDir, app, file));
  }
}
const blocks = readmeBlocks();
for (const [index, block] of blocks.entries()) {
  const header = `// Generated from README.md:${block.line} by scripts/type-tests.mjs; edit the README.\n`;
  writeFileSync(join(typesDir, block.app, `readme-${index + 1}.ts`), header + block.code);
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const app of apps) {
  const fromReadme = blocks.filter((block) => block.app === app).length;
  console.log(`[types] tsc --noEmit -p __test__/types/${app} (${fromReadme} README block(s))`);
  execFileSync(process.execPath, [tsc, '--noEmit', '-p', join(typesDir, app)], { stdio: 'inherit' });
}
