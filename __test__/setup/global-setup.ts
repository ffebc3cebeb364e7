// Services the suites share are started here and torn down after the run.
// (Each service adds its own start/stop pair; see redis.ts when present.)
export default async function setup(): Promise<() => Promise<void>> {
  return async () => {};
}
