use yew::prelude::*;

#[function_component(StatusBar)]
pub fn status_bar() -> Html {
    html! {
        <footer class="statusbar" role="status">
            <span>{ "No job running" }</span>
            <span class="spacer" />
            <span>{ concat!("barrierlab ", env!("CARGO_PKG_VERSION")) }</span>
        </footer>
    }
}
