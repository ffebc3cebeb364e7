export * from './dist/index';
export { default } from './dist/index';
