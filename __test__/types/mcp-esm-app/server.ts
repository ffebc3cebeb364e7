// A strict ESM app (NodeNext) on the official MCP TypeScript SDK. Compiled with `tsc --noEmit`; no casts. The
// McpServer it passes is the SDK's ESM class, which the package's ESM declarations (.d.mts) must accept.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createResultHandles, foldable, withResultHandles, type ResultHandles } from 'result-handles-native/mcp';
import ResultHandlesPlugin, { type ResultHandlesPluginRecord, foldedAnswerSchema } from 'result-handles-native';

const handles: ResultHandles = createResultHandles({ thresholdBytes: 4096 }, { logger: console });

const server = new McpServer({ name: 'types', version: '1.0.0' });
const Order = z.object({ id: z.number(), status: z.string() });
server.registerTool(
  'orders',
  { description: 'Orders', outputSchema: foldable(z.object({ orders: z.array(Order), total: z.number() })) },
  async () => ({
    content: [{ type: 'text', text: '{"orders":[],"total":0}' }],
    structuredContent: { orders: [], total: 0 },
  }),
);
handles.attach(server, { connectionSession: 'auto' });

const single = withResultHandles(new McpServer({ name: 'single', version: '1.0.0' }), { storage: { type: 'memory' } });
await single.close();

// The default import from ESM is the plugin itself (not a namespace whose `.default` holds it).
const record: ResultHandlesPluginRecord = ResultHandlesPlugin.init({ storage: { type: 'memory' } });
export const folded: z.infer<typeof foldedAnswerSchema> = { preview: null, shape: {}, handle: record.name };

// @ts-expect-error attach takes an McpServer, not any object
handles.attach({ name: 'not a server' });
