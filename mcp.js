'use strict';
// For resolvers that ignore package.json "exports" (older bundlers): `result-handles-native/mcp`.
module.exports = require('./dist/mcp.js');
