// A strict FrontMCP 1.5.x app (CommonJS, NodeNext) that installed the package under the TS plugin's name. Compiled
// with `tsc --noEmit` against the mirrored SDK declarations (__test__/fixtures/frontmcp-sdk/index.d.ts); no casts.
import { App, FrontMcp, type PluginType } from '@frontmcp/sdk';
import ResultHandlesPlugin, {
  ResultHandlesPlugin as NamedPlugin,
  type ResultHandlesPluginRecord,
  createResultHandleStore,
  ResultHandleStoreError,
  ResultHandlesConfigurationError,
} from '@frontmcp/plugin-result-handles';

const shared: ResultHandlesPluginRecord = NamedPlugin.init({ thresholdBytes: 8192, storage: { type: 'memory' } });

@App({ name: 'billing', plugins: [shared] })
class BillingApp {}

@App({
  name: 'shop',
  plugins: [ResultHandlesPlugin.init({ ttlSeconds: 3600, preview: { items: 3 }, storage: { type: 'auto' } })],
})
class ShopApp {}

@FrontMcp({
  info: { name: 'types', version: '1.0.0' },
  apps: [BillingApp, ShopApp],
  plugins: [ResultHandlesPlugin.init()],
})
export default class Server {}

// The mirror is strict where the SDK is: a record typed `unknown` (what init() used to declare) is refused.
declare const untyped: unknown;
// @ts-expect-error TS2322: Type 'unknown' is not assignable to type 'PluginType'.
export const refused: PluginType = untyped;

// Options are typed, not `any`: an unknown key or a wrong type does not compile.
// @ts-expect-error thresholdBytes is a number
ResultHandlesPlugin.init({ thresholdBytes: '16k' });
// @ts-expect-error no such option
ResultHandlesPlugin.init({ tresholdBytes: 16_384 });

export async function openStore(): Promise<void> {
  try {
    const store = await createResultHandleStore({ storage: { type: 'memory' }, namespace: 'types', ttlSeconds: 60 });
    await store.onShutdown();
  } catch (error) {
    if (error instanceof ResultHandlesConfigurationError) console.error(error.problems.join('\n'));
    else if (error instanceof ResultHandleStoreError) console.error(error.code, error.remedy);
    else throw error;
  }
}
