export * from './dist/mcp.mjs';
