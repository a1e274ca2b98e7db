//! `OperatorStateBackend` (`DefaultOperatorStateBackend`): non-keyed list state of one subtask, such
//! as a source reader's splits, with snapshot, byte sizes and `RoundRobinOperatorStateRepartitioner`'s
//! redistribution on rescale.
//!
//! Stream layout (`DefaultOperatorStateBackendSnapshotStrategy`): the
//! `OperatorBackendSerializationProxy` header (meta info per state, see [`super::meta_info`]), then
//! for each list state its elements back to back; each element's offset goes into the handle's
//! metadata, not into the stream, so a list costs exactly the sum of its elements.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::meta_info::{
    operator_backend_header_len, utf_len, BackendStateType, SerializerKind, StateMetaInfo,
};
use crate::types::CheckpointId;

/// `OperatorStateHandle.Mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DistributionMode {
    /// `getListState`: on rescale the elements of all subtasks are split into contiguous chunks.
    SplitDistribute,
    /// `getUnionListState`: on restore every subtask receives all elements.
    Union,
}

impl DistributionMode {
    fn option_value(self) -> &'static str {
        match self {
            DistributionMode::SplitDistribute => "SPLIT_DISTRIBUTE",
            DistributionMode::Union => "UNION",
        }
    }
}

/// One list element: a label and value the simulation tracks (e.g. split id and reader position)
/// and the bytes its serializer writes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ListElement {
    pub label: String,
    pub value: i64,
    pub bytes: u64,
}

impl ListElement {
    /// A `SourceOperator` reader split as stored in its `SourceReaderState` (a list of `byte[]`):
    /// `BytePrimitiveArraySerializer` length `int`, then `SimpleVersionedSerialization`'s version and
    /// length `int`s around the split serializer's bytes; for a `NumberSequenceSplit` (datagen) those
    /// are `writeUTF(splitId)` plus its `from` and `to` longs.
    pub fn source_split(split_id: &str, position: i64) -> ListElement {
        ListElement {
            label: split_id.to_string(),
            value: position,
            bytes: 4 + 4 + 4 + utf_len(split_id) + 8 + 8,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListStateSnapshot {
    pub name: String,
    pub mode: DistributionMode,
    pub elements: Vec<ListElement>,
    /// Stream offset of each element (`OperatorStateHandle.StateMetaInfo.getOffsets`).
    pub offsets: Vec<u64>,
}

/// `OperatorStateHandle` plus content: one subtask's operator state at one checkpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperatorStateSnapshot {
    pub checkpoint_id: CheckpointId,
    /// Ascending by name.
    pub states: Vec<ListStateSnapshot>,
    pub header_bytes: u64,
    /// 0 when no state is registered (Flink returns an empty result).
    pub state_size: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OperatorStateBackend {
    /// Name → (mode, elements); a `BTreeMap` so snapshots and redistribution are ordered by name.
    states: BTreeMap<String, (DistributionMode, Vec<ListElement>)>,
}

fn meta_info(name: &str, mode: DistributionMode) -> StateMetaInfo {
    StateMetaInfo {
        name: name.to_string(),
        backend_state_type: BackendStateType::Operator,
        options: vec![(
            "OPERATOR_STATE_DISTRIBUTION_MODE".into(),
            mode.option_value().into(),
        )],
        serializers: vec![(
            "VALUE_SERIALIZER".into(),
            SerializerKind::BytePrimitiveArray,
        )],
    }
}

/// The header of an operator state backend holding just the list state `name`.
pub fn list_state_header_len(name: &str, mode: DistributionMode) -> u64 {
    operator_backend_header_len(&[meta_info(name, mode)], &[])
}

impl OperatorStateBackend {
    pub fn new() -> Self {
        Self::default()
    }

    /// `getListState` / `getUnionListState`; re-registering with another mode is an error.
    pub fn register_list_state(
        &mut self,
        name: &str,
        mode: DistributionMode,
    ) -> Result<(), String> {
        match self.states.get(name) {
            Some((m, _)) if *m != mode => {
                Err(format!("list state '{name}' already registered as {m:?}"))
            }
            Some(_) => Ok(()),
            None => {
                self.states.insert(name.to_string(), (mode, Vec::new()));
                Ok(())
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&[ListElement]> {
        self.states.get(name).map(|(_, v)| v.as_slice())
    }

    /// `ListState.update`: replaces the list.
    pub fn update(&mut self, name: &str, elements: Vec<ListElement>) -> Result<(), String> {
        let (_, list) = self
            .states
            .get_mut(name)
            .ok_or_else(|| format!("unknown list state '{name}'"))?;
        *list = elements;
        Ok(())
    }

    /// `ListState.add`.
    pub fn add(&mut self, name: &str, element: ListElement) -> Result<(), String> {
        let (_, list) = self
            .states
            .get_mut(name)
            .ok_or_else(|| format!("unknown list state '{name}'"))?;
        list.push(element);
        Ok(())
    }

    /// Operator state is copied in the synchronous part (Flink deep-copies the lists), so nothing
    /// stays shared and there is no release step.
    pub fn snapshot(&self, checkpoint_id: CheckpointId) -> OperatorStateSnapshot {
        if self.states.is_empty() {
            return OperatorStateSnapshot {
                checkpoint_id,
                states: Vec::new(),
                header_bytes: 0,
                state_size: 0,
            };
        }
        let metas: Vec<StateMetaInfo> = self
            .states
            .iter()
            .map(|(n, (m, _))| meta_info(n, *m))
            .collect();
        let header_bytes = operator_backend_header_len(&metas, &[]);
        let mut pos = header_bytes;
        let states = self
            .states
            .iter()
            .map(|(name, (mode, elements))| {
                let offsets = elements
                    .iter()
                    .map(|e| {
                        let at = pos;
                        pos += e.bytes;
                        at
                    })
                    .collect();
                ListStateSnapshot {
                    name: name.clone(),
                    mode: *mode,
                    elements: elements.clone(),
                    offsets,
                }
            })
            .collect();
        OperatorStateSnapshot {
            checkpoint_id,
            states,
            header_bytes,
            state_size: pos,
        }
    }

    /// A backend holding the given states (one subtask's share after `redistribute`).
    pub fn restore(states: &[ListStateSnapshot]) -> Result<Self, String> {
        let mut backend = OperatorStateBackend::new();
        for s in states {
            backend.register_list_state(&s.name, s.mode)?;
            let list = &mut backend.states.get_mut(&s.name).ok_or("just registered")?.1;
            list.extend(s.elements.iter().cloned());
        }
        Ok(backend)
    }
}

/// `RoundRobinOperatorStateRepartitioner.repartitionState`: the old subtasks' snapshots (index
/// order) become `new_parallelism` lists of state shares. Same parallelism and no union state: every
/// subtask keeps its own. Split-distributed lists are concatenated in old-subtask order and cut into
/// contiguous chunks of `total / p`, the first `total % p` subtasks (from a start index that rotates
/// from state to state, for balance) taking one more. Union lists go to everyone whole.
pub fn redistribute(
    old: &[OperatorStateSnapshot],
    new_parallelism: u32,
) -> Vec<Vec<ListStateSnapshot>> {
    let p = new_parallelism as usize;
    let has_union = old
        .iter()
        .flat_map(|s| &s.states)
        .any(|s| s.mode == DistributionMode::Union);
    if p == old.len() && !has_union {
        return old.iter().map(|s| s.states.clone()).collect();
    }
    let mut by_name: BTreeMap<&str, (DistributionMode, Vec<ListElement>)> = BTreeMap::new();
    for snap in old {
        for s in &snap.states {
            let slot = by_name.entry(&s.name).or_insert((s.mode, Vec::new()));
            slot.1.extend(s.elements.iter().cloned());
        }
    }
    let mut result: Vec<Vec<ListStateSnapshot>> = vec![Vec::new(); p];
    let mut start = 0usize;
    for (name, (mode, elements)) in by_name {
        let share = |elements: Vec<ListElement>| ListStateSnapshot {
            name: name.to_string(),
            mode,
            offsets: Vec::new(),
            elements,
        };
        if mode == DistributionMode::Union {
            for r in result.iter_mut() {
                r.push(share(elements.clone()));
            }
            continue;
        }
        let (base, mut remainder) = (elements.len() / p.max(1), elements.len() % p.max(1));
        let mut next_start = start;
        let mut rest = elements.into_iter();
        for i in 0..p {
            let idx = (i + start) % p;
            let mut n = base;
            if remainder > 0 {
                n += 1;
                remainder -= 1;
                if remainder == 0 {
                    // Flink starts the next state's round at the first subtask without an extra one.
                    next_start = (idx + 1) % p;
                }
            }
            result[idx].push(share(rest.by_ref().take(n).collect()));
        }
        start = next_start;
    }
    result
}

#[cfg(test)]
#[path = "operator_state_tests.rs"]
mod tests;
