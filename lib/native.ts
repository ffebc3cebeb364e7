// The generated napi loader (binding.js, written by `napi build`) is the only door to the native engine.
// Everything else imports the engine from here, so the path to it is written once.
import * as native from '../binding.js';

export = native;
