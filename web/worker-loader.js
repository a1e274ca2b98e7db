// The page's Web Worker (crates/app/src/worker/): loads wasm-bindgen's no-modules glue, then the
// module; its `main` installs the message handler and posts `Ready`. Ours rather than Trunk's
// loader shim, which calls the glue with the form it deprecates (a console warning per worker).
importScripts('./barrierlab-worker.js');
wasm_bindgen({ module_or_path: './barrierlab-worker_bg.wasm' });
