use crate::scenario::{preset, Fault, PRESETS};
use crate::share::{decode, encode, Link, LinkOptions, LATEST_VERSION};
use crate::sim::Simulation;

fn all_options() -> LinkOptions {
    LinkOptions {
        until: Some(12_000_000),
        autoplay: Some(true),
        speed: Some("0.5".into()),
        theme: Some("dark".into()),
        panel: Some("timeline".into()),
        checkpoint: Some(3),
        embed: true,
    }
}

#[test]
fn every_preset_round_trips() {
    for (name, _) in PRESETS {
        let scenario = preset(name).unwrap();
        let link = encode(&scenario, &LinkOptions::default());
        assert!(link.starts_with("#v1."), "{link}");
        assert!(!link.contains('&'), "no options, no '&': {link}");
        assert_eq!(
            decode(&link),
            Ok(Link {
                version: LATEST_VERSION,
                scenario,
                options: LinkOptions::default(),
            }),
            "{name}"
        );
    }
}

#[test]
fn faults_round_trip() {
    let mut scenario = preset("seed-2pc").unwrap();
    scenario.faults.push(Fault::Kill {
        task: "count-per-key#1".into(),
        at: "12s".into(),
    });
    scenario.faults.push(Fault::StorageFailure {
        from: "20s".into(),
        until: "25s".into(),
    });
    let link = encode(&scenario, &LinkOptions::default());
    assert_eq!(decode(&link).unwrap().scenario, scenario);
}

#[test]
fn options_round_trip() {
    let scenario = preset("seed-demo").unwrap();
    let options = all_options();
    let link = encode(&scenario, &options);
    assert!(
        link.ends_with(
            "&until=12s&autoplay=1&speed=0.5&theme=dark&panel=timeline&checkpoint=3&embed=1"
        ),
        "{link}"
    );
    assert_eq!(decode(&link).unwrap().options, options);
    // Each option alone, and times that need a smaller unit than seconds.
    let singles = [
        LinkOptions {
            until: Some(1_500_000),
            ..Default::default()
        },
        LinkOptions {
            until: Some(250),
            ..Default::default()
        },
        LinkOptions {
            autoplay: Some(false),
            ..Default::default()
        },
        LinkOptions {
            speed: Some("16".into()),
            ..Default::default()
        },
        LinkOptions {
            theme: Some("light".into()),
            ..Default::default()
        },
        LinkOptions {
            panel: Some("why-slow".into()),
            ..Default::default()
        },
        LinkOptions {
            checkpoint: Some(u64::MAX),
            ..Default::default()
        },
        LinkOptions {
            embed: true,
            ..Default::default()
        },
    ];
    for options in singles {
        options.check().unwrap();
        assert_eq!(
            decode(&encode(&scenario, &options)).unwrap().options,
            options
        );
    }
}

#[test]
fn options_are_serde_with_defaults() {
    let empty: LinkOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, LinkOptions::default());
    assert_eq!(serde_json::to_string(&empty).unwrap(), "{}");
    let full = all_options();
    let json = serde_json::to_string(&full).unwrap();
    assert_eq!(serde_json::from_str::<LinkOptions>(&json).unwrap(), full);
    assert!(serde_json::from_str::<LinkOptions>(r#"{"autoplya":true}"#).is_err());
}

#[test]
fn hand_written_forms_are_accepted() {
    let link = encode(&preset("seed-demo").unwrap(), &LinkOptions::default());
    // A whole URL, surrounding whitespace, a trailing '&', flags without '=1'.
    let decoded = decode(&format!(
        "  https://example.org/barrierlab/{link}&embed&autoplay&\n"
    ))
    .unwrap();
    assert!(decoded.options.embed);
    assert_eq!(decoded.options.autoplay, Some(true));
    let off = decode(&format!("{link}&embed=0&autoplay=false")).unwrap();
    assert_eq!(
        off.options,
        LinkOptions {
            autoplay: Some(false),
            ..Default::default()
        }
    );
}

#[test]
fn seed_demo_link_is_short() {
    let link = encode(&preset("seed-demo").unwrap(), &all_options());
    println!("seed-demo link, all options: {} characters", link.len());
    assert!(link.len() < 1_500, "{} characters", link.len());
}

/// What the playground does with a link: decode, deploy, run. The same run as the preset's own.
#[test]
fn decoded_scenario_runs_to_the_same_fingerprint() {
    for name in ["seed-demo", "two-input-join"] {
        let scenario = preset(name).unwrap();
        let decoded = decode(&encode(&scenario, &LinkOptions::default())).unwrap();
        let run = |s| {
            let mut sim = Simulation::new(s).unwrap();
            sim.run_until(10_000_000);
            sim.fingerprint()
        };
        assert_eq!(run(decoded.scenario), run(scenario), "{name}");
    }
}
