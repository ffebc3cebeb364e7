// ─── result-handles-native: main entry (FrontMCP drop-in) ───────────────────
import * as native from './native';

/** Version of the native engine this package loaded. */
export const ENGINE_VERSION: string = native.engineVersion();
