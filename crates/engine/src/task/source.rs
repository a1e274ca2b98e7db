//! A source task's default action (`SourceOperatorStreamTask` with a FLIP-27
//! `DataGeneratorSource`): emit the records its rate limiter has made due, as far as the output
//! has buffers.

use super::operators::Operator;
use super::stream_task::{Action, StreamTask, PROCESSING_QUANTUM};
use super::time::TimeState;
use super::TaskCtx;
use crate::trace::TraceKind;
use crate::types::Micros;
use crate::types::MAX_RECORDS_PER_SOURCE_ACTION as MAX_RECORDS_PER_ACTION;

impl StreamTask {
    pub(super) fn source_action(&mut self, ctx: &mut TaskCtx) -> Action {
        if ctx.now < self.busy_until {
            return Action::Wait(TimeState::Busy, Some(self.busy_until));
        }
        let Operator::Datagen(dg) = &self.operators[0] else {
            return Action::Wait(TimeState::Idle, None);
        };
        if dg.exhausted() {
            if !self.end_of_data_sent {
                self.end_data(ctx);
            }
            return Action::Wait(TimeState::Idle, None);
        }
        let due = dg.due(dg.next_seq);
        if due > ctx.now {
            // Wake when a few records are due, so events grow with buffers, not records; but
            // no more than a quantum's work of them (see `records_per_action`).
            let per_buffer = (ctx.net_segment_size() / dg.record_bytes.max(1)).max(1);
            let batch = u64::from((per_buffer / 4).max(1).min(self.records_per_action()));
            let last = dg.next_seq + batch - 1;
            let last = dg.bounded.map_or(last, |b| last.min(b.saturating_sub(1)));
            let wake = dg.due(last).max(due);
            return Action::Wait(TimeState::Idle, Some(wake));
        }
        if !self.outputs_available(ctx) {
            return Action::Wait(TimeState::Backpressured, None);
        }
        self.emit_due_records(ctx)
    }

    /// Records one source action emits at most. Flink's source emits one record per mailbox
    /// iteration, so a mail waits for one record's work at most; grouping records keeps events
    /// per buffer, not per record. A chain whose records cost more than an eighth of
    /// [`PROCESSING_QUANTUM`] emits only a quantum's worth (at least one record) per action, and
    /// a mail waits no longer than on the input side (two-input-join's `payments ->
    /// slow-enrich`, 1 ms a record: its trigger mail waited behind 5-7 records, 10-13 ms start
    /// delay against Flink's 6 ms).
    fn records_per_action(&self) -> u32 {
        let per_record: Micros = self.costs.iter().sum();
        if per_record * 8 <= PROCESSING_QUANTUM {
            return MAX_RECORDS_PER_ACTION;
        }
        (PROCESSING_QUANTUM / per_record).max(1) as u32
    }

    /// Generates the records due by now, in groups, until the output runs out of buffers (the
    /// source would block on the next one), and pushes them through the chain.
    pub(super) fn emit_due_records(&mut self, ctx: &mut TaskCtx) -> Action {
        let now = ctx.now;
        let mut cost: Micros = 0;
        let mut total: u32 = 0;
        // One group vector per action, not per group.
        let mut group = Vec::with_capacity(8);
        let end = match &mut self.operators[0] {
            Operator::Datagen(dg) => {
                // Guava's SmoothBursty limiter stores at most one second of permits: after a
                // stall the source bursts for up to a second, then runs at its rate again. Once
                // per action: after the reset (or without one) the records emitted below are
                // due later, so the condition cannot come true again before `now` moves.
                if dg.rate_per_subtask > 0 && dg.due(dg.next_seq) + 1_000_000 < now {
                    dg.base_time = now - 1_000_000;
                    dg.base_seq = dg.next_seq;
                }
                // Fixed for the action: the anchor does not move while records are emitted.
                dg.first_not_due(now)
            }
            _ => return Action::Continue,
        };
        // Bounds one action's work; the rest follows on the next wake.
        let limit = self.records_per_action();
        let group_size = limit.min(8) as usize;
        while total < limit {
            let Operator::Datagen(dg) = &mut self.operators[0] else {
                break;
            };
            group.clear();
            while group.len() < group_size && !dg.exhausted() && dg.next_seq < end {
                group.push(dg.record(dg.next_seq));
                dg.next_seq += 1;
            }
            if group.is_empty() {
                break;
            }
            total += group.len() as u32;
            cost += self.run_chain_slice(0, &group, ctx);
            if !self.outputs_available(ctx) {
                break;
            }
        }
        if total == 0 {
            return Action::Continue;
        }
        self.records_in += u64::from(total);
        ctx.trace.record(
            now,
            Some(self.id),
            TraceKind::SourceBatch { records: total },
        );
        Action::Busy(cost.max(1))
    }
}
