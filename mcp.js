'use strict';
module.exports = require('./dist/mcp.js');
