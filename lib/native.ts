// The generated napi loader (binding.js, written by `napi build`) is the only door to the native engine.
// Everything else imports the engine from here, so the path to it is written once. A re-export (not `export =`)
// so that the ESM declaration tree (dist/*.d.mts) can carry it too.
import './platform'; // first: a clear error when this platform has no addon, before the generated loader's
export * from '../binding.js';
