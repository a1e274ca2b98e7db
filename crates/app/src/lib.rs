//! Barrier Lab's playground: the Yew front end over `barrierlab-engine`.

pub mod app;
pub mod bench;
mod budget;
mod cadence;
mod clock;
pub mod compare;
mod components;
pub mod consent;
pub mod derived;
mod effects;
pub mod faults;
pub mod flink_job;
pub mod format;
mod heap;
mod hooks;
pub mod imported;
pub mod job;
mod keyboard;
pub mod model;
pub mod panic;
pub mod phase;
pub mod share;
pub mod speed;
pub mod state;
#[cfg(test)]
mod state_tests;
pub mod storage;
mod theme;
pub mod travel;
pub mod tutorial;
pub mod worker;

pub use app::App;

/// Mounts the playground on the page's `<body>`, with a panic hook that shows an overlay
/// instead of leaving a dead page.
pub fn start() {
    panic::install();
    // `window.barrierlabWasmMemory.buffer.byteLength`: the module's memory, for the soak test
    // and for anyone checking that a long run stays flat.
    if let Some(window) = web_sys::window() {
        let _ = js_sys::Reflect::set(
            &window,
            &"barrierlabWasmMemory".into(),
            &wasm_bindgen::memory(),
        );
        #[cfg(target_arch = "wasm32")]
        {
            bench::install(&window);
            heap::install(&window);
        }
    }
    // Renders into <body>, replacing what index.html shows meanwhile (the loading indicator).
    yew::Renderer::<App>::new().render();
}
