import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { testBindings } from './fixtures/test-bindings';

const require = createRequire(import.meta.url);
const native = testBindings;
const pkg = require('../package.json');

describe('native binding', () => {
  it('loads the addon built from this crate', () => {
    expect(native.engineVersion()).toBe(pkg.version);
  });

  it('rejects async work with a stable code and a remedy', async () => {
    const error = await native.rejectWithCode('RESULT_PATH_NOT_FOUND').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'RESULT_PATH_NOT_FOUND', remedy: expect.stringContaining('test hook') });
    expect((error as Error).message).toContain('Deliberate failure.');
  });

  it('turns a panic into a rejected promise, and the process lives on', async () => {
    const error = await native.rejectWithCode('PANIC').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_HANDLES_INTERNAL' });
    expect(native.engineVersion()).toBe(pkg.version);
  });

  it('turns a panic in async work (after an await) into a rejected promise, and async work still runs', async () => {
    const error = await native.rejectWithCodeAsync('PANIC').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_HANDLES_INTERNAL' });
    const coded = await native.rejectWithCodeAsync('RESULT_PATH_NOT_FOUND').catch((e: unknown) => e);
    expect(coded).toMatchObject({ code: 'RESULT_PATH_NOT_FOUND', remedy: expect.stringContaining('test hook') });
    const panics = await Promise.all(
      Array.from({ length: 8 }, () => native.rejectWithCodeAsync('PANIC').catch((e: { code?: string }) => e.code)),
    );
    expect(panics).toEqual(Array(8).fill('RESULT_HANDLES_INTERNAL'));
  });

  it('turns a panic in async work finished in its first poll, on the JS thread, into a rejected promise', async () => {
    const error = await native.rejectWithCodeNow('PANIC').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_HANDLES_INTERNAL' });
    const coded = await native.rejectWithCodeNow('RESULT_PATH_NOT_FOUND').catch((e: unknown) => e);
    expect(coded).toMatchObject({ code: 'RESULT_PATH_NOT_FOUND', remedy: expect.stringContaining('test hook') });
  });

  it('keeps the test hook inert unless RESULT_HANDLES_TEST_HOOKS=1 when it is called', async () => {
    const before = process.env.RESULT_HANDLES_TEST_HOOKS;
    process.env.RESULT_HANDLES_TEST_HOOKS = '0';
    try {
      for (const hook of [native.rejectWithCode, native.rejectWithCodeAsync, native.rejectWithCodeNow]) {
        for (const code of ['PANIC', 'RESULT_PATH_NOT_FOUND']) {
          const error = await hook(code).catch((e: unknown) => e);
          expect(error).toMatchObject({
            code: 'INVALID_INPUT',
            message: expect.stringContaining('Test hooks are off'),
          });
        }
      }
    } finally {
      process.env.RESULT_HANDLES_TEST_HOOKS = before;
    }
    const error = await native.rejectWithCode('RESULT_PATH_NOT_FOUND').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RESULT_PATH_NOT_FOUND' });
  });
});
