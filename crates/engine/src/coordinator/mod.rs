//! The JobManager side of checkpointing as a pure state machine.
//!
//! Each file carries the name of the Flink class it stands for (`CheckpointCoordinator`,
//! `CheckpointRequestDecider`, `CheckpointFailureManager`, `PendingCheckpoint`,
//! `CompletedCheckpointStore`, `SharedStateRegistry`), so a reader of the seeds finds the counterpart by name. The
//! coordinator never calls out: it takes one [`CoordinatorInput`] with the current time and returns
//! the [`CoordinatorEffect`]s the event loop must carry out (timers, RPCs to tasks, job failure).

pub mod checkpoint_coordinator;
pub mod completed_store;
pub mod config;
pub mod failure_manager;
pub mod messages;
pub mod pending_checkpoint;
pub mod properties;
pub mod request_decider;
pub mod shared_state_registry;
mod trigger;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_failing_calls;

pub use checkpoint_coordinator::{CheckpointCoordinator, PendingCheckpointView};
pub use completed_store::{CompletedCheckpoint, CompletedCheckpointStore, OperatorStateHandle};
pub use config::{CheckpointCoordinatorConfiguration, ExternalizedCheckpointRetention};
pub use failure_manager::{CheckpointFailureManager, CheckpointFailureReason};
pub use messages::{CoordinatorCall, CoordinatorEffect, CoordinatorInput, CoordinatorTimer};
pub use pending_checkpoint::{PendingCheckpoint, SubtaskCheckpointMetrics, TaskAcknowledgeResult};
pub use properties::{CheckpointKind, CheckpointProperties};
pub use request_decider::{
    CheckpointRequestDecider, CheckpointTriggerRequest, DeciderContext, DeciderOutcome,
};
pub use shared_state_registry::{SharedStateEntry, SharedStateRegistry};
