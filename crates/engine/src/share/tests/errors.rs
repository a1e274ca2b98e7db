//! Every `LinkError` variant, reached the way a real link would reach it, with its message checked
//! for what a person needs to know.

use std::collections::BTreeSet;

use super::{link_of_deflated, link_of_raw};
use crate::scenario::preset;
use crate::share::{decode, encode, LinkError, LinkOptions, MAX_JSON_BYTES};

/// Decodes, expecting an error of `kind` whose message contains every one of `needles`.
fn fails(link: &str, kind: &str, needles: &[&str]) -> LinkError {
    let err = decode(link).expect_err(link);
    let message = err.to_string();
    assert_eq!(err.kind(), kind, "{link}: {message}");
    for needle in needles {
        assert!(
            message.contains(needle),
            "{link}: '{message}' lacks '{needle}'"
        );
    }
    err
}

fn seed_link() -> String {
    encode(&preset("seed-demo").unwrap(), &LinkOptions::default())
}

#[test]
fn every_variant_fires_with_a_helpful_message() {
    let mut kinds = BTreeSet::new();
    let mut check = |link: &str, kind: &str, needles: &[&str]| {
        kinds.insert(fails(link, kind, needles).kind());
    };
    check("v1.abc", "missing-fragment", &["no '#'", "/#v1."]);
    check("https://example.org/", "missing-fragment", &["no '#'"]);
    check("#", "missing-prefix", &["version prefix"]);
    check("#timeline", "missing-prefix", &["'timeline'", "'v1.'"]);
    check("#v1", "missing-prefix", &["'v1'"]);
    check("#v.abc", "missing-prefix", &[]);
    check(
        "#v9.abc",
        "unknown-version",
        &["v9 links need a newer Barrier Lab", "reads v1"],
    );
    check(
        "#v0.abc",
        "unknown-version",
        &["'v0' is not a link version"],
    );
    check("#v01.abc", "unknown-version", &["'v01'"]);
    check(
        "#v99999999999999999999.a",
        "unknown-version",
        &["newer Barrier Lab"],
    );
    check("#v1.", "empty-data", &["no scenario data", "cut off"]);
    check("#v1.&until=1s", "empty-data", &[]);
    check(
        "#v1.ab+d",
        "bad-base64",
        &["position 2", "'+'", "base64url"],
    );
    check("#v1.abcé", "bad-base64", &["position 3", "'é'"]);
    check("#v1.abcde", "bad-base64", &["5 characters"]);
    let json = preset("seed-demo").unwrap().to_json();
    let compressed = miniz_oxide::deflate::compress_to_vec(json.as_bytes(), 6);
    check(
        &link_of_raw(&compressed[..compressed.len() / 2]),
        "truncated",
        &["cut off"],
    );
    check(&link_of_raw(&[0xff; 16]), "not-deflate", &["not DEFLATE"]);
    check(
        &link_of_deflated(&vec![b' '; 2 * MAX_JSON_BYTES]),
        "too-large",
        &["more than 1024 KiB"],
    );
    check(
        &link_of_deflated(b"{\"name\":\"\xff\"}"),
        "not-utf8",
        &["not UTF-8", "at 9"],
    );
    let err = fails(
        &link_of_deflated(br#"{"name":"x","operators":[],"colour":1}"#),
        "bad-json",
        &["line 1, column", "unknown field `colour`"],
    );
    assert!(
        matches!(err, LinkError::Json { line: 1, column, .. } if column > 20),
        "{err:?}"
    );
    check(&link_of_deflated(b"{\"name\":"), "bad-json", &["EOF"]);
    let err = fails(
        &link_of_deflated(br#"{"version":2,"name":"x","operators":[]}"#),
        "bad-json",
        &["unsupported scenario version 2"],
    );
    assert!(matches!(err, LinkError::Json { line: 0, .. }), "{err:?}");
    let mut zero = preset("seed-demo").unwrap();
    zero.operators[1].parallelism = Some(0);
    zero.edges[0].to = "nowhere".into();
    check(
        &encode(&zero, &LinkOptions::default()),
        "invalid-scenario",
        &["not valid:", "\n  - ", "nowhere"],
    );
    let mut fault = preset("seed-demo").unwrap();
    fault.faults.push(crate::scenario::Fault::Kill {
        task: "count-per-key#7".into(),
        at: "1s".into(),
    });
    check(
        &encode(&fault, &LinkOptions::default()),
        "invalid-scenario",
        &["count-per-key#7", "parallelism 2"],
    );
    let link = seed_link();
    check(
        &format!("{link}&autplay=1"),
        "unknown-option",
        &[
            "'autplay'",
            "did you mean 'autoplay'",
            "known options: until",
        ],
    );
    check(
        &format!("{link}&colour=red"),
        "unknown-option",
        &["'colour'"],
    );
    check(
        &format!("{link}&until=12"),
        "bad-option",
        &["until=12", "unit"],
    );
    check(&format!("{link}&until=12 s"), "bad-option", &["until=12 s"]);
    check(
        &format!("{link}&until=5parsecs"),
        "bad-option",
        &["unknown time unit"],
    );
    check(&format!("{link}&speed=0"), "bad-option", &["more than 0"]);
    check(&format!("{link}&speed=-1"), "bad-option", &["a number"]);
    check(&format!("{link}&speed=2."), "bad-option", &["a number"]);
    check(
        &format!("{link}&checkpoint=0"),
        "bad-option",
        &["start at 1"],
    );
    check(
        &format!("{link}&checkpoint=+3"),
        "bad-option",
        &["checkpoint id"],
    );
    check(
        &format!("{link}&checkpoint=99999999999999999999999"),
        "bad-option",
        &["too large"],
    );
    check(
        &format!("{link}&checkpoint"),
        "bad-option",
        &["needs a value"],
    );
    check(&format!("{link}&theme=Dark"), "bad-option", &["lower-case"]);
    check(&format!("{link}&embed=yes"), "bad-option", &["1 or 0"]);
    check(
        &format!("{link}&until=1s&until=2s"),
        "bad-option",
        &["given twice"],
    );
    let all = [
        "missing-fragment",
        "missing-prefix",
        "unknown-version",
        "empty-data",
        "bad-base64",
        "truncated",
        "not-deflate",
        "too-large",
        "not-utf8",
        "bad-json",
        "invalid-scenario",
        "unknown-option",
        "bad-option",
    ];
    assert_eq!(kinds, all.into_iter().collect::<BTreeSet<_>>());
}

#[test]
fn garbage_option_names_are_shortened_in_messages() {
    let long = "x".repeat(5000);
    let err = decode(&format!("{}&{long}=1", seed_link())).unwrap_err();
    assert!(err.to_string().len() < 300, "{err}");
}

#[test]
fn options_check_refuses_what_would_not_load() {
    let space = LinkOptions {
        theme: Some("very dark".into()),
        ..Default::default()
    };
    assert_eq!(space.check().unwrap_err().kind(), "bad-option");
    let amp = LinkOptions {
        panel: Some("a&b".into()),
        ..Default::default()
    };
    assert!(amp.check().unwrap_err().to_string().contains("panel=a&b"));
    let speed = LinkOptions {
        speed: Some("fast".into()),
        ..Default::default()
    };
    assert!(speed.check().is_err());
}
