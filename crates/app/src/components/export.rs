//! Export: the timeline as SVG (the element serialized, with its computed styles inlined so it
//! renders the same outside the page) and PNG (that SVG drawn on a canvas), and the statistics
//! as Flink-REST JSON.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Element, HtmlAnchorElement, HtmlCanvasElement, HtmlImageElement};
use yew::prelude::*;

use crate::state::SimCell;

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
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)?;
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

#[derive(Properties)]
pub struct ExportProps {
    pub sim: SimCell,
}

impl PartialEq for ExportProps {
    fn eq(&self, o: &Self) -> bool {
        std::rc::Rc::ptr_eq(&self.sim, &o.sim)
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
    html! {
        <div class="export" role="group" aria-label="Export">
            <button id="export-svg" onclick={svg}>{ "Timeline SVG" }</button>
            <button id="export-png" onclick={png}>{ "Timeline PNG" }</button>
            <button id="export-json" onclick={json}>{ "Statistics JSON" }</button>
        </div>
    }
}
