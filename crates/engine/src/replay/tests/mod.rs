//! Replay driver tests: the shipped fixtures (tests/fixtures/replay/) and bad scripts.

mod errors;
mod fixtures;
mod support;
