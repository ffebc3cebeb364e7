// Runs every benchmark/*.bench.mjs, one after another, each in its own Node process.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const benches = readdirSync(here)
  .filter((name) => name.endsWith('.bench.mjs'))
  .sort();
let failed = 0;
for (const name of benches) {
  console.log(`\n── ${name} ──`);
  const run = spawnSync(process.execPath, [join(here, name)], { stdio: 'inherit' });
  if (run.status !== 0) failed += 1;
}
process.exit(failed === 0 ? 0 : 1);
