//! A bundle's per-subtask details in the model the playground's timeline draws
//! (`model::timeline`), so a real checkpoint's phases and outliers look like a simulated one's.
//! Flink reports milliseconds; the timeline counts microseconds.

use barrierlab_engine::import::rest::CheckpointStatsStatus as Rest;
use barrierlab_engine::import::JobBundle;
use barrierlab_engine::stats::CheckpointStatsStatus;
use barrierlab_engine::types::Micros;

use crate::model::subtask_label;
use crate::model::timeline::{
    mark_outliers, Phases, TimelineCheckpoint, TimelineSubtask, TIMELINE_CHECKPOINTS,
};

fn us(ms: i64) -> Micros {
    (ms.max(0) as Micros).saturating_mul(1_000)
}

/// The newest checkpoints the bundle has per-subtask details of (at most the timeline's
/// [`TIMELINE_CHECKPOINTS`]), newest first, outliers marked by the timeline's rule.
pub fn timeline(b: &JobBundle) -> Vec<TimelineCheckpoint> {
    let mut out: Vec<TimelineCheckpoint> = b
        .subtasks
        .iter()
        .rev()
        .take(TIMELINE_CHECKPOINTS)
        .filter_map(|(id, per_vertex)| {
            let cp = b
                .details
                .get(id)
                .or_else(|| b.history().iter().find(|c| c.id == *id))?;
            let trigger = cp.trigger_timestamp;
            let mut subtasks = Vec::new();
            for (index, v) in b.job.vertices.iter().enumerate() {
                let Some(details) = per_vertex.get(&v.id) else {
                    continue;
                };
                let mut rows: Vec<_> = details.subtasks.iter().collect();
                rows.sort_by_key(|s| s.index);
                for s in rows {
                    let phases = s.ack_timestamp.map(|ack| Phases {
                        start_delay: us(s.start_delay.unwrap_or(0)),
                        alignment: us(s.alignment.as_ref().map_or(0, |a| a.duration)),
                        sync: us(s.checkpoint.as_ref().map_or(0, |c| c.sync)),
                        async_: us(s.checkpoint.as_ref().map_or(0, |c| c.async_)),
                        ack: us(ack - trigger),
                        unaligned: s.unaligned_checkpoint.unwrap_or(false),
                        persisted: s.alignment.as_ref().map_or(0, |a| a.persisted),
                    });
                    subtasks.push(TimelineSubtask {
                        label: subtask_label(&v.name, s.index),
                        vertex: index as u32,
                        phases,
                        outlier: false,
                    });
                }
            }
            let status = match cp.status {
                Rest::COMPLETED => CheckpointStatsStatus::COMPLETED,
                Rest::FAILED => CheckpointStatsStatus::FAILED,
                Rest::IN_PROGRESS | Rest::Unknown => CheckpointStatsStatus::IN_PROGRESS,
            };
            let end = match status {
                CheckpointStatsStatus::IN_PROGRESS => None,
                _ => (cp.end_to_end_duration >= 0).then(|| us(cp.end_to_end_duration)),
            };
            Some(TimelineCheckpoint {
                id: *id,
                status,
                savepoint: cp.is_savepoint,
                // Since the job started, as the simulated timeline counts from the job's start.
                trigger: us(trigger - b.job.start_time.max(0)),
                end,
                subtasks,
                // The bundle has no record of notifyCheckpointComplete.
                notify: None,
                outlier: false,
            })
        })
        .collect();
    mark_outliers(&mut out);
    out
}
