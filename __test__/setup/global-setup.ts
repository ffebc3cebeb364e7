import type { TestProject } from 'vitest/node';

import { setupSharedRedis } from './redis';

// Services the suites share are started here and torn down after the run.
// (Each service adds its own start/stop pair; see redis.ts.)
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stopRedis = await setupSharedRedis((key, value) => project.provide(key, value));
  return async () => {
    await stopRedis();
  };
}
