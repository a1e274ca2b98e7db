//! Live heap over a long run, with the playground's time-travel snapshots (16 kept, thinned by
//! halves): `cargo run --release -p barrierlab-engine --example memory -- seed-unaligned 400000`
//! prints the bytes allocated every 20,000 simulated seconds. A bounded engine plateaus; before
//! the per-checkpoint maps were bounded this grew by about 14 KiB per checkpoint and snapshot.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use barrierlab_engine::scenario::preset;
use barrierlab_engine::sim::Simulation;

/// Counts live bytes; the engine itself never reads it.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const SECOND: u64 = 1_000_000;
/// The playground's time-travel policy (crates/app/src/travel.rs).
const MAX_SNAPSHOTS: usize = 16;
const FIRST_EVERY: u64 = 2 * SECOND;

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "seed-unaligned".into());
    let seconds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(400_000);
    let Some(scenario) = preset(&name) else {
        eprintln!("unknown preset {name}");
        std::process::exit(2);
    };
    let mut sim = Simulation::new(scenario).expect("presets are valid");
    let mut snapshots = vec![sim.clone()];
    let mut every = FIRST_EVERY;
    let mut next_report = 0;
    let mut peak = 0;
    // 50 simulated seconds a slice, as a fast playground tick does.
    for t in (0..=seconds * SECOND)
        .step_by((50 * SECOND) as usize)
        .skip(1)
    {
        sim.run_until(t);
        let last = snapshots.last().map_or(0, |s| s.now);
        if sim.now >= last + every {
            snapshots.push(sim.clone());
            if snapshots.len() > MAX_SNAPSHOTS {
                let mut i = 0;
                snapshots.retain(|_| {
                    i += 1;
                    i == 1 || i % 2 == 0
                });
                every *= 2;
            }
        }
        let live = LIVE.load(Ordering::Relaxed);
        peak = peak.max(live);
        if t >= next_report {
            next_report += 20_000 * SECOND;
            println!(
                "{name} t={:>7} s  live {:>6} KiB  peak {:>6} KiB  snapshots {:>2} (every {} s)",
                t / SECOND,
                live / 1024,
                peak / 1024,
                snapshots.len(),
                every / SECOND
            );
        }
    }
}
