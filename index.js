'use strict';
// Thin CommonJS entry: the package's API is compiled from lib/ into dist/.
module.exports = require('./dist/index.js');
