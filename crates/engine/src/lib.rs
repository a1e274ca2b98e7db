//! Barrier Lab's engine: a deterministic, single-threaded, sans-IO simulation of a Flink 2.3 job.
//!
//! Time is integer microseconds ([`types::Micros`]); nothing here reads a clock, spawns a thread or
//! uses float transcendental math, so the same scenario and seed give the same run natively and in wasm.

pub mod barrier;
pub mod channel_state;
pub mod coordinator;
pub mod export;
pub mod import;
pub mod network;
pub mod replay;
pub mod scenario;
pub mod share;
pub mod sim;
pub mod state;
pub mod stats;
pub mod storage;
pub mod task;
pub mod trace;
pub mod types;
