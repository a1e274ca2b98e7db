//! "Open Flink job…": a bundle from a file (the picker; drops are the page's) or pasted. Hands the
//! text on; reading it is the page's (`imported::open_text`). A failed open keeps the pasted text.

use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// Reads a file as text, or says why not.
pub async fn file_text(file: File) -> Result<String, String> {
    let name = file.name();
    JsFuture::from(file.text())
        .await
        .ok()
        .and_then(|v| v.as_string())
        .ok_or_else(|| format!("“{name}” could not be read as text"))
}

#[derive(Properties, PartialEq)]
pub struct OpenProps {
    /// The text of a file or paste, with where it came from (`the file “x.json”`, `the pasted text`).
    pub ontext: Callback<(String, String)>,
    pub error: Option<AttrValue>,
    pub busy: bool,
}

pub fn read_file(file: File, ontext: Callback<(String, String)>) {
    wasm_bindgen_futures::spawn_local(async move {
        let source = format!("the file “{}”", file.name());
        match file_text(file).await {
            Ok(text) => ontext.emit((text, source)),
            Err(e) => ontext.emit((String::new(), e)),
        }
    });
}

#[function_component(OpenBundle)]
pub fn open_bundle(p: &OpenProps) -> Html {
    let paste = use_state(String::new);
    let onfile = {
        let ontext = p.ontext.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            if let Some(file) = input.files().and_then(|f| f.get(0)) {
                read_file(file, ontext.clone());
            }
            // The same file chosen again (after fixing it) fires `change` again.
            input.set_value("");
        })
    };
    let oninput = {
        let paste = paste.clone();
        Callback::from(move |e: InputEvent| {
            let area: HtmlTextAreaElement = e.target_unchecked_into();
            paste.set(area.value());
        })
    };
    let onpaste_open = {
        let (ontext, paste) = (p.ontext.clone(), paste.clone());
        Callback::from(move |_| ontext.emit(((*paste).clone(), "the pasted text".into())))
    };
    let file_input = use_node_ref();
    let choose = {
        let file_input = file_input.clone();
        Callback::from(move |_| {
            if let Some(i) = file_input.cast::<web_sys::HtmlElement>() {
                i.click();
            }
        })
    };
    html! {
        <div class="import-drop">
            <p class="import-intro">
                { "Open the checkpoint statistics of a real Flink 2.x job: the bundle " }
                <code>{ "barrierlab collect --rest URL --job ID --out job.json" }</code>
                { " (or scripts/collect.sh) writes. It stays in this browser: share links never carry it." }
            </p>
            <div class="import-actions">
                <button id="import-choose" class="primary" onclick={choose} disabled={p.busy}>{ "Choose a bundle file…" }</button>
                <input id="import-file" ref={file_input} type="file" accept=".json,application/json"
                       class="visually-hidden" aria-label="Bundle file" onchange={onfile} />
                <span class="muted">{ "or drop it anywhere on this page, or paste it below" }</span>
            </div>
            <details class="import-paste">
                <summary>{ "Paste a bundle" }</summary>
                <textarea id="import-paste" rows="6" aria-label="Bundle JSON" placeholder="{\"barrierlab_bundle\": …}"
                          value={(*paste).clone()} oninput={oninput} />
                <button id="import-paste-open" onclick={onpaste_open} disabled={p.busy || paste.trim().is_empty()}>{ "Open pasted bundle" }</button>
            </details>
            if p.busy {
                <p id="import-busy" class="muted" role="status">{ "Reading the bundle…" }</p>
            }
            if let Some(e) = &p.error {
                <p id="import-error" class="error" role="alert">{ e.clone() }</p>
            }
        </div>
    }
}
