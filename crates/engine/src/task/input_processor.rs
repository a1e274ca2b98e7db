//! A task's input side (`StreamOneInputProcessor` / `StreamMultipleInputProcessor` over a
//! `CheckpointedInputGate`): pick a channel (priority events first), hand barriers and other
//! events to the barrier handler, and process buffers in quanta of work.

use super::stream_task::{Action, CurrentInput, StreamTask, PROCESSING_QUANTUM};
use super::time::TimeState;
use super::{TaskCtx, TaskEffect};
use crate::barrier::{HandlerEffect, HandlerInput};
use crate::network::{NetBuffer, NetEvent, NetItem, Recycled, Resumed};
use crate::trace::TraceKind;
use crate::types::Micros;

impl StreamTask {
    /// A channel whose next item is a priority event (an unaligned barrier).
    pub(super) fn priority_channel(&self, ctx: &mut TaskCtx) -> Option<u32> {
        while let Some(ch) = ctx.net.ready[self.index as usize].pop_priority() {
            if ctx.net.head_is_priority(self.inputs[ch as usize]) {
                return Some(ch);
            }
        }
        None
    }

    /// What channel `ch` offers next: `None` (nothing), `Some(true)` a data buffer,
    /// `Some(false)` an event.
    pub(super) fn channel_next(&self, ch: u32, ctx: &TaskCtx) -> Option<bool> {
        ctx.net.next_kind(self.inputs[ch as usize])
    }

    /// The default action: read and process input for up to one quantum of work. An event
    /// (barrier, cancel marker, end of partition) after some work waits for the next wake, so it
    /// is handled at its own time.
    pub(super) fn input_action(&mut self, ctx: &mut TaskCtx) -> Action {
        let mut spent: Micros = 0;
        loop {
            if !self.outputs_available(ctx) {
                if spent > 0 {
                    return Action::Busy(spent);
                }
                // The whole default action is suspended: barriers behind data wait too.
                let waiting =
                    self.current.is_some() || !ctx.net.ready[self.index as usize].is_empty();
                if !waiting {
                    return self.idle_for_input(ctx);
                }
                return Action::Wait(TimeState::Backpressured, None);
            }
            if self.current.is_none() {
                if let Some((channel, buffer)) = self.recovered_input.pop_front() {
                    self.current = Some(CurrentInput {
                        channel,
                        buffer,
                        pos: 0,
                        recovered: true,
                    });
                } else if self.recovering {
                    self.recovering = false;
                    ctx.effects
                        .push(TaskEffect::RecoveredInputConsumed { task: self.index });
                }
            }
            if self.current.is_some() {
                spent += self.process_chunk(PROCESSING_QUANTUM.saturating_sub(spent), ctx);
                if spent >= PROCESSING_QUANTUM {
                    return Action::Busy(spent);
                }
                continue;
            }
            let Some(ch) = ctx.net.ready[self.index as usize].peek() else {
                break;
            };
            match self.channel_next(ch, ctx) {
                None => {
                    // Stale: the channel is empty or blocked; it reports again when it has data.
                    ctx.net.ready[self.index as usize].pop();
                }
                Some(is_buffer) => {
                    if !is_buffer && spent > 0 {
                        return Action::Busy(spent);
                    }
                    ctx.net.ready[self.index as usize].pop();
                    let action = self.take_and_handle(ch, ctx);
                    if self.channel_next(ch, ctx).is_some() {
                        // Round robin: the channel queues up again behind the others.
                        ctx.net.ready[self.index as usize].push(ch);
                    }
                    match action {
                        Action::Busy(d) => return Action::Busy(spent + d),
                        Action::Wait(..) | Action::Continue => {
                            if !is_buffer {
                                // Let mails and priority events in after an event.
                                return if spent > 0 {
                                    Action::Busy(spent)
                                } else {
                                    Action::Continue
                                };
                            }
                        }
                    }
                }
            }
        }
        if spent > 0 {
            return Action::Busy(spent);
        }
        if self.deferred_trigger.is_some() && self.inputs_ended() {
            if let Some(barrier) = self.deferred_trigger.take() {
                let start_delay = ctx.now.saturating_sub(barrier.timestamp);
                return match self.perform_checkpoint(barrier, start_delay, 0, 0, ctx) {
                    0 => Action::Continue,
                    d => Action::Busy(d),
                };
            }
        }
        self.idle_for_input(ctx)
    }

    pub(super) fn take_item(&mut self, ch: u32, ctx: &mut TaskCtx) -> Option<NetItem> {
        let g = self.inputs[ch as usize];
        let item = ctx.net.take(g)?;
        if !self.input_gates.is_empty() {
            // `SingleInputGate.getNextBufferOrEvent`: the gate's throughput counts what it hands over.
            let bytes = match &item {
                NetItem::Buffer(b) => u64::from(b.bytes),
                NetItem::Event(e) => u64::from(crate::network::ResultPartition::event_bytes(e)),
            };
            ctx.net.count_received(g, ctx.now, bytes);
        }
        Some(item)
    }

    /// The task found no input to read: its gates stop measuring throughput until data comes
    /// (`ThroughputCalculator.pauseMeasurement`).
    fn idle_for_input(&mut self, ctx: &mut TaskCtx) -> Action {
        for &gate in &self.input_gates {
            ctx.net.pause_measurement(gate, ctx.now);
        }
        Action::Wait(TimeState::Idle, None)
    }

    /// `StreamTask.debloat`: each input gate recomputes its buffer size; the next recalculation
    /// is one period after this one ran.
    pub(super) fn debloat(&mut self, ctx: &mut TaskCtx) {
        let Some(period) = ctx.params.debloat_period else {
            return;
        };
        let mut remote = Vec::new();
        // `SingleInputGate.triggerDebloating` skips a finished gate.
        let gates: &[u32] = if self.inputs_ended() {
            &[]
        } else {
            &self.input_gates
        };
        for (i, &gate) in gates.iter().enumerate() {
            remote.clear();
            let Some(r) = ctx.net.trigger_debloating(gate, ctx.now, &mut remote) else {
                continue;
            };
            ctx.trace.record(
                ctx.now,
                Some(self.id),
                TraceKind::BufferSizeRecalculated {
                    gate: i as u32,
                    throughput: r.throughput,
                    buffers_in_use: r.buffers_in_use,
                    size: r.size,
                    announced: r.announced.is_some(),
                },
            );
            if let Some(size) = r.announced {
                for &channel in &remote {
                    ctx.effects
                        .push(TaskEffect::AnnounceBufferSize { channel, size });
                }
            }
        }
        ctx.effects.push(TaskEffect::DebloatAt {
            task: self.index,
            at: ctx.now + period,
        });
    }

    pub(super) fn take_and_handle(&mut self, ch: u32, ctx: &mut TaskCtx) -> Action {
        let Some(item) = self.take_item(ch, ctx) else {
            return Action::Continue;
        };
        let input = match item {
            NetItem::Buffer(buffer) => {
                let bytes = u64::from(buffer.bytes);
                self.current = Some(CurrentInput {
                    channel: ch,
                    buffer,
                    pos: 0,
                    recovered: false,
                });
                HandlerInput::Buffer { channel: ch, bytes }
            }
            NetItem::Event(NetEvent::Barrier(barrier)) => {
                ctx.trace.record(
                    ctx.now,
                    Some(self.id),
                    TraceKind::BarrierReceived {
                        id: barrier.id,
                        channel: ch,
                    },
                );
                HandlerInput::Barrier {
                    channel: ch,
                    barrier,
                }
            }
            NetItem::Event(NetEvent::CancelCheckpointMarker(id)) => {
                HandlerInput::CancelMarker { channel: ch, id }
            }
            NetItem::Event(NetEvent::EndOfData) => {
                // Handled by the input processor, not the barrier handler.
                self.end_of_data_received[ch as usize] = true;
                if !self.end_of_data_sent && self.end_of_data_received.iter().all(|e| *e) {
                    self.end_data(ctx);
                }
                return Action::Continue;
            }
            NetItem::Event(NetEvent::EndOfPartition) => {
                ctx.trace.record(
                    ctx.now,
                    Some(self.id),
                    TraceKind::EndOfPartition { channel: ch },
                );
                self.end_of_partition_received[ch as usize] = true;
                HandlerInput::EndOfPartition { channel: ch }
            }
        };
        let mut effects = std::mem::take(&mut self.handler_effects);
        if let Some(h) = self.handler.as_mut() {
            match input {
                // The task ignores `Process`, so the handler need not build it.
                HandlerInput::Buffer { channel, bytes } => {
                    h.handle_buffer_into(ctx.now, channel, bytes, &mut effects)
                }
                input => h.handle_into(ctx.now, input, &mut effects),
            }
        }
        let mut busy = 0;
        for effect in effects.drain(..) {
            busy += self.apply_handler_effect(effect, ctx);
        }
        self.handler_effects = effects;
        if busy > 0 {
            Action::Busy(busy)
        } else {
            Action::Continue
        }
    }

    /// Applies one barrier-handler effect; returns the busy time it costs (a snapshot's sync phase).
    pub(super) fn apply_handler_effect(
        &mut self,
        effect: HandlerEffect,
        ctx: &mut TaskCtx,
    ) -> Micros {
        let now = ctx.now;
        match effect {
            HandlerEffect::Process { .. } => 0,
            HandlerEffect::BlockChannel { channel } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::ChannelBlocked { channel });
                0
            }
            HandlerEffect::ResumeConsumption { channel } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::ChannelResumed { channel });
                let g = self.inputs[channel as usize];
                if ctx.net.resume_consumption(g) == Resumed::Remote {
                    ctx.effects.push(TaskEffect::Resume { channel: g });
                }
                0
            }
            HandlerEffect::TriggerCheckpoint {
                barrier,
                start_delay,
                alignment_duration,
                bytes_processed_during_alignment,
            } => self.perform_checkpoint(
                barrier,
                start_delay,
                alignment_duration,
                bytes_processed_during_alignment,
                ctx,
            ),
            HandlerEffect::AbortCheckpoint { id, reason } => {
                self.abort_on_barrier(id, reason, ctx);
                0
            }
            HandlerEffect::StartPersisting { .. } | HandlerEffect::StopPersisting { .. } => 0,
            HandlerEffect::PersistInFlight { channel, id, bytes } => {
                // The buffer just taken from `channel` is input channel state of `id`.
                if let (Some(cur), Some(p)) = (
                    self.current.as_ref(),
                    self.checkpointing.pending.get_mut(&id),
                ) {
                    p.snapshot
                        .input_channel_records
                        .push((channel, cur.buffer.records.clone()));
                }
                ctx.trace.record(
                    now,
                    Some(self.id),
                    TraceKind::InFlightPersisted { id, channel, bytes },
                );
                0
            }
            HandlerEffect::RegisterAlignmentTimer { id, fire_at } => {
                ctx.effects.push(TaskEffect::AlignmentTimer {
                    task: self.index,
                    id,
                    at: fire_at.max(now),
                });
                0
            }
            HandlerEffect::SwitchedToUnaligned { id } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::AlignmentTimedOut { id });
                0
            }
            HandlerEffect::InputChannelStateComplete {
                id,
                alignment_duration,
                bytes_processed_during_alignment,
                persisted_bytes,
            } => {
                self.input_state_complete(
                    id,
                    alignment_duration,
                    bytes_processed_during_alignment,
                    persisted_bytes,
                    ctx,
                );
                0
            }
            // Only a barrier announcement leads to one, and the simulation sends none yet.
            HandlerEffect::ConvertToPriorityEvent { .. } => 0,
            HandlerEffect::Error { message } => {
                ctx.trace
                    .record(now, Some(self.id), TraceKind::Warning { message });
                0
            }
        }
    }

    /// Processes the current buffer's records for up to `budget` of work (at least one record);
    /// returns the work done.
    pub(super) fn process_chunk(&mut self, budget: Micros, ctx: &mut TaskCtx) -> Micros {
        let Some(mut cur) = self.current.take() else {
            return 0;
        };
        let per_record: Micros = self.costs.iter().sum::<Micros>().max(1);
        let take = ((budget / per_record).max(1)) as usize;
        let end = (cur.pos + take).min(cur.buffer.records.len());
        let n = (end - cur.pos) as u32;
        self.records_in += u64::from(n);
        let cost = self.run_chain_slice(0, &cur.buffer.records[cur.pos..end], ctx);
        cur.pos = end;
        let channel = cur.channel;
        if n > 0 {
            ctx.trace.record(
                ctx.now,
                Some(self.id),
                TraceKind::RecordBatch {
                    channel,
                    records: n,
                },
            );
        }
        if cur.pos >= cur.buffer.records.len() && cur.recovered {
            // Replayed channel state: nothing to return to a pool or as credit.
        } else if cur.pos >= cur.buffer.records.len() {
            self.recycle(channel, cur.buffer, ctx);
        } else {
            self.current = Some(cur);
        }
        cost
    }

    /// The buffer read from `channel` is done: its memory goes back (to the producer's pool for a
    /// local channel; as credit for a remote one).
    pub(super) fn recycle(&mut self, channel: u32, buffer: NetBuffer, ctx: &mut TaskCtx) {
        let g = self.inputs[channel as usize];
        match ctx.net.recycle(g, buffer) {
            Recycled::Remote => ctx.effects.push(TaskEffect::Recycled { channel: g }),
            Recycled::Local {
                producer_woken: Some(task),
            } => ctx.effects.push(TaskEffect::Poke { task }),
            Recycled::Local {
                producer_woken: None,
            } => {}
        }
    }
}
