//! Tutorial links: `#tutorial=<id>&step=<n>` (1-based step) opens a step of a built-in tutorial,
//! `#tutorial-url=<url>&step=<n>` one of a tutorial file fetched from `<url>`, `#tutorials` the
//! picker. `&embed=1` shows the step in the compact embed view. Anything else is left to the
//! scenario link codec (`#v1.…`).

use super::{Source, Tutorial};

/// What a fragment asks for, if it is a tutorial fragment.
#[derive(Debug, PartialEq, Eq)]
pub enum Request {
    Picker,
    /// Tutorial id and 0-based step, or why the step is not a number.
    Step(String, Result<usize, String>),
    /// A tutorial file's URL (decoded) and 0-based step.
    Url(String, Result<usize, String>),
}

/// A tutorial fragment: the request and whether it asks for the embed view.
#[derive(Debug, PartialEq, Eq)]
pub struct Parsed {
    pub request: Request,
    pub embed: bool,
}

pub fn parse(hash: &str) -> Option<Parsed> {
    let body = hash.trim().trim_start_matches('#');
    if body == "tutorials" || body == "tutorial" {
        return Some(Parsed {
            request: Request::Picker,
            embed: false,
        });
    }
    let mut id = None;
    let mut url = None;
    let mut step = Ok(0);
    let mut embed = false;
    for part in body.split('&') {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        match k {
            "tutorial" => id = Some(v.to_string()),
            "tutorial-url" => url = Some(decode(v)),
            "embed" => embed = v.is_empty() || v == "1",
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
    let request = match (id, url) {
        (_, Some(url)) if !url.is_empty() => Request::Url(url, step),
        (Some(id), _) if !id.is_empty() => Request::Step(id, step),
        (Some(_), _) | (_, Some(_)) => Request::Picker,
        (None, None) => return None,
    };
    Some(Parsed { request, embed })
}

/// The fragment for step `step` (0-based) of tutorial `t`: by id for a built-in (or file)
/// tutorial, by URL for one fetched from a URL.
pub fn fragment(t: &Tutorial, step: usize) -> String {
    match &t.source {
        Some(Source::Url(url)) => format!("#tutorial-url={}&step={}", encode(url), step + 1),
        _ => format!("#tutorial={}&step={}", t.id, step + 1),
    }
}

/// Percent-encodes what would end the fragment's value or be misread (`%`, `&`, `#`, spaces,
/// anything not ASCII).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'%' | b'&' | b'#' | b'=' | b'+' => out.push_str(&format!("%{b:02X}")),
            0x21..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Undoes `encode` (and any other `%XX`); a malformed escape is kept as it is.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(hash: &str) -> Option<Request> {
        parse(hash).map(|p| p.request)
    }

    #[test]
    fn fragments_parse() {
        assert_eq!(req("#tutorials"), Some(Request::Picker));
        assert_eq!(
            req("#tutorial=alignment&step=3"),
            Some(Request::Step("alignment".into(), Ok(2)))
        );
        assert_eq!(
            req("#tutorial=alignment"),
            Some(Request::Step("alignment".into(), Ok(0)))
        );
        assert!(matches!(
            req("#tutorial=alignment&step=0"),
            Some(Request::Step(_, Err(_)))
        ));
        assert_eq!(req("#v1.abc&until=3s"), None);
        assert_eq!(req(""), None);
        let t = crate::tutorial::find("alignment").unwrap();
        assert_eq!(fragment(t, 2), "#tutorial=alignment&step=3");
        assert!(parse("#tutorial=alignment&step=2&embed=1").unwrap().embed);
        assert!(!parse("#tutorial=alignment&step=2").unwrap().embed);
    }

    #[test]
    fn url_fragments_round_trip() {
        let url = "https://example.org/t/my tutorial.json?a=1&b=2#x";
        let t = Tutorial {
            id: "mine".into(),
            title: String::new(),
            summary: String::new(),
            steps: Vec::new(),
            source: Some(Source::Url(url.into())),
        };
        let f = fragment(&t, 1);
        assert_eq!(f.matches('#').count(), 1, "{f}");
        assert_eq!(req(&f), Some(Request::Url(url.into(), Ok(1))));
        assert_eq!(decode("%E2%86%92%zz%"), "→%zz%");
    }
}
