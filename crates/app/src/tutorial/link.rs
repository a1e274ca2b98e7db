//! Tutorial links: `#tutorial=<id>&step=<n>` (1-based step) opens a step, `#tutorials` the
//! picker. Anything else is left to the scenario link codec (`#v1.…`).

use std::rc::Rc;

use super::session::{open, with_picker};
use crate::state::{Speed, State};

/// What a fragment asks for, if it is a tutorial fragment.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Picker,
    /// Tutorial id and 0-based step, or why the step is not a number.
    Step(String, Result<usize, String>),
}

pub fn parse(hash: &str) -> Option<Request> {
    let body = hash.trim().trim_start_matches('#');
    if body == "tutorials" || body == "tutorial" {
        return Some(Request::Picker);
    }
    let mut id = None;
    let mut step = Ok(0);
    for part in body.split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match k {
            "tutorial" => id = Some(v.to_string()),
            "step" => {
                step = match v.parse::<usize>() {
                    Ok(n) if n >= 1 => Ok(n - 1),
                    _ => Err(format!(
                        "“step={v}” is not a step number (steps count from 1)."
                    )),
                }
            }
            _ => {}
        }
    }
    let id = id?;
    if id.is_empty() {
        return Some(Request::Picker);
    }
    Some(Request::Step(id, step))
}

/// The fragment for step `step` (0-based) of tutorial `id`.
pub fn fragment(id: &str, step: usize) -> String {
    format!("#tutorial={id}&step={}", step + 1)
}

/// The page's first state for a tutorial fragment: the step, or the seed demo with the picker
/// saying why the link did not open.
pub fn initial(hash: &str) -> Option<State> {
    let request = parse(hash)?;
    let fallback = |message: Option<String>| {
        let mut s = (*with_picker(&State::initial(), message)).clone();
        s.version = 0;
        s
    };
    Some(match request {
        Request::Picker => fallback(None),
        Request::Step(id, step) => match step.and_then(|n| open(&id, n, Speed::One)) {
            Ok(state) => state,
            Err(message) => fallback(Some(message)),
        },
    })
}

/// A tutorial fragment pasted into an open page; `None` if it is not one. A bad one keeps the
/// running job and shows the picker with the message.
pub fn on_hash(state: &Rc<State>, hash: &str) -> Option<Rc<State>> {
    Some(match parse(hash)? {
        Request::Picker => with_picker(state, None),
        Request::Step(id, step) => match step.and_then(|n| open(&id, n, state.speed)) {
            Ok(mut next) => {
                next.version = state.version + 1;
                Rc::new(next)
            }
            Err(message) => with_picker(state, Some(message)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_parse() {
        assert_eq!(parse("#tutorials"), Some(Request::Picker));
        assert_eq!(
            parse("#tutorial=alignment&step=3"),
            Some(Request::Step("alignment".into(), Ok(2)))
        );
        assert_eq!(
            parse("#tutorial=alignment"),
            Some(Request::Step("alignment".into(), Ok(0)))
        );
        assert!(matches!(
            parse("#tutorial=alignment&step=0"),
            Some(Request::Step(_, Err(_)))
        ));
        assert_eq!(parse("#v1.abc&until=3s"), None);
        assert_eq!(parse(""), None);
        assert_eq!(fragment("alignment", 2), "#tutorial=alignment&step=3");
    }
}
