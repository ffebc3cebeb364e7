// ─── result-handles-native/mcp: adapter for the official MCP TypeScript SDK ─
export {};
