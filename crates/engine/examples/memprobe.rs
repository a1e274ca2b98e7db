use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size(), Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        LIVE.fetch_add(n, Ordering::Relaxed);
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static A: Counting = Counting;
fn main() {
    let name = std::env::args().nth(1).unwrap_or("seed-unaligned".into());
    let sc = barrierlab_engine::scenario::preset(&name).unwrap();
    let mut sim = barrierlab_engine::sim::Simulation::new(sc).unwrap();
    for step in 1..=12u64 {
        sim.run_until(step * 300_000_000);
        let before = LIVE.load(Ordering::Relaxed);
        let c = sim.clone();
        let clone = LIVE.load(Ordering::Relaxed) - before;
        drop(c);
        println!("t={}s live={} KiB clone={} KiB offsets={} inflight={} completed_state={} acked={} trace={}", step*300, before/1024, clone/1024, sim.checkpoint_offsets.len(), sim.checkpoint_in_flight.len(), sim.completed_state.len(), 0, sim.trace.events().count());
    }
}
