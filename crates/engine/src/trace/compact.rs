//! The trace's event kinds in a simulation snapshot's compact bytes.
//!
//! `TraceKind` is internally tagged (`{"event": "mail_run", ...}`), the form its JSON exports
//! keep, and postcard cannot read such an enum back (it would need a self-describing format).
//! Written as a JSON string instead, bench-512's 20 000 events cost the page about a third of
//! applying each update. [`with_compact_form`] defines the enum and beside it `CompactKind`,
//! the same variants externally tagged (a variant index and the fields), which postcard reads.

/// Defines the enum as written and `CompactKind`, the same variants externally tagged, with
/// conversions both ways.
macro_rules! with_compact_form {
    (
        $(#[$enum_meta:meta])*
        pub enum $Kind:ident {
            $(
                $(#[$variant_meta:meta])*
                $V:ident $({ $( $(#[$field_meta:meta])* $f:ident : $t:ty ),* $(,)? })?
            ),* $(,)?
        }
    ) => {
        $(#[$enum_meta])*
        pub enum $Kind {
            $(
                $(#[$variant_meta])*
                $V $({ $( $(#[$field_meta])* $f : $t ),* })?
            ),*
        }

        /// The same variants externally tagged, for postcard (`trace/compact.rs`).
        #[derive(serde::Serialize, serde::Deserialize)]
        pub(crate) enum CompactKind {
            $( $V $({ $( $f : $t ),* })? ),*
        }

        impl From<$Kind> for CompactKind {
            fn from(kind: $Kind) -> CompactKind {
                match kind {
                    $( $Kind::$V { $($($f),*)? } => CompactKind::$V { $($($f),*)? } ),*
                }
            }
        }

        impl From<CompactKind> for $Kind {
            fn from(kind: CompactKind) -> $Kind {
                match kind {
                    $( CompactKind::$V { $($($f),*)? } => $Kind::$V { $($($f),*)? } ),*
                }
            }
        }
    };
}

pub(crate) use with_compact_form;

/// The serde form of a trace event's kind: as it is for JSON, `CompactKind` in compact bytes.
pub(crate) mod kind_form {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::super::event::{CompactKind, TraceKind};

    pub fn serialize<S: Serializer>(kind: &TraceKind, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            kind.serialize(s)
        } else {
            CompactKind::from(kind.clone()).serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<TraceKind, D::Error> {
        if d.is_human_readable() {
            TraceKind::deserialize(d)
        } else {
            CompactKind::deserialize(d).map(TraceKind::from)
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::trace::{TraceEvent, TraceKind};

    #[test]
    fn a_kind_is_a_few_bytes_in_a_snapshot_and_tagged_in_json() {
        let batch = TraceEvent {
            seq: 7,
            time: 1_000,
            task: None,
            kind: TraceKind::RecordBatch {
                channel: 3,
                records: 6,
            },
        };
        // seq, time, no subtask, the variant's index and its two fields: 7 bytes.
        let bytes = postcard::to_allocvec(&batch).unwrap();
        assert_eq!(bytes.len(), 7, "{bytes:?}");
        let json = serde_json::to_value(&batch).unwrap();
        assert_eq!(
            json["kind"],
            serde_json::json!({"event": "record_batch", "channel": 3, "records": 6})
        );
        let text = TraceKind::JobFailed {
            reason: "boom".into(),
        };
        for kind in [batch.kind.clone(), TraceKind::EndOfData, text] {
            let event = TraceEvent {
                kind,
                ..batch.clone()
            };
            let bytes = postcard::to_allocvec(&event).unwrap();
            assert_eq!(postcard::from_bytes::<TraceEvent>(&bytes).unwrap(), event);
            let json = serde_json::to_string(&event).unwrap();
            assert_eq!(serde_json::from_str::<TraceEvent>(&json).unwrap(), event);
        }
    }
}
