//! Unit tests of the expression engine.
