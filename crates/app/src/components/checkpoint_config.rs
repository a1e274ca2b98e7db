//! The checkpoints panel's Configuration tab: `/jobs/:id/checkpoints/config`
//! (`CheckpointConfigInfo`), one row per REST field, or the error body of a job that does not
//! checkpoint periodically.

use barrierlab_engine::stats::{
    CheckpointConfigInfo, CheckpointConfigResponse, ErrorResponseBody, ProcessingMode,
};
use yew::prelude::*;

use crate::format::millis;

pub fn configuration(cfg: &CheckpointConfigResponse) -> Html {
    html! {
        <table class="data config" id="checkpoint-config">
            <thead><tr><th>{ "Option" }</th><th>{ "Value" }</th></tr></thead>
            <tbody>
                { for rows(cfg).into_iter().map(|(label, value)| html! {
                    <tr><th scope="row">{ label }</th><td>{ value }</td></tr>
                }) }
            </tbody>
        </table>
    }
}

/// (label, value) per REST field, labelled with the field's name in words and in the JSON's
/// (alphabetical) key order, as the tab has always listed them.
fn rows(cfg: &CheckpointConfigResponse) -> Vec<(&'static str, String)> {
    match cfg {
        CheckpointConfigResponse::Error(ErrorResponseBody { errors }) => {
            // The list as JSON, quotes and all, as the tab showed it.
            vec![("Errors", serde_json::to_string(errors).unwrap_or_default())]
        }
        CheckpointConfigResponse::Info(c) => info_rows(c),
    }
}

fn info_rows(c: &CheckpointConfigInfo) -> Vec<(&'static str, String)> {
    // REST durations are never negative here; 0 stands in if one ever were.
    let ms = |v: i64| millis(u64::try_from(v).unwrap_or(0));
    let mode = match c.mode {
        ProcessingMode::AtLeastOnce => "AT LEAST ONCE",
        ProcessingMode::ExactlyOnce => "EXACTLY ONCE",
    };
    let e = &c.externalization;
    vec![
        (
            "Aligned checkpoint timeout",
            ms(c.aligned_checkpoint_timeout),
        ),
        (
            "Changelog periodic materialization interval",
            ms(c.changelog_periodic_materialization_interval),
        ),
        ("Changelog storage", c.changelog_storage.clone()),
        ("Checkpoint storage", c.checkpoint_storage.clone()),
        (
            "Checkpoints after tasks finish",
            c.checkpoints_after_tasks_finish.to_string(),
        ),
        (
            "Externalization",
            format!(
                "delete on cancellation: {}, enabled: {}",
                e.delete_on_cancellation, e.enabled
            ),
        ),
        ("Interval", ms(c.interval)),
        ("Max concurrent", c.max_concurrent.to_string()),
        ("Min pause", ms(c.min_pause)),
        ("Mode", mode.to_string()),
        ("State backend", c.state_backend.clone()),
        (
            "State changelog enabled",
            c.state_changelog_enabled.to_string(),
        ),
        ("Timeout", ms(c.timeout)),
        (
            "Tolerable failed checkpoints",
            c.tolerable_failed_checkpoints.to_string(),
        ),
        ("Unaligned checkpoints", c.unaligned_checkpoints.to_string()),
    ]
}

#[cfg(test)]
mod tests {
    use barrierlab_engine::scenario::preset;
    use barrierlab_engine::sim::Simulation;
    use serde_json::Value;

    use super::*;

    /// The rows as the tab derived them from the REST JSON before the report was typed: every
    /// key in order, its name in words, the value printed by its JSON type.
    fn rows_from_json(cfg: &Value) -> Vec<(String, String)> {
        let pretty = |key: &str, v: &Value| -> String {
            match (key, v) {
                (
                    "interval"
                    | "timeout"
                    | "min_pause"
                    | "aligned_checkpoint_timeout"
                    | "changelog_periodic_materialization_interval",
                    Value::Number(n),
                ) => millis(n.as_u64().unwrap_or(0)),
                ("mode", Value::String(m)) => m.replace('_', " ").to_ascii_uppercase(),
                (_, Value::Object(o)) => o
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.replace('_', " "), v))
                    .collect::<Vec<_>>()
                    .join(", "),
                (_, Value::String(s)) => s.clone(),
                (_, other) => other.to_string(),
            }
        };
        cfg.as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| {
                let label = k.replace('_', " ");
                (label[..1].to_ascii_uppercase() + &label[1..], pretty(k, v))
            })
            .collect()
    }

    /// A new REST field, or a renamed one, fails here until the tab shows it too.
    #[test]
    fn the_rows_are_the_rest_fields_in_json_order() {
        let settings: [&[(&str, &str)]; 4] = [
            &[],
            &[("execution.checkpointing.mode", "AT_LEAST_ONCE")],
            &[
                ("execution.checkpointing.unaligned.enabled", "true"),
                ("execution.checkpointing.max-concurrent-checkpoints", "2"),
            ],
            &[("execution.checkpointing.interval", "")],
        ];
        for set in settings {
            let mut scenario = preset("seed-demo").unwrap();
            for (key, value) in set {
                if value.is_empty() {
                    scenario.config.remove(*key);
                } else {
                    scenario.config.insert(key.to_string(), value.to_string());
                }
            }
            let config = Simulation::new(scenario).unwrap().rest_report().config;
            let typed: Vec<(String, String)> = rows(&config)
                .into_iter()
                .map(|(label, value)| (label.to_string(), value))
                .collect();
            let json = serde_json::to_value(&config).unwrap();
            assert_eq!(typed, rows_from_json(&json), "{set:?}");
        }
    }
}
