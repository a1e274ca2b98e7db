use yew::prelude::*;

#[function_component(Header)]
pub fn header() -> Html {
    html! {
        <header class="topbar">
            <h1 class="brand">
                <img src="favicon.svg" alt="" width="24" height="24" />
                { "Barrier Lab" }
            </h1>
            <span class="tagline">{ "Apache Flink 2.3 checkpointing, simulated in your browser" }</span>
        </header>
    }
}
