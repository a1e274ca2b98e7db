use yew::prelude::*;

use crate::theme;

/// The favicon as a data URI: Trunk fingerprints `web/favicon.svg`, so a plain `favicon.svg`
/// path would not resolve in the built site.
fn logo_uri() -> String {
    let svg = include_str!("../../../../web/favicon.svg");
    let mut uri = String::from("data:image/svg+xml,");
    for c in svg.chars() {
        match c {
            '#' => uri.push_str("%23"),
            '%' => uri.push_str("%25"),
            '<' => uri.push_str("%3C"),
            '>' => uri.push_str("%3E"),
            '"' => uri.push('\''),
            '\n' => uri.push(' '),
            c => uri.push(c),
        }
    }
    uri
}

#[function_component(Header)]
pub fn header() -> Html {
    let current = use_state(theme::current);
    {
        let current = current.clone();
        use_effect_with((), move |_| theme::apply(&current, false));
    }
    let toggle = {
        let current = current.clone();
        Callback::from(move |_| {
            let next = if *current == "dark" { "light" } else { "dark" };
            theme::apply(next, true);
            current.set(next.to_string());
        })
    };
    let (label, title) = if *current == "dark" {
        ("☀", "Switch to the light theme")
    } else {
        ("☾", "Switch to the dark theme")
    };
    html! {
        <header class="topbar">
            <h1 class="brand">
                <img src={logo_uri()} alt="" width="24" height="24" />
                { "Barrier Lab" }
            </h1>
            <span class="tagline">{ "Apache Flink 2.3 checkpointing, simulated in your browser" }</span>
            <span class="spacer" />
            <a id="import-open" class="button-link" href="#import"
               title="Open a real Flink job's checkpoint statistics (a bundle barrierlab collect wrote)">{ "Open Flink job…" }</a>
            <a id="tutorials-open" class="button-link" href="#tutorials">{ "Tutorials" }</a>
            <button id="theme-toggle" class="icon" title={title} aria-label={title} onclick={toggle}>
                { label }
            </button>
        </header>
    }
}
