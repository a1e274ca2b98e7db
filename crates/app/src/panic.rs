//! The panic overlay: a panic anywhere in the app writes a report into a DOM overlay with
//! "copy report" and "reset" buttons instead of leaving a blank or frozen page.
//!
//! The release build aborts on panic, so after the hook returns no Rust code can be trusted to
//! run again: the overlay is plain DOM and its buttons use inline JavaScript handlers.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};

static PANICKED: AtomicBool = AtomicBool::new(false);

/// Whether a panic or a trap happened (timers stop calling into the app once it has).
pub fn panicked() -> bool {
    PANICKED.load(Ordering::Relaxed) || trapped()
}

/// The window property the trap handler sets.
const TRAPPED: &str = "barrierlabTrapped";

fn trapped() -> bool {
    web_sys::window()
        .and_then(|w| js_sys::Reflect::get(&w, &TRAPPED.into()).ok())
        .is_some_and(|v| v.is_truthy())
}

/// A trap (`RuntimeError: unreachable`, e.g. an allocation that failed) skips the panic hook and
/// can leave a `RefCell` borrowed mid-update: the next timer tick would then panic with a
/// misleading "already borrowed". This handler is plain JavaScript, so it runs whatever state
/// the module is in: it marks the page as crashed (the ticks stop) and shows the real error.
const TRAP_JS: &str = "var err=e&&e.error;\
if(!(err instanceof WebAssembly.RuntimeError)||window.barrierlabTrapped)return;\
window.barrierlabTrapped=true;\
if(document.getElementById('panic-overlay'))return;\
var d=document,o=d.createElement('div');o.id='panic-overlay';o.setAttribute('role','alertdialog');\
o.setAttribute('aria-modal','true');var c=d.createElement('div');c.className='panic-card';\
var h=d.createElement('h2');h.textContent='Barrier Lab crashed';\
var p=d.createElement('p');p.textContent='The simulation stopped: its WebAssembly module trapped \
('+err.message+'). A trap without a panic message is most often memory running out. \
Copy the report to file an issue, then reset to start again.';\
var pre=d.createElement('pre');pre.id='panic-report';\
pre.textContent='Barrier Lab trapped.\\n\\n'+err+'\\n'+(err.stack||'')+'\\nPage: '+location.href+\
'\\nBrowser: '+navigator.userAgent+'\\n';\
var a=d.createElement('div');a.className='panic-actions';\
var cp=d.createElement('button');cp.id='panic-copy';cp.textContent='copy report';\
cp.setAttribute('onclick',COPY);\
var r=d.createElement('button');r.id='panic-reset';r.textContent='reset';\
r.setAttribute('onclick','location.href=location.pathname;');\
a.appendChild(cp);a.appendChild(r);[h,p,pre,a].forEach(function(x){c.appendChild(x);});\
o.appendChild(c);d.body.appendChild(o);";

/// `?debug=panic` in the page's URL (used by the end-to-end tests).
pub fn panic_requested() -> bool {
    web_sys::window()
        .and_then(|w| w.location().search().ok())
        .is_some_and(|s| s.contains("debug=panic"))
}

/// `?debug=trap` in the page's URL: the reducer aborts (a trap, as when memory runs out) once
/// a simulated second has passed (used by the end-to-end tests).
pub fn trap_requested() -> bool {
    thread_local! {
        static REQUESTED: bool = web_sys::window()
            .and_then(|w| w.location().search().ok())
            .is_some_and(|s| s.contains("debug=trap"));
    }
    REQUESTED.with(|r| *r)
}

/// Installs the hook (Yew then leaves it in place) and the trap handler.
pub fn install() {
    yew::set_custom_panic_hook(Box::new(hook));
    if let Some(window) = web_sys::window() {
        let body = TRAP_JS.replace("COPY", &format!("{COPY_JS:?}"));
        let handler = js_sys::Function::new_with_args("e", &body);
        let _ = window.add_event_listener_with_callback("error", &handler);
    }
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
