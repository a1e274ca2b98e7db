use super::*;

fn split(id: &str) -> ListElement {
    ListElement::source_split(id, 0)
}

fn snap_with(lists: &[(&str, DistributionMode, &[&str])]) -> OperatorStateSnapshot {
    let mut b = OperatorStateBackend::new();
    for (name, mode, ids) in lists {
        b.register_list_state(name, *mode).unwrap();
        b.update(name, ids.iter().map(|i| split(i)).collect())
            .unwrap();
    }
    b.snapshot(1)
}

fn labels(share: &[ListStateSnapshot], name: &str) -> Vec<String> {
    share
        .iter()
        .filter(|s| s.name == name)
        .flat_map(|s| s.elements.iter().map(|e| e.label.clone()))
        .collect()
}

#[test]
fn snapshot_sizes_and_offsets() {
    let mut b = OperatorStateBackend::new();
    assert_eq!(b.snapshot(1).state_size, 0);
    b.register_list_state("splits", DistributionMode::SplitDistribute)
        .unwrap();
    assert!(b
        .register_list_state("splits", DistributionMode::Union)
        .is_err());
    b.add("splits", split("0")).unwrap();
    b.add("splits", split("1")).unwrap();
    assert!(b.add("nope", split("x")).is_err());
    let s = b.snapshot(1);
    // Element: byte[] length 4 + version 4 + length 4 + writeUTF("0") 3 + two longs 16.
    assert_eq!(split("0").bytes, 31);
    assert_eq!(
        s.states[0].offsets,
        vec![s.header_bytes, s.header_bytes + 31]
    );
    assert_eq!(s.state_size, s.header_bytes + 62);
    let restored = OperatorStateBackend::restore(&s.states).unwrap();
    assert_eq!(restored.get("splits"), b.get("splits"));
}

#[test]
fn same_parallelism_keeps_shares() {
    let a = snap_with(&[("s", DistributionMode::SplitDistribute, &["a", "b", "c"])]);
    let b = snap_with(&[("s", DistributionMode::SplitDistribute, &[])]);
    let out = redistribute(&[a, b], 2);
    assert_eq!(labels(&out[0], "s"), vec!["a", "b", "c"]);
    assert!(labels(&out[1], "s").is_empty());
}

#[test]
fn split_distribute_cuts_contiguous_chunks_and_rotates() {
    let a = snap_with(&[
        ("a", DistributionMode::SplitDistribute, &["a0", "a1", "a2"]),
        ("b", DistributionMode::SplitDistribute, &["b0"]),
    ]);
    let b = snap_with(&[
        ("a", DistributionMode::SplitDistribute, &["a3", "a4"]),
        ("b", DistributionMode::SplitDistribute, &["b1", "b2", "b3"]),
    ]);
    let out = redistribute(&[a, b], 3);
    // "a": 5 elements over 3 → 2, 2, 1 starting at subtask 0; the next state starts at subtask 2,
    // the first that got no extra element.
    assert_eq!(labels(&out[0], "a"), vec!["a0", "a1"]);
    assert_eq!(labels(&out[1], "a"), vec!["a2", "a3"]);
    assert_eq!(labels(&out[2], "a"), vec!["a4"]);
    // "b": 4 elements over 3 → the extra goes to subtask 2.
    assert_eq!(labels(&out[2], "b"), vec!["b0", "b1"]);
    assert_eq!(labels(&out[0], "b"), vec!["b2"]);
    assert_eq!(labels(&out[1], "b"), vec!["b3"]);
    // Scale in to 1: everything, in old-subtask order.
    let one = redistribute(
        &out.iter()
            .map(|s| OperatorStateSnapshot {
                checkpoint_id: 2,
                states: s.clone(),
                header_bytes: 0,
                state_size: 0,
            })
            .collect::<Vec<_>>(),
        1,
    );
    assert_eq!(labels(&one[0], "a"), vec!["a0", "a1", "a2", "a3", "a4"]);
}

#[test]
fn union_goes_to_everyone() {
    let a = snap_with(&[("u", DistributionMode::Union, &["x"])]);
    let b = snap_with(&[("u", DistributionMode::Union, &["y"])]);
    let out = redistribute(&[a, b], 2);
    for share in &out {
        assert_eq!(labels(share, "u"), vec!["x", "y"]);
    }
}
