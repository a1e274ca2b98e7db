//! Renders the playground in a real browser (headless Chromium via wasm-bindgen-test).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

#[wasm_bindgen_test]
async fn app_renders_its_panels() {
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    yew::Renderer::<barrierlab_app::App>::with_root(host.clone()).render();
    // Yew renders on the next microtask turn.
    yew::platform::time::sleep(std::time::Duration::from_millis(50)).await;
    let html = host.inner_html();
    assert!(html.contains("Barrier Lab"), "header missing: {html}");
    for id in ["job-graph", "checkpoints", "timeline", "event-log"] {
        assert!(
            host.query_selector(&format!("#{id}")).unwrap().is_some(),
            "panel #{id} missing"
        );
    }
    // The seed's demo job is loaded: controls, status bar and the job graph's vertices.
    for selector in [
        "#preset",
        "#play",
        "#sim-time",
        "#fingerprint",
        "#job-graph .vertex",
    ] {
        assert!(
            host.query_selector(selector).unwrap().is_some(),
            "{selector} missing"
        );
    }
}
