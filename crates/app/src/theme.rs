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

thread_local! {
    /// A theme a shared link asked for: wins over the stored choice for this page only.
    static OVERRIDE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Uses `theme` (`light` or `dark`) for this page without remembering it; other names are ignored.
pub fn set_override(theme: &str) {
    if theme == "light" || theme == "dark" {
        OVERRIDE.with(|o| *o.borrow_mut() = Some(theme.to_string()));
        apply(theme, false);
    }
}

/// The theme in effect: a link's, else the stored choice, else the system's.
pub fn current() -> String {
    if let Some(t) = OVERRIDE.with(|o| o.borrow().clone()) {
        return t;
    }
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
