//! `barrierlab share`: a scenario as a playground link, and `share --decode LINK` back.

use barrierlab_engine::scenario::Scenario;
use barrierlab_engine::share::{check_scenario, decode, encode, LinkOptions, MAX_UNTIL};
use barrierlab_engine::types::{parse_duration, Micros, MICROS_PER_SEC};

use crate::scenario_args::ScenarioArgs;

#[derive(clap::Args, Debug)]
pub struct ShareArgs {
    #[command(flatten)]
    pub scenario: ScenarioArgs,
    /// Decodes a link (the `#v1.…` fragment or a whole URL) and prints its scenario and options
    /// as JSON instead of making one.
    #[arg(long, value_name = "LINK", conflicts_with_all = ["preset", "file"])]
    pub decode: Option<String>,
    /// Open the link run to this simulated time: seconds (`12`) or a duration (`1500ms`).
    #[arg(long, value_name = "DURATION")]
    pub until: Option<String>,
    /// Start playing on load.
    #[arg(long)]
    pub autoplay: bool,
    /// Playback speed, e.g. `2` or `0.5`.
    #[arg(long)]
    pub speed: Option<String>,
    /// UI theme, e.g. `dark`.
    #[arg(long)]
    pub theme: Option<String>,
    /// Panel to open, e.g. `timeline`.
    #[arg(long)]
    pub panel: Option<String>,
    /// Checkpoint to select on load.
    #[arg(long)]
    pub checkpoint: Option<u64>,
    /// The embedded view (for tutorials): adds `embed=1`.
    #[arg(long)]
    pub embed: bool,
}

#[derive(serde::Serialize)]
struct Decoded<'a> {
    version: u32,
    options: &'a LinkOptions,
    scenario: &'a Scenario,
}

/// Like `run --seconds`: a plain number is seconds, anything else a Flink duration.
fn until(text: &str) -> Result<Micros, String> {
    match text.trim().parse::<u64>() {
        Ok(s) => s
            .checked_mul(1_000_000)
            .ok_or_else(|| format!("--until {text} is too long")),
        Err(_) => parse_duration(text).map_err(|e| format!("--until: {e}")),
    }
}

pub fn run(args: ShareArgs) -> Result<(), String> {
    if let Some(link) = &args.decode {
        let link = decode(link).map_err(|e| e.to_string())?;
        // A struct, not `json!`, so the scenario keeps its field order (name first).
        let out = Decoded {
            version: link.version,
            options: &link.options,
            scenario: &link.scenario,
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&out).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let scenario = args.scenario.load()?;
    let options = LinkOptions {
        until: args.until.as_deref().map(until).transpose()?,
        autoplay: args.autoplay.then_some(true),
        speed: args.speed.clone(),
        theme: args.theme.clone(),
        panel: args.panel.clone(),
        checkpoint: args.checkpoint,
        embed: args.embed,
    };
    // A link that does not load is worse than no link: refuse here, with the decoder's words.
    check_scenario(&scenario).map_err(|e| e.to_string())?;
    options.check().map_err(|e| e.to_string())?;
    // It loads, but the playground stops it short (engine `share::MAX_UNTIL`): say so here too.
    if options.until.is_some_and(|u| u > MAX_UNTIL) {
        eprintln!(
            "barrierlab: note: --until {}: the playground opens a link at most {} s into its run, \
             so this one stops at {} s (with a message)",
            args.until.as_deref().unwrap_or_default(),
            MAX_UNTIL / MICROS_PER_SEC,
            MAX_UNTIL / MICROS_PER_SEC
        );
    }
    // The site's root URL + this; printed as a path so it works for any host.
    println!("/{}", encode(&scenario, &options));
    Ok(())
}
