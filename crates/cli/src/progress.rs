//! Progress of a long `run` on a terminal: a bar on stderr, in simulated time. Nothing at all when
//! stderr is not a terminal (piped, redirected, CI, tests), so scripts read only the report.

use barrierlab_engine::sim::Simulation;
use barrierlab_engine::types::Micros;
#[cfg(not(target_arch = "wasm32"))]
use {
    barrierlab_engine::types::{MICROS_PER_MS, MICROS_PER_SEC},
    indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle},
    std::io::IsTerminal,
    std::time::Duration,
};

/// Simulated time between two looks at the bar. Slicing changes nothing: `run_until(a)` then
/// `run_until(b)` is `run_until(b)` (engine test
/// `determinism::stepping_granularity_does_not_change_the_run`).
#[cfg(not(target_arch = "wasm32"))]
const SLICE: Micros = 100 * MICROS_PER_MS;

/// `12.3 s`: simulated time for the bar.
#[cfg(not(target_arch = "wasm32"))]
fn seconds(us: Micros) -> String {
    format!(
        "{}.{} s",
        us / MICROS_PER_SEC,
        us % MICROS_PER_SEC / 100_000
    )
}

/// Runs `sim` to `until` (the CLI is built for wasm32 only to be checked: no terminal there).
#[cfg(target_arch = "wasm32")]
pub fn run_until(sim: &mut Simulation, until: Micros) {
    sim.run_until(until);
}

/// Runs `sim` to `until`, with a progress bar on stderr if it is a terminal.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_until(sim: &mut Simulation, until: Micros) {
    if !std::io::stderr().is_terminal() {
        sim.run_until(until);
        return;
    }
    let bar = ProgressBar::with_draw_target(
        Some(until.div_ceil(MICROS_PER_MS)),
        ProgressDrawTarget::stderr(),
    );
    // `wide_bar` takes what the line leaves, so the bar never wraps on a narrow terminal.
    if let Ok(style) =
        ProgressStyle::with_template("simulating {msg} [{wide_bar}] {elapsed}, eta {eta}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.enable_steady_tick(Duration::from_millis(250));
    let total = seconds(until);
    let mut t = sim.now;
    loop {
        t = (t + SLICE).min(until);
        sim.run_until(t);
        bar.set_position(t / MICROS_PER_MS);
        bar.set_message(format!("{} of {total}", seconds(t)));
        if t >= until {
            break;
        }
    }
    // The report follows on stdout; the bar leaves no line behind.
    bar.finish_and_clear();
}
