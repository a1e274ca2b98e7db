//! `gate` scripts: queues per channel, priority events, polling order, conversions and the
//! channel state the gate writes.

use super::support::*;
use crate::replay::{DriverNote, Effect, MachineState, ReplayReport};

fn gate_script(machine: &str, channels: u32, steps: &str) -> String {
    format!(
        r#"{{"version": 1, "machine": "{machine}", "channels": {channels}, "gate": true, "steps": [{steps}]}}"#
    )
}

/// What each step's polls returned, as `chN:kind`.
fn polled(r: &ReplayReport, step: usize) -> Vec<String> {
    let s = r.steps.iter().find(|s| s.step == step).expect("step ran");
    s.effects
        .iter()
        .filter_map(|e| match &e.effect {
            Effect::Driver(DriverNote::Polled { channel, input }) => {
                let kind = format!("{input:?}");
                Some(format!(
                    "ch{channel}:{}",
                    kind.split([' ', '{']).next().unwrap_or("")
                ))
            }
            Effect::Driver(DriverNote::NothingAvailable) => Some("none".into()),
            _ => None,
        })
        .collect()
}

fn written(r: &ReplayReport, step: usize) -> Vec<(u64, u32, u32)> {
    match &r
        .steps
        .iter()
        .find(|s| s.step == step)
        .expect("step ran")
        .state
    {
        MachineState::Handler(h) => h
            .gate
            .as_ref()
            .expect("a gate")
            .written
            .iter()
            .map(|w| (w.checkpoint, w.channel, w.buffers))
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn items_wait_for_poll_in_arrival_order_and_priority_events_go_first() {
    let r = run(&gate_script(
        "unaligned",
        2,
        r#"{"buffer": {"channel": 1, "bytes": 10}},
           {"buffer": {"channel": 0, "bytes": 10}},
           {"buffer": {"channel": 1, "bytes": 10}},
           {"barrier": {"channel": 0, "id": 1}},
           {"drain": {}}"#,
    ));
    assert!(r.steps[0].effects.is_empty(), "queued, not handled");
    // The unaligned barrier overtakes everything; then channels in the order data arrived.
    assert_eq!(
        polled(&r, 4),
        [
            "ch0:Barrier",
            "ch1:Buffer",
            "ch0:Buffer",
            "ch1:Buffer",
            "none"
        ]
    );
    // The barrier started the checkpoint: what it overtook on ch0 and all of ch1 is state.
    assert_eq!(written(&r, 4), [(1, 0, 1), (1, 1, 2)]);
}

#[test]
fn a_timeoutable_barrier_is_announced_ahead_and_converted_on_the_timeout() {
    let r = run(&gate_script(
        "aligned-with-timeout",
        2,
        r#"{"buffer": {"channel": 0, "bytes": 10}},
           {"barrier": {"channel": 0, "id": 1, "timestamp": 0, "timeout": "10ms"}},
           {"poll": {}},
           {"advance": "10ms"},
           {"drain": {}}"#,
    ));
    assert_eq!(polled(&r, 2), ["ch0:BarrierAnnouncement"]);
    // The timeout converts the announced barrier: it overtakes the buffer queued before it,
    // which becomes channel state. The aligned barrier still blocks its channel (Flink books it
    // as blocked by the credit-based network) until the checkpoint ends, so the buffer waits.
    assert_eq!(polled(&r, 4), ["ch0:Barrier", "none"]);
    assert_eq!(written(&r, 4), [(1, 0, 1)]);
}

#[test]
fn blocked_channels_are_passed_over_and_poll_needs_a_gate() {
    let r = run(&gate_script(
        "aligned",
        2,
        r#"{"barrier": {"channel": 0, "id": 1}},
           {"buffer": {"channel": 0, "bytes": 10}},
           {"buffer": {"channel": 1, "bytes": 10}},
           {"poll": {"times": 3}},
           {"barrier": {"channel": 1, "id": 1}},
           {"drain": {}}"#,
    ));
    assert_eq!(polled(&r, 3), ["ch0:Barrier", "ch1:Buffer", "none"]);
    assert_eq!(polled(&r, 5), ["ch1:Barrier", "ch0:Buffer", "none"]);
    let e =
        error(r#"{"version": 1, "machine": "aligned", "channels": 1, "steps": [{"poll": {}}]}"#);
    assert!(e.contains("\"poll\" needs an input gate"), "{e}");
}

#[test]
fn buffers_arriving_before_the_channel_barrier_are_written_until_it_comes() {
    let r = run(&gate_script(
        "unaligned",
        2,
        r#"{"barrier": {"channel": 0, "id": 1}},
           {"poll": {}},
           {"buffer": {"channel": 1, "bytes": 10}},
           {"barrier": {"channel": 1, "id": 1}},
           {"buffer": {"channel": 1, "bytes": 10}}"#,
    ));
    assert_eq!(written(&r, 2), [(1, 1, 1)]);
    // The barrier arrived (queued ahead as a priority event): what follows is not state.
    assert_eq!(written(&r, 4), [(1, 1, 1)]);
}

#[test]
fn advance_clock_leaves_the_timer_for_run_timers_and_close_cancels_it() {
    let steps = r#"{"barrier": {"channel": 0, "id": 1, "timestamp": 0, "timeout": "10ms"}},
           {"advance_clock": "20ms"},
           {"run_timers": {}}"#;
    let r = run(&format!(
        r#"{{"version": 1, "machine": "aligned-with-timeout", "channels": 2, "steps": [{steps}]}}"#
    ));
    assert!(handler_fx(&r.steps[1]).is_empty());
    assert!(
        !handler_fx(&r.steps[2]).is_empty(),
        "the due timer runs now"
    );
    let r = run(
        r#"{"version": 1, "machine": "aligned-with-timeout", "channels": 2, "steps": [
           {"barrier": {"channel": 0, "id": 1, "timestamp": 0, "timeout": "10ms"}},
           {"close": {}}, {"advance": "20ms"}]}"#,
    );
    assert!(
        handler_fx(&r.steps[2]).is_empty(),
        "a closed handler's timer never fires"
    );
}

#[test]
fn an_event_on_a_channel_the_gate_lacks_is_refused_by_the_handler() {
    let r = run(&gate_script(
        "aligned",
        2,
        r#"{"buffer": {"channel": 7, "bytes": 1}}, {"poll": {"times": 4000000000}}"#,
    ));
    assert!(matches!(
        handler_fx(&r.steps[0])[..],
        [crate::barrier::HandlerEffect::Error { .. }]
    ));
    assert_eq!(polled(&r, 1), ["none"]);
}
