export * from './dist/mcp';
