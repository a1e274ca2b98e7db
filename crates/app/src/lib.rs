//! Barrier Lab's playground: the Yew front end over `barrierlab-engine`.

pub mod app;
mod components;

pub use app::App;

/// Mounts the playground on the page's `<body>`.
pub fn start() {
    yew::Renderer::<App>::new().render();
}
