// ─── result_query benchmark ──────────────────────────────────────────────────────────────────────────────────────
// Native `queryAnswer` against a plain-JS baseline (JSON.parse + path walk + slice + JSON.stringify), reading the
// last 20 items of a 100,000-item list from the kept answer's JSON text. `queryAnswer` is not shipped: run after
//   npm run build:bench-bindings && node benchmark/query.bench.mjs
// Prints medians (ms) side by side and the ratio; the two sides must give the same answer.

import { isDeepStrictEqual } from 'node:util';
import { pathToFileURL } from 'node:url';

import { formatMs, interleaved, testBindings } from './support.mjs';

const native = testBindings();

const ITEMS = 100_000;
const THRESHOLD = 1 << 20;

/**
 * Runs each contender `runs` times, interleaved, after 3 warm-up rounds; returns medians (ms) by name.
 * @example
 * const m = await measure({ a: () => 1, b: async () => 2 }, 10);
 */
async function measure(contenders, runs) {
  const medians = await interleaved(Object.values(contenders), runs, { warmups: 3 });
  return Object.fromEntries(Object.keys(contenders).map((name, i) => [name, medians[i]]));
}

/** The plain-JS way: parse everything, walk a dot path, slice, print. */
function baseline(text, dotPath, offset, limit) {
  let node = JSON.parse(text);
  const path = ['$'];
  for (const step of dotPath.split('.')) {
    node = node[step];
    path.push(`['${step}']`);
  }
  const value = node.slice(offset, offset + limit);
  const answer = { path: path.join(''), value, total: node.length, offset };
  if (offset + limit < node.length) answer.nextOffset = offset + limit;
  return JSON.stringify(answer);
}

export async function main() {
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: i,
    name: `item ${i}`,
    price: i * 0.25,
    tags: ['a', 'b'],
    ok: i % 3 === 0,
  }));
  const text = JSON.stringify({ data: { items } });
  const buffer = Buffer.from(text);
  const offset = ITEMS - 20;
  const argsJson = JSON.stringify({ handle: 'h', path: 'data.items', offset, limit: 20 });
  const parsed = JSON.parse(text);

  const expected = baseline(text, 'data.items', offset, 20);
  const checks = [
    native.queryAnswerSync(text, argsJson, THRESHOLD),
    native.queryAnswerSync(buffer, argsJson, THRESHOLD),
    await native.queryAnswer(buffer, argsJson, THRESHOLD),
  ];
  for (const answer of checks) {
    if (!isDeepStrictEqual(JSON.parse(answer), JSON.parse(expected))) throw new Error('native and JS answers differ');
  }

  const runs = Number(process.env.BENCH_RUNS ?? 25);
  const m = await measure(
    {
      'native queryAnswerSync(string)': () => native.queryAnswerSync(text, argsJson, THRESHOLD),
      'native queryAnswerSync(Buffer)': () => native.queryAnswerSync(buffer, argsJson, THRESHOLD),
      'native await queryAnswer(Buffer)': () => native.queryAnswer(buffer, argsJson, THRESHOLD),
      'JS JSON.parse + walk + slice + stringify': () => baseline(text, 'data.items', offset, 20),
    },
    runs,
  );
  const inMemory = await measure(
    {
      'JS walk + slice + stringify, parsed object in memory': () =>
        JSON.stringify({ path: "$['data']['items']", value: parsed.data.items.slice(offset), total: ITEMS, offset }),
    },
    runs * 20,
  );

  const js = m['JS JSON.parse + walk + slice + stringify'];
  console.log(`result_query: last 20 of ${ITEMS} items, answer ${(text.length / 1e6).toFixed(1)} MB of JSON`);
  console.log(`node ${process.version}, ${runs} interleaved runs, medians`);
  for (const [name, ms] of Object.entries(m)) {
    const ratio = name.startsWith('JS') ? '' : `  ${(js / ms).toFixed(2)}x vs JS`;
    console.log(`  ${name.padEnd(44)} ${formatMs(ms, 3, 9)}${ratio}`);
  }
  for (const [name, ms] of Object.entries(inMemory)) {
    console.log(`  ${name.padEnd(44)} ${formatMs(ms, 3, 9)}  (reference: no parse)`);
  }
  return { ...m, ...inMemory };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    console.error(error);
    process.exitCode = 1;
  });
}
