//! The operator chain (`OperatorChain`): records run through the chained operators and what
//! comes out of the last goes to the task's outputs; processing-time timers fire here too.

use super::operators::Operator;
use super::stream_task::StreamTask;
use super::{TaskCtx, TaskEffect};
use crate::network::Record;
use crate::trace::TraceKind;
use crate::types::Micros;

impl StreamTask {
    /// Runs `records` through operators `from..` and emits what comes out; returns the work.
    pub(super) fn run_chain(
        &mut self,
        from: usize,
        records: Vec<Record>,
        ctx: &mut TaskCtx,
    ) -> Micros {
        self.run_chain_slice(from, &records, ctx)
    }

    pub(super) fn run_chain_slice(
        &mut self,
        from: usize,
        input: &[Record],
        ctx: &mut TaskCtx,
    ) -> Micros {
        // A chain whose remaining operators all pass records through (a lone source or map):
        // the same work and output as the loop below, without its scratch vectors.
        let rest = from.min(self.operators.len());
        if !self.has_timers
            && !self.has_collect_sink
            && self.operators[rest..].iter().all(Operator::passes_through)
        {
            let n = input.len() as Micros;
            let cost = self.costs[rest..].iter().map(|c| c * n).sum();
            self.emit(input, ctx);
            return cost;
        }
        let mut cost: Micros = 0;
        let mut a = std::mem::take(&mut self.scratch);
        let mut b = std::mem::take(&mut self.scratch_b);
        a.clear();
        if from < self.operators.len() {
            let (now, id) = (ctx.now, self.id);
            let trace = &mut *ctx.trace;
            let mut warn = |message| trace.record(now, Some(id), TraceKind::Warning { message });
            // Whether the records so far are in `a` (else still `input`): operators that pass
            // records through unchanged are skipped rather than copied through.
            let mut in_a = false;
            for op in from..self.operators.len() {
                let current: &[Record] = if in_a { &a } else { input };
                if current.is_empty() {
                    break;
                }
                cost += self.costs[op] * current.len() as Micros;
                if self.operators[op].passes_through() {
                    continue;
                }
                b.clear();
                self.operators[op].process_batch(current, now, &mut b, &mut warn);
                std::mem::swap(&mut a, &mut b);
                in_a = true;
            }
            if self.has_timers {
                if let Some(at) = self.next_timer() {
                    ctx.effects.push(TaskEffect::TimerAt {
                        task: self.index,
                        at,
                    });
                }
            }
            self.emit(if in_a { &a } else { input }, ctx);
            if self.has_collect_sink {
                self.flush_sink_writes(ctx);
            }
        } else {
            self.emit(input, ctx);
        }
        a.clear();
        self.scratch = a;
        self.scratch_b = b;
        cost
    }

    /// A non-transactional sink's records reach the external system right away.
    pub(super) fn flush_sink_writes(&mut self, ctx: &mut TaskCtx) {
        for (pos, op) in self.operators.iter_mut().enumerate() {
            if let Operator::CollectSink { unflushed } = op {
                if !unflushed.is_empty() {
                    ctx.effects.push(TaskEffect::Write {
                        task: self.index,
                        operator: pos,
                        records: std::mem::take(unflushed),
                    });
                }
            }
        }
    }

    /// Emits the chain's output records to every output edge.
    pub(super) fn emit(&mut self, records: &[Record], ctx: &mut TaskCtx) {
        if records.is_empty() || self.outputs.is_empty() {
            return;
        }
        self.records_out += records.len() as u64;
        let mut touched = std::mem::take(&mut self.touched);
        for route in &mut self.outputs {
            touched.clear();
            route.emit(ctx.net, records, &mut touched);
            for &sub in &touched {
                super::notify_consumer(route.partition, sub, ctx);
            }
        }
        self.touched = touched;
    }

    pub fn next_timer(&self) -> Option<Micros> {
        self.operators.iter().filter_map(|o| o.next_timer()).min()
    }

    /// Processing-time timers due now: emit window results down the chain.
    pub(super) fn fire_timers(&mut self, ctx: &mut TaskCtx) -> Micros {
        let mut cost = 0;
        let mut fired_total = 0;
        for op in 0..self.operators.len() {
            let mut out = Vec::new();
            match self.operators[op].fire_timers(ctx.now, &mut out) {
                Ok(n) if n > 0 => {
                    fired_total += n;
                    cost += self.run_chain(op + 1, out, ctx);
                }
                Ok(_) => {}
                Err(message) => {
                    ctx.trace
                        .record(ctx.now, Some(self.id), TraceKind::Warning { message })
                }
            }
        }
        if fired_total > 0 {
            ctx.trace.record(
                ctx.now,
                Some(self.id),
                TraceKind::TimersFired { count: fired_total },
            );
        }
        if let Some(at) = self.next_timer() {
            ctx.effects.push(TaskEffect::TimerAt {
                task: self.index,
                at,
            });
        }
        cost
    }
}
