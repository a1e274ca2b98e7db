//! Share links (docs/sharing.md): opening the scenario a URL fragment holds, and writing one for
//! the running scenario. The codec is the engine's (`barrierlab_engine::share`); this module maps
//! its options onto the playground.

use std::rc::Rc;

use barrierlab_engine::scenario::{preset, Scenario, PRESETS};
use barrierlab_engine::share::{decode, encode, Link, LinkOptions, MAX_UNTIL};
use barrierlab_engine::types::{Micros, MICROS_PER_SEC};

use crate::consent::PendingConsent;
use crate::faults::CatchUp;
use crate::format::sim_time;
use crate::job::{Opened, SimCell, DEFAULT_PRESET};
use crate::speed::Speed;

/// The page's fragment (`#v1.…`), or an empty string.
pub fn location_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// `Ok(None)` for no link (an empty fragment), the opened link, or why it does not load.
pub fn opened_from_hash(hash: &str) -> Result<Option<Opened>, String> {
    link_from_hash(hash)?
        .map(|link| open_link(link, false))
        .transpose()
}

/// The link a fragment holds: `Ok(None)` for an empty fragment, or why it does not decode.
fn link_from_hash(hash: &str) -> Result<Option<Link>, String> {
    let hash = hash.trim();
    // The imported-job views' routes are not links: the running job stays as it is.
    if hash.is_empty() || hash == "#" || crate::imported::route(hash).is_some() {
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

/// The link in `hash` when its scenario is over the cost budget: the scenario, its options and
/// why, for the consent question (see `consent.rs`).
pub fn over_budget_link(hash: &str) -> Option<PendingConsent> {
    let link = link_from_hash(hash).ok()??;
    // With `until=`, the catch-up is one run: held to the per-run budget as well.
    let until = link.options.until.unwrap_or(0).min(MAX_UNTIL);
    let message = link.scenario.cost_estimate().ok()?.run_over_budget(until)?;
    Some(PendingConsent {
        scenario: link.scenario,
        link: Some(link.options),
        stored: None,
        message,
    })
}

/// A decoded link's scenario with its options; `consented`: the user chose to run it over the
/// cost budget.
pub fn open_link(link: Link, consented: bool) -> Result<Opened, String> {
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
    let catch_up = options.until.map(|until| CatchUp {
        target: until.min(MAX_UNTIL),
        resume: autoplay,
        next_action: 0,
    });
    let notice = options
        .until
        .filter(|until| *until > MAX_UNTIL)
        .map(|until| {
            let outcome = if autoplay {
                "It plays on from there."
            } else {
                "Press Play to go on from there."
            };
            (until_bound_message(until), outcome)
        });
    Ok(Opened {
        custom: name.is_none(),
        playing: autoplay && options.until.is_none(),
        speed: Some(speed),
        catch_up,
        notice,
        link: Some(options),
        ..Opened::new(sim, base.unwrap_or(DEFAULT_PRESET))
    })
}

/// `scenario` (the work reopened after a reload, or an edit run over the cost budget), playing;
/// `consented`: the user chose to run it over the cost budget.
pub fn open_scenario(scenario: Scenario, consented: bool) -> Result<Opened, String> {
    let name = preset_name(&scenario);
    let base = name.or_else(|| barrierlab_engine::scenario::base_preset(&scenario));
    let sim = crate::consent::simulation(scenario, consented)?;
    Ok(Opened {
        custom: name.is_none(),
        ..Opened::new(sim, base.unwrap_or(DEFAULT_PRESET))
    })
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

/// The running job as a link to it says: its scenario, and where it is and how it plays, read
/// when the link is made.
#[derive(Clone, PartialEq)]
pub struct Current {
    pub scenario: Rc<Scenario>,
    pub sim: SimCell,
    /// Paused (not playing, and no re-run catching up).
    pub paused: bool,
    pub speed: Speed,
}

impl Current {
    /// The options a link for the current run carries: the time if paused, and the speed.
    pub fn options(&self, embed: bool) -> LinkOptions {
        let now = self.sim.borrow().now;
        LinkOptions {
            until: (self.paused && now > 0).then_some(now),
            autoplay: (!self.paused).then_some(true),
            speed: (self.speed != Speed::One && self.speed != Speed::Max)
                .then(|| self.speed.key().to_string()),
            // The recipient's theme, not the sender's.
            theme: None,
            embed,
            ..LinkOptions::default()
        }
    }

    /// The fragment for the current run.
    pub fn fragment(&self, embed: bool) -> String {
        encode(&self.scenario, &self.options(embed))
    }

    /// The `<iframe>` snippet embedding the current run.
    pub fn iframe_snippet(&self) -> String {
        format!(
            "<iframe src=\"{}{}\" width=\"800\" height=\"480\" style=\"border:0\" loading=\"lazy\" title=\"Barrier Lab\"></iframe>",
            base_url(),
            self.fragment(true)
        )
    }
}

/// The page's URL without its fragment.
pub fn base_url() -> String {
    web_sys::window()
        .and_then(|w| w.location().href().ok())
        .map(|h| h.split('#').next().unwrap_or_default().to_string())
        .unwrap_or_default()
}

/// The full playground's link for an embedded view of `scenario`: the fragment of the link it
/// was opened from, minus `embed`.
pub fn full_app_href(scenario: &Scenario, link: Option<&LinkOptions>) -> String {
    let mut options = link.cloned().unwrap_or_default();
    options.embed = false;
    format!("{}{}", base_url(), encode(scenario, &options))
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

    fn opened(until: Micros, autoplay: Option<bool>) -> Opened {
        let options = LinkOptions {
            until: Some(until),
            autoplay,
            ..LinkOptions::default()
        };
        opened_from_hash(&encode(&preset("seed-demo").unwrap(), &options))
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
