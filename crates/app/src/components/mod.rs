pub mod header;
pub mod panel;
pub mod status_bar;
