// ESM entry: re-exports the CommonJS build so `import` and `require` share one instance (one set of Symbol tokens).
import cjs from './dist/index.js';

export * from './dist/index.js';
export default cjs.default;
