//! The mails a task runs between records (`StreamTask`'s mailbox actions other than the
//! default action): checkpoint triggers on sources, `notifyCheckpointComplete` and
//! `notifyCheckpointAborted`, processing-time timers and the aligned-checkpoint timeout.

use super::mailbox::Mail;
use super::operators::Operator;
use super::stream_task::StreamTask;
use super::{TaskCtx, TaskEffect};
use crate::barrier::HandlerInput;
use crate::trace::TraceKind;
use crate::types::{CheckpointId, Micros};

impl StreamTask {
    /// Runs one mail; returns the time it keeps the task busy.
    pub(super) fn run_mail(&mut self, mail: Mail, ctx: &mut TaskCtx) -> Micros {
        let now = ctx.now;
        match mail {
            Mail::TriggerCheckpoint { barrier } => {
                // A task with inputs is triggered by RPC only when all its upstream tasks have
                // finished; what they sent must be processed first (Flink waits for all data to
                // be processed before upstream tasks finish), so the checkpoint waits for the
                // end of every input.
                if !self.inputs.is_empty() && !self.inputs_ended() {
                    self.deferred_trigger = Some(barrier);
                    return 0;
                }
                // For RPC-triggered sources, start delay is the trigger's age on arrival.
                let start_delay = now.saturating_sub(barrier.timestamp);
                self.perform_checkpoint(barrier, start_delay, 0, 0, ctx)
            }
            Mail::NotifyCheckpointComplete { id } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::NotifyComplete { id });
                // Its acks carried the input channel state sizes: the accounting can go.
                if let Some(h) = &mut self.handler {
                    h.discard_persisted_up_to(id);
                }
                let mut cost = 20;
                for (pos, op) in self.operators.iter_mut().enumerate() {
                    match op {
                        Operator::TwoPhaseCommitSink(t) => {
                            let ids: Vec<CheckpointId> =
                                t.pending.range(..=id).map(|(k, _)| *k).collect();
                            let mut records = 0;
                            for cid in ids {
                                if let Some(txn) = t.pending.remove(&cid) {
                                    records += txn.len() as u64;
                                    t.committed_transactions.push(cid);
                                    ctx.effects.push(TaskEffect::Commit {
                                        task: self.index,
                                        operator: pos,
                                        transaction: cid,
                                        records: txn,
                                    });
                                }
                            }
                            if t.committed_transactions.len() > 32 {
                                let excess = t.committed_transactions.len() - 32;
                                t.committed_transactions.drain(..excess);
                            }
                            cost += 500;
                            ctx.trace
                                .record(now, Some(self.id), TraceKind::Commit { id, records });
                        }
                        Operator::CheckpointAwareMap { notified } => {
                            notified.push(id);
                            if notified.len() > 32 {
                                notified.remove(0);
                            }
                        }
                        _ => {}
                    }
                    if let Some(k) = op.keyed() {
                        let running: Vec<CheckpointId> =
                            k.backend.running_snapshots().filter(|c| *c <= id).collect();
                        for c in running {
                            k.backend.release_snapshot(c);
                        }
                        if let Some(r) = k.rocksdb.as_mut() {
                            r.complete(id);
                        }
                    }
                }
                if self.final_checkpoint.is_some_and(|f| id >= f) {
                    self.finish(ctx);
                }
                cost
            }
            Mail::NotifyCheckpointAborted { id } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::NotifyAborted { id });
                if id > self.checkpointing.last_checkpoint_id {
                    self.checkpointing.aborted.insert(id);
                }
                // The async part of an aborted checkpoint is cancelled: no ack follows.
                self.checkpointing.pending.remove(&id);
                for op in &mut self.operators {
                    if let Some(k) = op.keyed() {
                        k.backend.release_snapshot(id);
                        if let Some(r) = k.rocksdb.as_mut() {
                            r.abort(id);
                        }
                    }
                }
                10
            }
            Mail::ProcessingTimeTimers => self.fire_timers(ctx),
            Mail::BufferDebloat => {
                self.debloat(ctx);
                0
            }
            Mail::AlignmentTimeout { id } => {
                let mut busy = 0;
                // Input side: the handler switches to unaligned (if it is still aligning `id`).
                if let Some(h) = self.handler.as_mut() {
                    let effects = h.handle(now, HandlerInput::AlignmentTimeout { id });
                    for e in effects {
                        busy += self.apply_handler_effect(e, ctx);
                    }
                }
                // Output side: barriers of `id` still queued become priority events.
                self.promote_output_barriers(id, ctx);
                self.maybe_report_channel_state(id, ctx);
                self.maybe_acknowledge(id, ctx);
                busy
            }
        }
    }
}
