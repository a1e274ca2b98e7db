//! The job graph's data: vertices in layers, each subtask's backpressure, and per channel the
//! buffers queued in its subpartition, whether it is blocked and which barriers are in flight.

use barrierlab_engine::barrier::BarrierHandler;
use barrierlab_engine::network::{ChannelKind, NetEvent, NetItem, MAX_BUFFERS_PER_CHANNEL};
use barrierlab_engine::sim::{backpressure_level, Simulation};
use barrierlab_engine::task::TimeSplit;
use barrierlab_engine::types::CheckpointId;

#[derive(Debug, Clone, PartialEq)]
pub struct GraphModel {
    pub vertices: Vec<VertexModel>,
    pub edges: Vec<EdgeModel>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VertexModel {
    pub id: u32,
    pub name: String,
    pub parallelism: u32,
    /// Longest path from a source (0 for sources): the column it is drawn in.
    pub layer: u32,
    pub subtasks: Vec<SubtaskModel>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SubtaskModel {
    pub index: u32,
    /// `ok`, `low` or `high` (Flink's `VertexBackPressureLevel`).
    pub level: &'static str,
    pub busy: f64,
    pub idle: f64,
    pub backpressured: f64,
    pub records_in: u64,
    pub records_out: u64,
    /// The barrier handler's state class, if the task has inputs.
    pub handler_state: Option<&'static str>,
    pub mailbox: usize,
    pub finished: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EdgeModel {
    pub from: u32,
    pub to: u32,
    pub partitioner: String,
    /// Every channel, when the edge has at most [`MAX_CHANNEL_ROWS`]; empty otherwise.
    pub channels: Vec<ChannelModel>,
    /// A larger edge's channels folded by producer subtask ranges, at most [`MAX_CHANNEL_ROWS`]
    /// rows (a 512 x 512 hash edge has 262 144 channels: one row each would be a million SVG
    /// nodes); empty when `channels` lists them one by one.
    pub groups: Vec<ChannelGroup>,
}

impl EdgeModel {
    /// Channels on the edge, listed or folded.
    pub fn channel_count(&self) -> usize {
        if self.groups.is_empty() {
            self.channels.len()
        } else {
            self.groups.iter().map(|g| g.channels as usize).sum()
        }
    }

    /// Rows the edge's channel block draws.
    pub fn rows(&self) -> usize {
        self.channels.len().max(self.groups.len())
    }
}

impl ChannelGroup {
    /// Counts channel `c` into the row.
    fn add(&mut self, c: &ChannelModel) {
        self.channels += 1;
        self.queued += u64::from(c.queued);
        self.queued_bytes += c.queued_bytes;
        self.capacity += u64::from(c.capacity);
        self.max_queued = self.max_queued.max(c.queued);
        self.remote += u32::from(c.remote);
        self.blocked += u32::from(c.blocked);
        for b in &c.barriers {
            if b.unaligned {
                self.unaligned_barriers += 1;
            } else {
                self.aligned_barriers += 1;
            }
        }
    }
}

/// The backpressure levels in order, for the worst of several: `ok` < `low` < `high`.
pub fn level_rank(level: &str) -> u8 {
    match level {
        "high" => 2,
        "low" => 1,
        _ => 0,
    }
}

/// Edges with more channels than this are drawn as folded groups.
pub const MAX_CHANNEL_ROWS: usize = 64;

/// The channels from producer subtasks `producers` (inclusive) folded into one row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChannelGroup {
    pub producers: (u32, u32),
    pub channels: u32,
    pub queued: u64,
    pub queued_bytes: u64,
    /// Buffers the channels may queue in all ([`MAX_BUFFERS_PER_CHANNEL`] each).
    pub capacity: u64,
    /// The fullest channel's queued buffers.
    pub max_queued: u32,
    pub remote: u32,
    pub blocked: u32,
    pub aligned_barriers: u32,
    pub unaligned_barriers: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChannelModel {
    pub producer: u32,
    pub consumer: u32,
    /// Data buffers queued in the subpartition (plus, for a remote channel, received and unread).
    pub queued: u32,
    pub queued_bytes: u64,
    pub capacity: u32,
    pub remote: bool,
    pub blocked: bool,
    /// With buffer debloating: the size the producer trims new buffers to (the consumer's
    /// announced `debloatedBufferSize`).
    pub buffer_size: Option<u32>,
    /// Barriers in the queue, head (next to be read) first.
    pub barriers: Vec<BarrierInFlight>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BarrierInFlight {
    pub id: CheckpointId,
    pub unaligned: bool,
    /// Items ahead of it in the queue (0 = next to be read).
    pub position: u32,
}

/// The busy / idle / backpressured split of the last complete second (the current, partial one
/// right after the job started).
fn last_second(time: &barrierlab_engine::task::TaskTime) -> TimeSplit {
    let current = time.recent(1);
    let two = time.recent(2);
    if two.total() > current.total() {
        TimeSplit {
            busy: two.busy - current.busy,
            idle: two.idle - current.idle,
            backpressured: two.backpressured - current.backpressured,
        }
    } else {
        current
    }
}

fn ratio(part: u64, total: u64) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

fn barrier_of(item: &NetItem) -> Option<(CheckpointId, bool)> {
    match item {
        NetItem::Event(NetEvent::Barrier(b)) => Some((b.id, b.options.is_unaligned())),
        _ => None,
    }
}

// Not inlined into its hook, so a profile names it: nearly all of it is the loop over the
// 4096-subtask job's 265 k channels (natively 11-16 ms a call, 34 ms when each channel looked
// its edge up).
#[inline(never)]
pub fn graph_model(sim: &Simulation) -> GraphModel {
    graph_model_folding(sim, MAX_CHANNEL_ROWS)
}

/// [`graph_model`], folding edges of more than `max_rows` channels.
fn graph_model_folding(sim: &Simulation, max_rows: usize) -> GraphModel {
    let vertices_in = &sim.graph.vertices;
    let mut layers = vec![0u32; vertices_in.len()];
    // Vertices are topologically ordered, so every input's layer is known when it is needed.
    for v in vertices_in {
        let layer = v
            .inputs
            .iter()
            .map(|e| layers.get(e.source_vertex as usize).map_or(0, |l| l + 1))
            .max()
            .unwrap_or(0);
        layers[v.id as usize] = layer;
    }
    let vertices = vertices_in
        .iter()
        .map(|v| VertexModel {
            id: v.id,
            name: v.name.clone(),
            parallelism: v.parallelism,
            layer: layers[v.id as usize],
            subtasks: sim
                .vertex_tasks(v.id)
                .map(|t| {
                    let split = last_second(&t.time);
                    let total = split.total();
                    let bp_milli = (split.backpressured * 1000).checked_div(total).unwrap_or(0);
                    SubtaskModel {
                        index: t.id.subtask,
                        level: backpressure_level(bp_milli),
                        busy: ratio(split.busy, total),
                        idle: ratio(split.idle, total),
                        backpressured: ratio(split.backpressured, total),
                        records_in: t.records_in,
                        records_out: t.records_out,
                        handler_state: t.handler.as_ref().map(|h| h.state_name()),
                        mailbox: t.mailbox.iter().count(),
                        finished: t.status != barrierlab_engine::task::TaskStatus::Running,
                    }
                })
                .collect(),
        })
        .collect();

    let mut edges: Vec<EdgeModel> = sim
        .graph
        .edges()
        .map(|e| EdgeModel {
            from: e.source_vertex,
            to: e.target_vertex,
            partitioner: e.partitioner.to_string(),
            channels: Vec::new(),
            groups: Vec::new(),
        })
        .collect();
    // The edge each partition feeds (one: every subpartition's consumer is of the same vertex),
    // looked up once a partition rather than once a channel. Then channels per edge and each
    // producer vertex's parallelism: which edges fold, and into which producer ranges.
    let partition_edges: Vec<Option<usize>> = sim
        .net
        .partitions
        .iter()
        .map(|p| {
            let producer = &sim.tasks[p.producer() as usize];
            let n = p.subpartitions().len();
            let first = (0..n).find_map(|sub| sim.net.channels.get(p.consumer(sub) as usize))?;
            let consumer = &sim.tasks[first.task as usize];
            edges
                .iter()
                .position(|e| e.from == producer.id.vertex && e.to == consumer.id.vertex)
        })
        .collect();
    let mut counts = vec![0usize; edges.len()];
    for (p, edge) in sim.net.partitions.iter().zip(&partition_edges) {
        if let Some(i) = edge {
            counts[*i] += p.subpartitions().len();
        }
    }
    let parallelism = |v: u32| {
        vertices_in
            .get(v as usize)
            .map_or(1, |v| v.parallelism.max(1))
    };
    for (e, &n) in edges.iter_mut().zip(&counts) {
        if n > max_rows {
            let producers = parallelism(e.from);
            let per_row = producers.div_ceil(max_rows as u32).max(1);
            e.groups = (0..producers.div_ceil(per_row))
                .map(|r| ChannelGroup {
                    producers: (r * per_row, ((r + 1) * per_row).min(producers) - 1),
                    ..ChannelGroup::default()
                })
                .collect();
        }
    }
    // In ascending order, so each channel looks itself up by binary search: an aligning subtask
    // of a 512-wide hash edge blocks up to 512 channels, and a 512 x 512 edge has 262 144.
    let blocked: Vec<Vec<u32>> = sim
        .tasks
        .iter()
        .map(|t| {
            t.handler
                .as_ref()
                .map(|h| h.blocked_channels())
                .unwrap_or_default()
        })
        .collect();
    for (p, edge) in sim.net.partitions.iter().zip(&partition_edges) {
        let Some(edge) = edge.map(|i| &mut edges[i]) else {
            continue;
        };
        let producer = &sim.tasks[p.producer() as usize];
        for (sub, s) in p.subpartitions().iter().enumerate() {
            let Some(channel) = sim.net.channels.get(p.consumer(sub) as usize) else {
                continue;
            };
            let consumer = &sim.tasks[channel.task as usize];
            let remote = channel.kind == ChannelKind::Remote;
            let blocked_here = s.is_blocked()
                || blocked
                    .get(channel.task as usize)
                    .is_some_and(|b| b.binary_search(&channel.index).is_ok());
            // Head of the line first: what the consumer reads next. For a remote channel the
            // buffers already received come before those still in the producer's queue.
            let received = remote.then(|| channel.received().iter());
            let items = received.into_iter().flatten().chain(s.queue().iter());
            let (mut queued, mut queued_bytes, mut barriers) = (0, 0, Vec::new());
            for (pos, item) in items.enumerate() {
                queued += u32::from(matches!(item, NetItem::Buffer(_)));
                queued_bytes += u64::from(item.data_bytes());
                if let Some((id, unaligned)) = barrier_of(item) {
                    barriers.push(BarrierInFlight {
                        id,
                        unaligned,
                        position: pos as u32,
                    });
                }
            }
            let c = ChannelModel {
                producer: producer.id.subtask,
                consumer: consumer.id.subtask,
                queued,
                queued_bytes,
                capacity: MAX_BUFFERS_PER_CHANNEL,
                remote,
                blocked: blocked_here,
                buffer_size: s.buffer_size(),
                barriers,
            };
            if edge.groups.is_empty() {
                edge.channels.push(c);
            } else {
                let per_row = edge.groups[0].producers.1 + 1;
                let last = edge.groups.len() - 1;
                edge.groups[((c.producer / per_row) as usize).min(last)].add(&c);
            }
        }
    }
    for e in &mut edges {
        e.channels.sort_by_key(|c| (c.producer, c.consumer));
    }
    GraphModel { vertices, edges }
}

/// The TaskManagers and what runs in each slot: subtask `i` of every vertex shares slot `i`
/// (Flink's default slot sharing group), TaskManager `i / slots`.
pub fn taskmanager_views(
    sim: &Simulation,
) -> Vec<crate::components::backpressure::TaskManagerView> {
    let slots = sim.graph.slots_per_taskmanager.max(1);
    let tms = sim.graph.taskmanagers.max(1);
    let mut views: Vec<crate::components::backpressure::TaskManagerView> = (0..tms)
        .map(|_| crate::components::backpressure::TaskManagerView {
            slots,
            slot_subtasks: vec![Vec::new(); slots as usize],
        })
        .collect();
    for (i, t) in sim.tasks.iter().enumerate() {
        let tm = sim.taskmanager.get(i).copied().unwrap_or(0).min(tms - 1);
        let slot = t.id.subtask.saturating_sub(tm * slots) as usize;
        let name = sim
            .graph
            .vertices
            .get(t.id.vertex as usize)
            .map(|v| v.name.as_str())
            .unwrap_or("");
        let view = &mut views[tm as usize];
        if slot >= view.slot_subtasks.len() {
            view.slot_subtasks.resize(slot + 1, Vec::new());
        }
        view.slot_subtasks[slot].push(crate::model::subtask_label(name, t.id.subtask));
    }
    views
}

#[cfg(test)]
mod tests {
    use super::*;
    use barrierlab_engine::scenario::preset;

    #[test]
    fn backpressure_preset_shows_blocked_channels_and_barriers() {
        let mut sim = Simulation::new(preset("seed-backpressure").unwrap()).unwrap();
        let (mut blocked, mut barriers, mut high) = (0, 0, 0);
        let mut t = 0;
        // Sampled every 5 ms: the 9-key subtask aligns for about 5 ms a checkpoint.
        while t < 30_000_000 {
            t += 5_000;
            sim.run_until(t);
            let m = graph_model(&sim);
            let chans = m.edges.iter().flat_map(|e| e.channels.iter());
            blocked += chans.clone().filter(|c| c.blocked).count();
            barriers += chans.map(|c| c.barriers.len()).sum::<usize>();
            high += m
                .vertices
                .iter()
                .flat_map(|v| &v.subtasks)
                .filter(|s| s.level == "high")
                .count();
        }
        // Barriers queue behind data for seconds; alignment (blocked channels) is short.
        assert!(high > 0, "no HIGH back pressure");
        assert!(barriers > 0, "no barrier in flight");
        assert!(blocked > 0, "no blocked channel");
    }

    #[test]
    fn every_edge_lists_each_pair_of_subtasks_it_connects_once() {
        // two-input-join has three network edges: each channel must land on its own.
        for name in ["seed-demo", "two-input-join"] {
            every_edge_lists_its_pairs_once(name);
        }
    }

    fn every_edge_lists_its_pairs_once(name: &str) {
        let sim = Simulation::new(preset(name).unwrap()).unwrap();
        let m = graph_model(&sim);
        let parallelism = |v: u32| m.vertices[v as usize].parallelism;
        assert!(m.edges.iter().any(|e| !e.channels.is_empty()), "{name}");
        for e in &m.edges {
            let pairs: Vec<(u32, u32)> = e
                .channels
                .iter()
                .map(|c| (c.producer, c.consumer))
                .collect();
            let (from, to) = (parallelism(e.from), parallelism(e.to));
            let expected: Vec<(u32, u32)> = if e.partitioner == "FORWARD" {
                (0..from).map(|i| (i, i)).collect()
            } else {
                (0..from)
                    .flat_map(|p| (0..to).map(move |c| (p, c)))
                    .collect()
            };
            assert_eq!(
                pairs, expected,
                "{name}: edge {} -> {} ({})",
                e.from, e.to, e.partitioner
            );
        }
    }

    /// Folds `channels` into rows of `per_row` producers, as the model folds a large edge.
    fn fold(channels: &[ChannelModel], per_row: u32) -> Vec<ChannelGroup> {
        let mut rows: Vec<ChannelGroup> = Vec::new();
        for c in channels {
            let row = (c.producer / per_row) as usize;
            if rows.len() <= row {
                rows.resize(row + 1, ChannelGroup::default());
            }
            let g = &mut rows[row];
            g.producers = (row as u32 * per_row, g.producers.1.max(c.producer));
            g.channels += 1;
            g.queued += u64::from(c.queued);
            g.queued_bytes += c.queued_bytes;
            g.capacity += u64::from(c.capacity);
            g.max_queued = g.max_queued.max(c.queued);
            g.remote += u32::from(c.remote);
            g.blocked += u32::from(c.blocked);
            for b in &c.barriers {
                if b.unaligned {
                    g.unaligned_barriers += 1;
                } else {
                    g.aligned_barriers += 1;
                }
            }
        }
        rows
    }

    #[test]
    fn a_large_edge_folds_into_rows_that_add_up_to_its_channels() {
        // 12 x 12 subtasks over the hash edge: 144 channels, folded into rows of 2 producers.
        let mut scenario = preset("seed-backpressure").unwrap();
        for op in &mut scenario.operators {
            op.parallelism = Some(12);
        }
        scenario.cluster.taskmanagers = 2;
        let mut sim = Simulation::new(scenario).unwrap();
        let (mut blocked, mut barriers, mut remote) = (0, 0, 0);
        let mut t = 0;
        while t < 30_000_000 {
            t += 100_000;
            sim.run_until(t);
            let folded = graph_model_folding(&sim, 8);
            let listed = graph_model_folding(&sim, usize::MAX);
            for (f, l) in folded.edges.iter().zip(&listed.edges) {
                if l.channels.len() <= 8 {
                    assert_eq!(f.channels, l.channels);
                    assert!(f.groups.is_empty());
                    continue;
                }
                assert!(f.channels.is_empty() && f.groups.len() <= 8);
                assert_eq!(f.channel_count(), l.channels.len());
                let per_row = f.groups[0].producers.1 + 1;
                assert_eq!(f.groups, fold(&l.channels, per_row), "at {t} µs");
                blocked += f.groups.iter().map(|g| g.blocked).sum::<u32>();
                barriers += f.groups.iter().map(|g| g.aligned_barriers).sum::<u32>();
                remote += f.groups.iter().map(|g| g.remote).sum::<u32>();
            }
        }
        assert!(
            blocked > 0 && barriers > 0 && remote > 0,
            "{blocked} {barriers} {remote}"
        );
    }
}
