//! Share links (docs/sharing.md): opening the scenario a URL fragment holds, and writing one for
//! the running scenario. The codec is the engine's (`barrierlab_engine::share`); this module maps
//! its options onto the playground.

use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Scenario, PRESETS};
use barrierlab_engine::share::{decode, encode, Link, LinkOptions, MAX_UNTIL};
use barrierlab_engine::types::{Micros, MICROS_PER_SEC};

use crate::faults::CatchUp;
use crate::format::sim_time;
use crate::state::{Speed, State, DEFAULT_PRESET};

/// The page's fragment (`#v1.…`), or an empty string.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// The page's first state: the link in the URL if there is one, else the seed demo; a link that
/// does not load falls back to the seed demo with the decoder's message.
pub fn initial_state() -> State {
    if let Some(state) = crate::tutorial::link::initial(&location_hash()) {
        return state;
    }
    if let Some(pending) = over_budget_link(&location_hash()) {
        // The demo waits, paused, while the question is open.
        let mut state = State::load(DEFAULT_PRESET, None, false, Speed::One);
        state.consent = Some(Rc::new(pending));
        return state;
    }
    match state_from_hash(&location_hash()) {
        Ok(Some(state)) => state,
        Ok(None) => State::initial(),
        Err(message) => {
            let mut state = State::initial();
            state.notice = Some((message, "Showing the demo job instead."));
            state
        }
    }
}

/// `Ok(None)` for no link (an empty fragment), the opened link, or why it does not load.
pub fn state_from_hash(hash: &str) -> Result<Option<State>, String> {
    link_from_hash(hash)?.map(state_from_link).transpose()
}

/// The link a fragment holds: `Ok(None)` for an empty fragment, or why it does not decode.
fn link_from_hash(hash: &str) -> Result<Option<Link>, String> {
    let hash = hash.trim();
    if hash.is_empty() || hash == "#" {
        return Ok(None);
    }
    let fragment = if hash.starts_with('#') {
        hash.to_string()
    } else {
        format!("#{hash}")
    };
    decode(&fragment)
        .map(Some)
        .map_err(|e| format!("This link does not load: {e}"))
}

/// The preset a scenario is (whatever its seed), if it is one.
fn preset_name(scenario: &Scenario) -> Option<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).find(|name| {
        preset(name).is_some_and(|mut p| {
            p.seed = scenario.seed;
            p == *scenario
        })
    })
}

/// The speed closest to a link's `speed=` (which the codec keeps as text).
pub fn speed_from_option(text: &str) -> Option<Speed> {
    if let Some(s) = Speed::from_key(text) {
        return Some(s);
    }
    let x: f64 = text
        .parse()
        .ok()
        .filter(|x: &f64| x.is_finite() && *x > 0.0)?;
    if x > 50.0 {
        return Some(Speed::Max);
    }
    Speed::ALL
        .into_iter()
        .filter_map(|s| s.micros_per_ms().map(|m| (s, (m / 1_000.0 / x).ln().abs())))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| s)
}

/// A fresh state running a decoded link's scenario with its options.
pub fn state_from_link(link: Link) -> Result<State, String> {
    state_from_link_consented(link, false)
}

/// The link in `hash` when its scenario is over the cost budget: the scenario, its options and
/// why, for the consent question (see `consent.rs`).
pub fn over_budget_link(hash: &str) -> Option<crate::consent::PendingConsent> {
    let link = link_from_hash(hash).ok()??;
    // With `until=`, the catch-up is one run: held to the per-run budget as well.
    let until = link.options.until.unwrap_or(0).min(MAX_UNTIL);
    let message = link.scenario.cost_estimate().ok()?.run_over_budget(until)?;
    Some(crate::consent::PendingConsent {
        scenario: link.scenario,
        link: Some(link.options),
        stored: None,
        message,
    })
}

/// [`state_from_link`]; `consented`: the user chose to run it over the cost budget.
pub fn state_from_link_consented(link: Link, consented: bool) -> Result<State, String> {
    let Link {
        scenario, options, ..
    } = link;
    let name = preset_name(&scenario);
    // An edited preset opens under its own name, beside the preset it came from.
    let base = name.or_else(|| barrierlab_engine::scenario::base_preset(&scenario));
    let sim = crate::consent::simulation(scenario, consented)
        .map_err(|e| format!("This link does not load: {e}"))?;
    let speed = options
        .speed
        .as_deref()
        .and_then(speed_from_option)
        .unwrap_or(Speed::One);
    if let Some(theme) = &options.theme {
        crate::theme::set_override(theme);
    }
    let autoplay = options.autoplay.unwrap_or(options.until.is_none());
    let mut state = State::with_sim(
        sim,
        None,
        base.unwrap_or(DEFAULT_PRESET),
        autoplay && options.until.is_none(),
        speed,
    );
    state.custom = name.is_none();
    if let Some(until) = options.until {
        state.catch_up = Some(CatchUp {
            target: until.min(MAX_UNTIL),
            resume: autoplay,
            next_action: 0,
        });
        if until > MAX_UNTIL {
            state.notice = Some((
                until_bound_message(until),
                if autoplay {
                    "It plays on from there."
                } else {
                    "Press Play to go on from there."
                },
            ));
        }
    }
    state.embed = options.embed;
    state.link = Some(Rc::new(options));
    Ok(state)
}

/// A fresh state running `scenario` (the work reopened after a reload), playing.
pub fn state_from_scenario(scenario: Scenario, speed: Speed) -> Result<State, String> {
    state_from_scenario_consented(scenario, speed, false)
}

/// [`state_from_scenario`]; `consented`: the user chose to run it over the cost budget.
pub fn state_from_scenario_consented(
    scenario: Scenario,
    speed: Speed,
    consented: bool,
) -> Result<State, String> {
    let name = preset_name(&scenario);
    let base = name.or_else(|| barrierlab_engine::scenario::base_preset(&scenario));
    let sim = crate::consent::simulation(scenario, consented)?;
    let mut state = State::with_sim(sim, None, base.unwrap_or(DEFAULT_PRESET), true, speed);
    state.custom = name.is_none();
    Ok(state)
}

/// Why a link's `until` past [`MAX_UNTIL`] stopped short.
fn until_bound_message(until: Micros) -> String {
    format!(
        "This link runs to t = {}, but a link opens at most {} s into its run: it stops at t = {}.",
        sim_time(until),
        MAX_UNTIL / MICROS_PER_SEC,
        sim_time(MAX_UNTIL)
    )
}

/// The options a link for the current run carries: the time if paused, and the speed.
pub fn current_options(state: &State, embed: bool) -> LinkOptions {
    let now = state.sim.borrow().now;
    let paused = !state.playing && state.catch_up.is_none();
    LinkOptions {
        until: (paused && now > 0).then_some(now),
        autoplay: (!paused).then_some(true),
        speed: (state.speed != Speed::One && state.speed != Speed::Max)
            .then(|| state.speed.key().to_string()),
        // The recipient's theme, not the sender's.
        theme: None,
        embed,
        ..LinkOptions::default()
    }
}

/// The fragment for the current run.
pub fn current_fragment(state: &State, embed: bool) -> String {
    encode(&state.scenario, &current_options(state, embed))
}

/// The page's URL without its fragment.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// The full playground's link for an embedded view: the same fragment minus `embed`.
pub fn full_app_href(state: &State) -> String {
    let mut options = state.link.as_deref().cloned().unwrap_or_default();
    options.embed = false;
    format!("{}{}", base_url(), encode(&state.scenario, &options))
}

/// The `<iframe>` snippet embedding the current run.
pub fn iframe_snippet(state: &State) -> String {
    format!(
        "<iframe src=\"{}{}\" width=\"800\" height=\"480\" style=\"border:0\" loading=\"lazy\" title=\"Barrier Lab\"></iframe>",
        base_url(),
        current_fragment(state, true)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_map_to_the_nearest_setting() {
        assert_eq!(speed_from_option("2"), Some(Speed::Two));
        assert_eq!(speed_from_option("0.5"), Some(Speed::Half));
        assert_eq!(speed_from_option("3"), Some(Speed::Two));
        assert_eq!(speed_from_option("1000"), Some(Speed::Max));
        assert_eq!(speed_from_option("x"), None);
    }

    fn opened(until: Micros, autoplay: Option<bool>) -> State {
        let options = LinkOptions {
            until: Some(until),
            autoplay,
            ..LinkOptions::default()
        };
        state_from_hash(&encode(&preset("seed-demo").unwrap(), &options))
            .unwrap()
            .unwrap()
    }

    #[test]
    fn until_past_the_bound_stops_at_it_and_says_so() {
        let s = opened(2 * 3_600 * MICROS_PER_SEC, None);
        let c = s.catch_up.as_ref().unwrap();
        assert_eq!(c.target, MAX_UNTIL);
        assert!(!c.resume);
        let (message, outcome) = s.notice.clone().unwrap();
        assert_eq!(
            message,
            "This link runs to t = 7200.000 s, but a link opens at most 600 s into its run: it stops at t = 600.000 s."
        );
        assert_eq!(outcome, "Press Play to go on from there.");
        let s = opened(MAX_UNTIL + 1, Some(true));
        assert_eq!(s.catch_up.as_ref().unwrap().target, MAX_UNTIL);
        assert_eq!(s.notice.unwrap().1, "It plays on from there.");
        // Up to the bound, a link runs to its time without a word.
        let s = opened(MAX_UNTIL, None);
        assert_eq!(s.catch_up.as_ref().unwrap().target, MAX_UNTIL);
        assert_eq!(s.notice, None);
    }

    #[test]
    fn presets_are_recognised_whatever_their_seed() {
        let mut s = preset("seed-demo").unwrap();
        s.seed = 99;
        assert_eq!(preset_name(&s), Some("seed-demo"));
    }
}
