//! A message between page and worker as it crosses `postMessage`: its JSON text alone, or the
//! text and bytes (a job's snapshot or update) as a two-element array, the bytes' buffer
//! transferred rather than copied a second time.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};

/// The message and the list of buffers to transfer with it.
pub fn encode(text: &str, bytes: Option<&[u8]>) -> (JsValue, Option<Array>) {
    match bytes {
        None => (JsValue::from_str(text), None),
        Some(bytes) => {
            let data = Uint8Array::from(bytes);
            let transfer = Array::of1(&data.buffer());
            (Array::of2(&text.into(), &data).into(), Some(transfer))
        }
    }
}

/// The text and bytes of a message `encode` wrote; empty text for anything else.
pub fn decode(data: &JsValue) -> (String, Option<Vec<u8>>) {
    if let Some(text) = data.as_string() {
        return (text, None);
    }
    if Array::is_array(data) {
        let pair = Array::from(data);
        let text = pair.get(0).as_string().unwrap_or_default();
        let bytes = pair.get(1);
        if bytes.is_instance_of::<Uint8Array>() {
            return (text, Some(Uint8Array::new(&bytes).to_vec()));
        }
        return (text, None);
    }
    (String::new(), None)
}
