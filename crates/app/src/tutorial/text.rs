//! Narration markup: plain text with `*emphasis*` and `` `code` ``, split into spans the panel
//! renders as text nodes inside `<em>`/`<code>` (never as HTML).

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Span {
    Text(String),
    Em(String),
    Code(String),
}

/// Splits narration into spans. An unpaired marker is kept as a literal character.
pub fn spans(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['*', '`']) {
        let marker = rest.as_bytes()[i] as char;
        let Some(len) = rest[i + 1..].find(marker) else {
            break;
        };
        if i > 0 {
            out.push(Span::Text(rest[..i].to_string()));
        }
        let inner = rest[i + 1..i + 1 + len].to_string();
        out.push(if marker == '*' {
            Span::Em(inner)
        } else {
            Span::Code(inner)
        });
        rest = &rest[i + 2 + len..];
    }
    if !rest.is_empty() {
        out.push(Span::Text(rest.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_splits_into_spans() {
        assert_eq!(
            spans("the *source* calls `triggerCheckpointAsync` once"),
            vec![
                Span::Text("the ".into()),
                Span::Em("source".into()),
                Span::Text(" calls ".into()),
                Span::Code("triggerCheckpointAsync".into()),
                Span::Text(" once".into()),
            ]
        );
        assert_eq!(spans("2 * 3"), vec![Span::Text("2 * 3".into())]);
        assert_eq!(spans("<b>x</b>"), vec![Span::Text("<b>x</b>".into())]);
    }
}
