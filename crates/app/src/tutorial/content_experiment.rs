//! Seed 000 §10 as a hands-on tutorial: aligned vs unaligned under backpressure, then the
//! seed's three "try it yourself" variations (§10.3), each a configuration change.

use super::{on, Ev, Highlight, Setup, Step, Tutorial, ViewHint};

const fn until_checkpoint_3() -> super::Until {
    on(Ev::Completed, Some(3), None)
}

const fn history(checkpoint: u64) -> ViewHint {
    ViewHint::panel("checkpoints")
        .checkpoint(checkpoint)
        .highlight(Highlight::None)
}

pub const EXPERIMENT: Tutorial = Tutorial {
    id: "experiment",
    title: "Hands-on: aligned vs unaligned under backpressure",
    summary: "Seed 000 §10: the same job three ways, then three changes to try.",
    steps: &[
        Step {
            title: "Aligned, no backpressure",
            text: "The seed's experiment job (§10.1): two datagen subtasks emitting 2000 records/s of 1 KB in total, hashed to `count-per-key`, checkpoints every 5 s. Three checkpoints have completed; the *Checkpoints* History shows each took a couple of milliseconds and is about 5.5 KB. The seed measured 16–41 ms and 5.7 KB on a laptop JVM; the order of magnitude is the point. Keep this row in mind.",
            setup: Setup::preset("seed-demo"),
            until: until_checkpoint_3(),
            view: history(3),
        },
        Step {
            title: "Aligned, with backpressure",
            text: "Now `count-per-key` costs 5 ms a record (the seed's `slow` argument): about 200 records/s per subtask against ~1000 arriving. Checkpoint 3 took seconds, with the same 5.5 KB. Those seconds are the barrier queuing behind full network buffers before alignment can even start (seed §5.4). The seed measured 3.0–3.9 s. Open *Why was this checkpoint slow?* to see the buffers ahead of each barrier.",
            setup: Setup::preset("seed-backpressure"),
            until: until_checkpoint_3(),
            view: history(3),
        },
        Step {
            title: "Unaligned, with backpressure",
            text: "The same backpressure with `execution.checkpointing.unaligned.enabled: true` (the seed's `unaligned` argument). Checkpoint 3 takes milliseconds again, but it is about 100 times larger: the *Persisted* column is the in-flight data the barrier overtook, stored as channel state. The seed measured 17–43 ms and 590–694 KB. The *Compare modes* panel runs this scenario under every mode side by side.",
            setup: Setup::preset("seed-unaligned"),
            until: until_checkpoint_3(),
            view: history(3),
        },
        Step {
            title: "Try it: an aligned-checkpoint timeout",
            text: "§10.3's first change: `execution.checkpointing.aligned-checkpoint-timeout: 1s` (the *Configuration* panel lists it). Each checkpoint starts aligned; when the barrier has not got through within one second it is promoted to a priority barrier and the checkpoint continues unaligned (`AlternatingCollectingBarriers.alignedCheckpointTimeout`). Checkpoint 3 takes about one second, and its size lies between the aligned and the unaligned one: only the data still queued after that second is persisted.",
            setup: Setup {
                preset: "seed-unaligned",
                set: &["execution.checkpointing.aligned-checkpoint-timeout=1s"],
                faults: &[],
            },
            until: until_checkpoint_3(),
            view: history(3),
        },
        Step {
            title: "Try it: less work per record",
            text: "The second change: 1 ms per record instead of 5 (`operator.count-per-key.cost-per-record=1ms`, the seed's `Thread.sleep(1)`). Each subtask now handles about 1000 records/s, about what arrives. The aligned checkpoint is back under a second: with little data queued ahead of the barrier there is little to wait for. Some queuing remains, because 1 ms a record is right at the arrival rate.",
            setup: Setup {
                preset: "seed-backpressure",
                set: &["operator.count-per-key.cost-per-record=1ms"],
                faults: &[],
            },
            until: until_checkpoint_3(),
            view: history(3),
        },
        Step {
            title: "Try it: fewer bytes in flight",
            text: "The third change in the seed is buffer debloating (`taskmanager.network.memory.buffer-debloat.enabled`, FLIP-183), which Barrier Lab does not model. What debloating does is shrink the network buffers so that they hold about a second's worth of data. Smaller segments (`taskmanager.memory.segment-size: 8kb`) have the same effect on the barrier: still 5 ms a record, still backpressure, but fewer bytes queued ahead of each barrier, so aligned checkpoint 3 takes well under a second instead of nearly three. That is why debloating shortens alignment.",
            setup: Setup {
                preset: "seed-backpressure",
                set: &["taskmanager.memory.segment-size=8kb"],
                faults: &[],
            },
            until: until_checkpoint_3(),
            view: history(3),
        },
    ],
};
