//! View models: plain data the components render, extracted from the simulation.

pub mod graph;
pub mod timeline;

/// A job vertex's name shortened to its chain head: `count-per-key -> a -> b` → `count-per-key…`.
pub fn short_name(name: &str) -> String {
    match name.split_once(" -> ") {
        Some((head, _)) => format!("{head}…"),
        None => name.to_string(),
    }
}

/// `short_name #index`, how the UI names one subtask.
pub fn subtask_label(vertex_name: &str, index: u32) -> String {
    format!("{} #{index}", short_name(vertex_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortens_chains() {
        assert_eq!(short_name("Source: datagen"), "Source: datagen");
        assert_eq!(
            short_name("count-per-key -> map -> sink: Writer"),
            "count-per-key…"
        );
        assert_eq!(subtask_label("a -> b", 1), "a… #1");
    }
}
