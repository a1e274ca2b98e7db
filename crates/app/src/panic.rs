//! The panic overlay: a panic anywhere in the app writes a report into a DOM overlay with
//! "copy report" and "reset" buttons instead of leaving a blank or frozen page.
//!
//! The release build aborts on panic, so after the hook returns no Rust code can be trusted to
//! run again: the overlay is plain DOM and its buttons use inline JavaScript handlers.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};

static PANICKED: AtomicBool = AtomicBool::new(false);

/// Whether a panic happened (timers stop calling into the app once it has).
pub fn panicked() -> bool {
    PANICKED.load(Ordering::Relaxed)
}

/// `?debug=panic` in the page's URL (used by the end-to-end tests).
pub fn panic_requested() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|s| s.contains("debug=panic"))
}

/// Installs the hook (Yew then leaves it in place).
pub fn install() {
    yew::set_custom_panic_hook(Box::new(hook));
}

fn hook(info: &PanicHookInfo<'_>) {
    let first = !PANICKED.swap(true, Ordering::Relaxed);
    let report = format!(
        "Barrier Lab {} panicked.\n\n{info}\n\nPage: {}\nBrowser: {}\n",
        env!("CARGO_PKG_VERSION"),
        web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default(),
        web_sys::window()
            .and_then(|w| w.navigator().user_agent().ok())
            .unwrap_or_default(),
    );
    web_sys::console::error_1(&report.clone().into());
    if first {
        show_overlay(&report);
    }
}

const COPY_JS: &str = "var t=document.getElementById('panic-report').textContent;\
if(navigator.clipboard){navigator.clipboard.writeText(t).then(function(){\
document.getElementById('panic-copy').textContent='copied';},function(){});}";

fn show_overlay(report: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let build = || -> Option<web_sys::Element> {
        let overlay = document.create_element("div").ok()?;
        overlay.set_id("panic-overlay");
        overlay.set_attribute("role", "alertdialog").ok()?;
        overlay.set_attribute("aria-modal", "true").ok()?;
        let card = document.create_element("div").ok()?;
        card.set_class_name("panic-card");
        let title = document.create_element("h2").ok()?;
        title.set_text_content(Some("Barrier Lab crashed"));
        let hint = document.create_element("p").ok()?;
        hint.set_text_content(Some(
            "The simulation stopped because of a bug. Copy the report to file an issue, \
             then reset to start again.",
        ));
        let pre = document.create_element("pre").ok()?;
        pre.set_id("panic-report");
        pre.set_text_content(Some(report));
        let actions = document.create_element("div").ok()?;
        actions.set_class_name("panic-actions");
        let copy = document.create_element("button").ok()?;
        copy.set_id("panic-copy");
        copy.set_text_content(Some("copy report"));
        copy.set_attribute("onclick", COPY_JS).ok()?;
        let reset = document.create_element("button").ok()?;
        reset.set_id("panic-reset");
        reset.set_text_content(Some("reset"));
        reset
            .set_attribute("onclick", "location.href=location.pathname;")
            .ok()?;
        actions.append_child(&copy).ok()?;
        actions.append_child(&reset).ok()?;
        for child in [&title, &hint, &pre, &actions] {
            card.append_child(child).ok()?;
        }
        overlay.append_child(&card).ok()?;
        Some(overlay)
    };
    if let Some(overlay) = build() {
        let _ = body.append_child(&overlay);
    }
}
