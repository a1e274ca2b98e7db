//! `barrierlab-worker`: the page's Web Worker (see `worker/`). Natively it does nothing.

fn main() {
    #[cfg(target_arch = "wasm32")]
    barrierlab_app::worker::serve::serve();
}
