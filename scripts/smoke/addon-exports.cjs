// The packed addon exports what lib/ uses: each of its functions and constants is named in dist/ (the compiled
// lib/), and the members only specs call (feature test-bindings) are absent from its classes.
// Usage: node scripts/smoke/addon-exports.cjs <addon.node> <dist dir>
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const [addonPath, distDir] = process.argv.slice(2);
const addon = require(addonPath);
const dist = readdirSync(distDir, { recursive: true })
  .filter((file) => String(file).endsWith('.js'))
  .map((file) => readFileSync(join(distDir, String(file)), 'utf8'))
  .join('\n');

const isClass = (value) => typeof value === 'function' && /^class\b|^function [A-Z]/.test(String(value));
const unused = Object.keys(addon).filter(
  (name) => !name.startsWith('__') && !isClass(addon[name]) && !new RegExp(`\\b${name}\\b`).test(dist),
);
const testMembers = [['NativeHandleStore', ['open'], ['backend', 'newHandle', 'storageKey', 'readRange']]].flatMap(
  ([cls, statics, methods]) => [
    ...statics.filter((name) => name in addon[cls]).map((name) => `${cls}.${name}`),
    ...methods.filter((name) => name in addon[cls].prototype).map((name) => `${cls}#${name}`),
  ],
);
// Named in dist/ as a FitPlan getter, so the check above cannot tell the test binding of that name apart.
const homonyms = ['foldedJson'].filter((name) => name in addon);
const found = [...unused, ...homonyms, ...testMembers];
if (found.length > 0) {
  console.error(`[pack] the packed addon exports what lib/ never calls: ${found.join(', ')}`);
  process.exit(1);
}
console.log(`[pack] the packed addon's ${Object.keys(addon).length} exports are all lib/'s`);
