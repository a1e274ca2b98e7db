//! Serde forms for fields of a simulation snapshot (`sim/snapshot.rs`), kept beside the shared
//! types so that every layer's structs can name them.

/// For a field whose type's serde form is made for JSON (an internally tagged enum, a field
/// skipped when empty): JSON as it is; inside a snapshot's compact bytes, which cannot tell
/// such forms apart, the same JSON as one string.
pub mod json_when_compact {
    use serde::de::{DeserializeOwned, Error as _};
    use serde::ser::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            return value.serialize(s);
        }
        s.serialize_str(&serde_json::to_string(value).map_err(S::Error::custom)?)
    }

    pub fn deserialize<'de, T: DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        if d.is_human_readable() {
            return T::deserialize(d);
        }
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        serde_json::from_str(&text).map_err(D::Error::custom)
    }
}

/// For a hash map: its entries sorted by key, so the bytes are a function of the content and
/// not of the map's insertion history (no simulation result depends on a hash map's order).
pub mod sorted_map {
    use std::hash::{BuildHasher, Hash};

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Map<K, V, H> = std::collections::HashMap<K, V, H>;

    pub fn serialize<K, V, H, S>(map: &Map<K, V, H>, s: S) -> Result<S::Ok, S::Error>
    where
        K: Serialize + Ord,
        V: Serialize,
        S: Serializer,
    {
        let mut entries: Vec<(&K, &V)> = map.iter().collect();
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        s.collect_seq(entries)
    }

    pub fn deserialize<'de, K, V, H, D>(d: D) -> Result<Map<K, V, H>, D::Error>
    where
        K: Deserialize<'de> + Eq + Hash,
        V: Deserialize<'de>,
        H: BuildHasher + Default,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}
