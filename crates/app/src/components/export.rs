//! Export: the timeline as SVG (the element serialized, with its computed styles inlined so it
//! renders the same outside the page) and PNG (that SVG drawn on a canvas), the statistics
//! as Flink-REST JSON, and the running scenario as a Flink 2.3 job (a zip, `flink_job.rs`).

use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement};
use yew::prelude::*;

use barrierlab_engine::scenario::Scenario;

use crate::flink_job;
use crate::job::SimCell;

/// Style properties copied onto every exported SVG element.
const PROPS: [&str; 9] = [
    "fill",
    "stroke",
    "stroke-width",
    "stroke-dasharray",
    "opacity",
    "font-size",
    "font-weight",
    "font-family",
    "font-style",
];

fn document() -> Option<web_sys::Document> {
    web_sys::window()?.document()
}

/// Clicks a temporary `<a download>` for `href`.
fn download(name: &str, href: &str) -> Result<(), JsValue> {
    let doc = document().ok_or("no document")?;
    let a: HtmlAnchorElement = doc.create_element("a")?.dyn_into()?;
    a.set_href(href);
    a.set_download(name);
    a.set_attribute("style", "display:none")?;
    doc.body().ok_or("no body")?.append_child(&a)?;
    a.click();
    a.remove();
    Ok(())
}

pub(crate) fn download_text(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    download_blob(
        name,
        &web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?,
    )
}

/// Downloads `bytes` as a file (the array is copied into the blob).
fn download_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    download_blob(
        name,
        &web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts)?,
    )
}

fn download_blob(name: &str, blob: &web_sys::Blob) -> Result<(), JsValue> {
    let url = web_sys::Url::create_object_url_with_blob(blob)?;
    download(name, &url)?;
    // Revoke later: the download has to start first.
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    if let Some(w) = web_sys::window() {
        w.set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 5_000)?;
    }
    Ok(())
}

fn inline_styles(
    original: &Element,
    copy: &Element,
    window: &web_sys::Window,
) -> Result<(), JsValue> {
    if let Some(style) = window.get_computed_style(original)? {
        let mut text = String::new();
        for p in PROPS {
            let v = style.get_property_value(p)?;
            if !v.is_empty() {
                text.push_str(&format!("{p}:{v};"));
            }
        }
        copy.set_attribute("style", &text)?;
    }
    let (a, b) = (original.children(), copy.children());
    for i in 0..a.length().min(b.length()) {
        if let (Some(x), Some(y)) = (a.item(i), b.item(i)) {
            inline_styles(&x, &y, window)?;
        }
    }
    Ok(())
}

/// The SVG matched by `selector`, standalone, and its size in CSS pixels.
fn standalone_svg(selector: &str) -> Result<(String, f64, f64), JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let doc = document().ok_or("no document")?;
    let svg = doc.query_selector(selector)?.ok_or("nothing to export")?;
    let copy: Element = svg.clone_node_with_deep(true)?.dyn_into()?;
    inline_styles(&svg, &copy, &window)?;
    let rect = svg.get_bounding_client_rect();
    let (w, h) = (rect.width().max(1.0), rect.height().max(1.0));
    copy.set_attribute("xmlns", "http://www.w3.org/2000/svg")?;
    copy.set_attribute("width", &format!("{w:.0}"))?;
    copy.set_attribute("height", &format!("{h:.0}"))?;
    let bg = window
        .get_computed_style(&doc.query_selector(".panel")?.ok_or("no panel")?)?
        .map(|s| s.get_property_value("background-color").unwrap_or_default())
        .unwrap_or_default();
    let old = copy.get_attribute("style").unwrap_or_default();
    copy.set_attribute("style", &format!("{old}background:{bg};"))?;
    let text = web_sys::XmlSerializer::new()?.serialize_to_string(&copy)?;
    Ok((text, w, h))
}

fn export_png(selector: &str, name: &'static str) -> Result<(), JsValue> {
    let (text, w, h) = standalone_svg(selector)?;
    let doc = document().ok_or("no document")?;
    let img = HtmlImageElement::new()?;
    let canvas: HtmlCanvasElement = doc.create_element("canvas")?.dyn_into()?;
    let scale = 2.0;
    canvas.set_width((w * scale) as u32);
    canvas.set_height((h * scale) as u32);
    let img2 = img.clone();
    let onload = Closure::once_into_js(move || {
        let draw = || -> Result<(), JsValue> {
            let ctx: web_sys::CanvasRenderingContext2d = canvas
                .get_context("2d")?
                .ok_or("no 2d context")?
                .dyn_into()?;
            ctx.scale(scale, scale)?;
            ctx.draw_image_with_html_image_element(&img2, 0.0, 0.0)?;
            download(name, &canvas.to_data_url_with_type("image/png")?)
        };
        if let Err(e) = draw() {
            web_sys::console::warn_1(&e);
        }
    });
    img.set_onload(Some(onload.unchecked_ref()));
    let data = js_sys::encode_uri_component(&text);
    img.set_src(&format!("data:image/svg+xml;charset=utf-8,{data}"));
    Ok(())
}

#[derive(Properties, PartialEq)]
pub struct ExportProps {
    pub sim: SimCell,
    /// The scenario the running job was built from (edits, seed and faults included).
    pub scenario: Rc<Scenario>,
}

/// What the last "Export as Flink job" did, for the scenario it exported.
#[derive(Clone, PartialEq)]
enum FlinkExport {
    /// Downloaded under this name.
    Downloaded(String),
    /// The engine's refusal (or why the download did not start): nothing downloaded.
    Refused(String),
}

/// Now, in local time as zip entries keep it (the 1980 default if the clock says otherwise).
fn zip_time_now() -> zip::DateTime {
    let d = js_sys::Date::new_0();
    u16::try_from(d.get_full_year())
        .ok()
        .and_then(|year| {
            zip::DateTime::from_date_and_time(
                year,
                d.get_month() as u8 + 1,
                d.get_date() as u8,
                d.get_hours() as u8,
                d.get_minutes() as u8,
                d.get_seconds() as u8,
            )
            .ok()
        })
        .unwrap_or_default()
}

/// Zips the scenario's Flink job and downloads it, or says why not.
fn export_flink_job(scenario: &Scenario) -> FlinkExport {
    let bytes = match flink_job::flink_job_zip(scenario, zip_time_now()) {
        Ok(bytes) => bytes,
        Err(message) => return FlinkExport::Refused(message),
    };
    let name = flink_job::zip_name(scenario);
    match download_bytes(&name, "application/zip", &bytes) {
        Ok(()) => FlinkExport::Downloaded(name),
        Err(e) => FlinkExport::Refused(format!(
            "Could not start the download of {name}: {}",
            e.as_string().unwrap_or_else(|| format!("{e:?}"))
        )),
    }
}

/// The refusal as the engine writes it: a first line, then one `  - reason` line per problem.
fn refusal_html(message: &str) -> Html {
    let mut lines = message.lines();
    // "cannot export …" starts a sentence here.
    let head = lines.next().unwrap_or_default();
    let mut chars = head.chars();
    let head: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    let items: Vec<String> = lines
        .map(|l| l.trim_start().trim_start_matches("- ").to_string())
        .filter(|l| !l.is_empty())
        .collect();
    html! {
        <>
            <span>{ head }</span>
            if !items.is_empty() {
                <ul>{ for items.into_iter().map(|i| html! { <li>{ i }</li> }) }</ul>
            }
        </>
    }
}

const TIMELINE: &str = "#timeline svg.timeline";

fn report(result: Result<(), JsValue>) {
    if let Err(e) = result {
        web_sys::console::warn_2(&JsValue::from_str("export failed:"), &e);
    }
}

#[function_component(ExportBar)]
pub fn export_bar(p: &ExportProps) -> Html {
    let svg = Callback::from(|_| {
        report(standalone_svg(TIMELINE).and_then(|(text, _, _)| {
            download_text("barrierlab-timeline.svg", "image/svg+xml", &text)
        }))
    });
    let png = Callback::from(|_| report(export_png(TIMELINE, "barrierlab-timeline.png")));
    let json = {
        let sim = p.sim.clone();
        Callback::from(move |_| {
            let text =
                serde_json::to_string_pretty(&sim.borrow().json_report()).unwrap_or_default();
            report(download_text(
                "barrierlab-checkpoints.json",
                "application/json",
                &text,
            ))
        })
    };
    // The outcome stays shown while the scenario is the one it was for.
    let flink = use_state(|| None::<(Rc<Scenario>, FlinkExport)>);
    let on_flink = {
        let (flink, scenario) = (flink.clone(), p.scenario.clone());
        Callback::from(move |_| {
            let outcome = export_flink_job(&scenario);
            flink.set(Some((scenario.clone(), outcome)));
        })
    };
    let close = {
        let flink = flink.clone();
        Callback::from(move |_| flink.set(None))
    };
    let message = match &*flink {
        Some((exported, outcome)) if **exported == *p.scenario => Some(match outcome {
            FlinkExport::Downloaded(name) => html! {
                <div id="flink-export-message" class="flink-export" role="status">
                    <span>
                        { format!("Downloaded {name}. To run it: unzip, then ") }
                        <code>{ "./run.sh --seconds 30" }</code>
                        { "; needs Java 17 and Flink 2.3's jars: " }
                        <code>{ "pip install --no-deps apache-flink-libraries==2.3.0" }</code>
                        { ". Its README.md tells more." }
                    </span>
                    <button class="icon" title="Close" aria-label="Close" onclick={close}>{ "×" }</button>
                </div>
            },
            FlinkExport::Refused(text) => html! {
                <div id="flink-export-message" class="flink-export refused" role="alert">
                    <div>{ refusal_html(text) }</div>
                    <button class="icon" title="Close" aria-label="Close" onclick={close}>{ "×" }</button>
                </div>
            },
        }),
        _ => None,
    };
    html! {
        <>
            <div class="export" role="group" aria-label="Export">
                <button id="export-svg" onclick={svg}>{ "Timeline SVG" }</button>
                <button id="export-png" onclick={png}>{ "Timeline PNG" }</button>
                <button id="export-json" onclick={json}>{ "Statistics JSON" }</button>
                <button id="export-flink" onclick={on_flink}
                        title={format!("This scenario (edits, seed and faults) as a runnable Flink 2.3 Java job, zipped. To run it: {}", flink_job::RUN_HINT)}>
                    { "Export as Flink job" }
                </button>
            </div>
            { message.unwrap_or_default() }
        </>
    }
}
