import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['__test__/**/*.spec.ts'],
    globalSetup: ['__test__/setup/global-setup.ts'],
    testTimeout: 30_000,
    // Switches on the addon's test hooks (rejectWithCode); they are inert in production.
    env: { RESULT_HANDLES_TEST_HOOKS: '1' },
    hookTimeout: 60_000,
  },
});
