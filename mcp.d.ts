// For resolvers that ignore package.json "exports" (moduleResolution node10): `result-handles-native/mcp`.
export * from './dist/mcp';
