export * from './dist/index.mjs';
export { default } from './dist/index.mjs';
