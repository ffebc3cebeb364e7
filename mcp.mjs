export * from './dist/mcp.js';
