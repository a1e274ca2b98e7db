//! `window.barrierlabBench(seconds, taskmanagers)`: runs `bench-512` in the page, without the
//! UI, and returns what `barrierlab bench` prints natively (as JSON), so the browser benchmark
//! (`tests/e2e/bench.mjs`) puts the engine's speed in Chromium beside the native figure.

use barrierlab_engine::scenario::{bench_job, preset};
use barrierlab_engine::sim::{HandOverCost, Simulation};
use barrierlab_engine::types::MICROS_PER_SEC;

use crate::clock;
use crate::job::DEFAULT_PRESET;

/// One run of bench-512 on `taskmanagers` TaskManagers for `seconds` simulated seconds.
pub fn run(seconds: u32, taskmanagers: u32) -> Result<serde_json::Value, String> {
    if !(1..=128).contains(&taskmanagers) || !(1..=600).contains(&seconds) {
        return Err(format!(
            "bench: {seconds} s on {taskmanagers} TaskManagers: 1-600 s on 1-128 TaskManagers"
        ));
    }
    let mut sim = Simulation::new(bench_job(taskmanagers))?;
    let start = clock::now_ms();
    sim.run_until(u64::from(seconds) * MICROS_PER_SEC);
    let wall_ms = clock::now_ms() - start;
    let hops: u64 = sim.tasks.iter().map(|t| t.records_in).sum();
    let mut demo = Simulation::new(preset(DEFAULT_PRESET).ok_or("no demo preset")?)?;
    demo.run_until(30 * MICROS_PER_SEC);
    Ok(serde_json::json!({
        "seconds": seconds,
        "taskmanagers": taskmanagers,
        "wall_ms": wall_ms,
        "record_hops": hops,
        "events": sim.events,
        "fingerprint": sim.fingerprint(),
        "snapshot": HandOverCost::measure(&sim, clock::now_ms)?,
        "demo_snapshot": HandOverCost::measure(&demo, clock::now_ms)?,
    }))
}

/// Installs `window.barrierlabBench`: returns the JSON text of [`run`], or `{"error": …}`.
#[cfg(target_arch = "wasm32")]
pub fn install(window: &web_sys::Window) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let f = Closure::<dyn Fn(u32, u32) -> String>::new(|seconds, taskmanagers| {
        match run(seconds, taskmanagers) {
            Ok(v) => v.to_string(),
            Err(e) => serde_json::json!({ "error": e }).to_string(),
        }
    });
    let _ = js_sys::Reflect::set(
        window,
        &"barrierlabBench".into(),
        f.as_ref().unchecked_ref(),
    );
    // The page keeps it for its lifetime.
    f.forget();
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_page_benchmark_runs_the_cli_job_and_refuses_nonsense() {
        let v = super::run(1, 8).unwrap();
        assert!(v["record_hops"].as_u64().unwrap() > 1_000_000, "{v}");
        assert_eq!(v["fingerprint"].as_str().map(str::len), Some(16));
        for costs in [&v["snapshot"], &v["demo_snapshot"]] {
            let (full, update) = (costs["bytes"].as_u64(), costs["update_bytes"].as_u64());
            assert!(full > Some(1000) && update > Some(100), "{v}");
        }
        // The demo's update carries a few trace events, its snapshot all of them.
        let demo = &v["demo_snapshot"];
        assert!(
            demo["update_bytes"].as_u64() < demo["bytes"].as_u64(),
            "{v}"
        );
        assert!(
            super::run(0, 1).is_err() && super::run(1, 0).is_err() && super::run(1, 129).is_err()
        );
    }
}
