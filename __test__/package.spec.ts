// The package as npm ships it, and the smaller promises of issue 9: the platform package layout and the loader's
// error on other platforms, shipped docs, the README's demo transcript, foldable()'s refusals, the store's coded
// errors and TTL cap.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const readme = readFileSync(`${root}README.md`, 'utf8');

const pkg = require('../dist/index.js');
const { addonProblem, prebuiltPlatforms } = require('../dist/platform.js');
const { foldable } = require('../dist/mcp.js');

/** What `npm pack` would put in the main tarball. */
function packedFiles(): string[] {
  // On Windows npm is npm.cmd, which Node starts only through a shell.
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  return JSON.parse(out)[0].files.map((file: { path: string }) => file.path);
}

/** Loads the package in a child Node that reports another platform. */
function loadAs(platform: string, arch: string): { code?: string; message: string } {
  const script = `
    Object.defineProperty(process, 'platform', { value: ${JSON.stringify(platform)} });
    Object.defineProperty(process, 'arch', { value: ${JSON.stringify(arch)} });
    try { require(${JSON.stringify(`${root}dist/index.js`)}); console.log(JSON.stringify({ message: 'loaded' })); }
    catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

describe('npm packaging (napi-rs layout)', () => {
  it('has a platform package in npm/ for each napi target, at this version (pre-publish lists them as optional)', () => {
    // What npm matches against the machine: process.platform, process.arch, and the C library on Linux.
    const fits: Record<string, [string[], string[], string[] | undefined]> = {
      'darwin-arm64': [['darwin'], ['arm64'], undefined],
      'darwin-x64': [['darwin'], ['x64'], undefined],
      'linux-arm64-gnu': [['linux'], ['arm64'], ['glibc']],
      'linux-arm64-musl': [['linux'], ['arm64'], ['musl']],
      'linux-x64-gnu': [['linux'], ['x64'], ['glibc']],
      'linux-x64-musl': [['linux'], ['x64'], ['musl']],
      'win32-x64-msvc': [['win32'], ['x64'], undefined],
    };
    const platforms = prebuiltPlatforms(manifest);
    expect(platforms).toEqual(Object.keys(fits));
    expect(readdirSync(`${root}npm`).sort()).toEqual(platforms);
    for (const platform of platforms) {
      const sub = JSON.parse(readFileSync(`${root}npm/${platform}/package.json`, 'utf8'));
      expect(sub.name).toBe(`${manifest.name}-${platform}`);
      expect(sub.version).toBe(manifest.version);
      expect(sub.main).toBe(`${manifest.napi.binaryName}.${platform}.node`);
      expect(sub.files).toEqual([sub.main]);
      expect([sub.os, sub.cpu, sub.libc], platform).toEqual(fits[platform]);
    }
  });

  it('keeps the .node out of the main tarball, and ships the docs the README links to', () => {
    const files = packedFiles();
    expect(files.filter((file) => file.endsWith('.node'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['dist/index.d.mts', 'dist/mcp.d.mts', 'CHANGELOG.md']));
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]);
    const relative = links.filter((link) => !/^[a-z]+:/.test(link));
    expect(relative.length).toBeGreaterThan(3);
    for (const link of relative) expect(files, link).toContain(link);
  });

  it('on a platform without a prebuilt addon, says which platforms exist (not the npm optional-dependency text)', () => {
    const outcome = loadAs('freebsd', 'x64');
    expect(outcome.code).toBe('UNSUPPORTED_PLATFORM');
    expect(outcome.message).toContain('no prebuilt addon for freebsd-x64');
    expect(outcome.message).toContain(
      'Prebuilt addons exist for: darwin-arm64, darwin-x64, linux-arm64-gnu, linux-arm64-musl, linux-x64-gnu, linux-x64-musl, win32-x64-msvc.',
    );
    expect(outcome.message).not.toContain('npm has a bug');
  });

  it('on a listed platform whose package was not installed, names the package to install', () => {
    const problem = addonProblem(
      manifest,
      'linux-x64-gnu',
      () => false,
      () => false,
    );
    expect(problem.code).toBe('ADDON_NOT_INSTALLED');
    expect(problem.message).toContain(`npm install ${manifest.name}-linux-x64-gnu@${manifest.version}`);
    expect(
      addonProblem(
        manifest,
        'linux-x64-gnu',
        () => false,
        () => true,
      ),
    ).toBeUndefined();
    expect(
      addonProblem(
        manifest,
        'linux-x64-musl',
        () => true,
        () => false,
      ),
    ).toBeUndefined(); // built from source
  });

  it('declares the toolchain a contributor needs: rust-version in Cargo.toml, Node in engines', () => {
    const cargo = readFileSync(`${root}Cargo.toml`, 'utf8');
    expect(cargo).toMatch(/^rust-version = "1\.\d+"$/m);
    expect(manifest.engines.node).toBe('>= 20');
    expect(manifest.peerDependencies.zod).toBe('^3.25.0 || ^4.0.0');
  });
});

describe('the README', () => {
  it("shows the demo's real transcript (… stands for a handle or elided text)", () => {
    const output = execFileSync(process.execPath, [`${root}examples/demo.mjs`], { encoding: 'utf8', cwd: root });
    const block = readme.match(/```text\n(── [\s\S]*?)```/);
    expect(block, 'the demo transcript block').toBeTruthy();
    const entries = block![1].trim().split(/\n\n(?=── )/);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const entry of entries) {
      const pattern = entry
        .trim()
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^\\n]*?');
      expect(output, entry).toMatch(new RegExp(pattern));
    }
    expect(output).toContain('"_meta":{"code":"RESULT_HANDLE_NOT_FOUND"}');
  });
});

describe('foldable() refuses what it cannot widen, with a code', () => {
  it('a union (which McpServer cannot list) or an array is refused, not a TypeError from inside zod', () => {
    const union = z.union([z.object({ a: z.number() }), z.object({ b: z.string() })]);
    for (const schema of [union, z.array(z.number())]) {
      let thrown: unknown;
      try {
        foldable(schema as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(TypeError);
      expect((thrown as { code?: string }).code).toBe('FOLDABLE_UNSUPPORTED_SCHEMA');
      expect((thrown as Error).message).toMatch(/z\.object\(\.\.\.\) or a raw shape/);
      expect((thrown as Error).message).not.toContain('is not a function');
    }
  });

  it('a zod 3 schema is refused with the zod/v4 advice; a raw shape with a non-schema value is refused', () => {
    const zod3Like = { _def: { typeName: 'ZodObject' }, shape: { id: {} }, safeParse: () => ({ success: true }) };
    expect(() => foldable(zod3Like as never)).toThrow(/zod\/v4/);
    expect(() => foldable({ id: 42 } as never)).toThrow(
      expect.objectContaining({ code: 'FOLDABLE_UNSUPPORTED_SCHEMA' }),
    );
    expect(foldable({ id: z.number() }).safeParse({ id: 1 }).success).toBe(true);
  });
});

describe('createResultHandleStore errors', () => {
  it('configuration errors are ResultHandlesConfigurationError with every problem in `problems`', async () => {
    const error = await pkg
      .createResultHandleStore({ storage: { type: 'memory' }, namespace: '', ttlSeconds: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(pkg.ResultHandlesConfigurationError);
    expect(error.code).toBe('RESULT_HANDLES_CONFIGURATION');
    expect(error.problems).toHaveLength(2);
    expect(error.problems.join(' ')).toMatch(/namespace.*ttlSeconds/);
    for (const problem of error.problems) expect(error.message).toContain(problem);
    expect(error.remedy).toBeTruthy();
  });

  it('native store failures are ResultHandleStoreError, with code and remedy', async () => {
    const error = await pkg
      .createResultHandleStore({
        storage: { type: 'redis', redis: { url: 'redis://127.0.0.1:1' } },
        namespace: 'unreachable',
        ttlSeconds: 60,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(pkg.ResultHandleStoreError);
    expect(error.code).toBe('RESULT_STORE_UNAVAILABLE');
    expect(error.remedy).toBeTruthy();
    expect(error.message).toContain(error.remedy);
  });

  it('caps ttlSeconds at one year, the same for the plugin options and the store', async () => {
    const year = 365 * 24 * 60 * 60;
    expect(pkg.normalizeOptions({ ttlSeconds: year }).ttlSeconds).toBe(year);
    const store = await pkg.createResultHandleStore({
      storage: { type: 'memory' },
      namespace: 'cap',
      ttlSeconds: year,
    });
    expect(store.ttlSeconds).toBe(year);
    await store.onShutdown();

    expect(() => pkg.normalizeOptions({ ttlSeconds: year + 1 })).toThrow(pkg.ResultHandlesConfigurationError);
    const refused = await pkg
      .createResultHandleStore({ storage: { type: 'memory' }, namespace: 'cap', ttlSeconds: year + 1 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(pkg.ResultHandlesConfigurationError);
    expect(() => new pkg.ResultHandleStore({ get() {}, set() {}, delete() {} }, year + 1)).toThrow(
      pkg.ResultHandlesConfigurationError,
    );
  });
});
