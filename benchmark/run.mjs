// `npm run bench`: issue 8's table (benchmark/fold-path.bench.mjs: the fold path through McpServer + Client beside
// no plugin and a lean plain-JS fold), then the result_query benchmarks (query, slice, jsonpath, hostile), each in its
// own Node process.
// The others (fold, seal, references, storage) run on their own: `node benchmark/<name>.bench.mjs`.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const benches = [
  ['fold-path.bench.mjs', ['--expose-gc']],
  ['query.bench.mjs', []],
  ['slice.bench.mjs', []],
  ['jsonpath.bench.mjs', ['--expose-gc']],
  ['hostile.bench.mjs', []],
];
let failed = 0;
for (const [name, flags] of benches) {
  console.log(`\n── ${name} ──`);
  const run = spawnSync(process.execPath, [...flags, join(here, name)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
