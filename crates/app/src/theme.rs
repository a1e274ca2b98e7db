//! Light and dark themes: the system's preference unless the user picked one (kept in
//! localStorage), applied as `data-theme` on `<html>`.

const KEY: &str = "barrierlab.theme";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// The theme the system prefers.
fn system_theme() -> &'static str {
    let dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    if dark {
        "dark"
    } else {
        "light"
    }
}

/// The theme in effect: the stored choice, else the system's.
pub fn current() -> String {
    storage()
        .and_then(|s| s.get_item(KEY).ok().flatten())
        .filter(|t| t == "light" || t == "dark")
        .unwrap_or_else(|| system_theme().to_string())
}

/// Applies `theme` to the page and remembers it.
pub fn apply(theme: &str, remember: bool) {
    if let Some(root) = gloo_utils::document().document_element() {
        let _ = root.set_attribute("data-theme", theme);
    }
    if remember {
        if let Some(s) = storage() {
            let _ = s.set_item(KEY, theme);
        }
    }
}
