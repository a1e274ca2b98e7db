//! Replay driver tests: the shipped fixtures (tests/fixtures/replay/) and bad scripts.

mod announcement;
mod components;
mod errors;
mod expect;
mod fixtures;
mod gate;
mod support;
