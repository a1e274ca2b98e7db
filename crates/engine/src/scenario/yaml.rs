//! A minimal reader for the part of YAML that Flink's `config.yaml` snippets use: `a.b.c: value`
//! lines and nested maps by indentation, with comments and quoted scalars. Hand-written because the
//! engine takes no YAML dependency; anything outside the subset (lists, flow maps, multi-line
//! scalars, tabs) is refused with a message naming the line rather than misread.

/// One open nested map: the indentation of its keys and the dotted prefix they get.
struct Level {
    indent: usize,
    prefix: String,
}

/// Flattens a snippet into `(dotted.key, value)` pairs in file order.
///
/// ```
/// use barrierlab_engine::scenario::parse_flink_yaml;
/// let pairs = parse_flink_yaml("execution:\n  checkpointing:\n    interval: 5s\n").unwrap();
/// assert_eq!(pairs, vec![("execution.checkpointing.interval".to_string(), "5s".to_string())]);
/// ```
pub fn parse_flink_yaml(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut levels: Vec<Level> = Vec::new();
    // A `key:` line with no value opens a map; its children must be indented deeper.
    let mut pending: Option<(usize, String, usize)> = None;

    for (index, raw) in text.lines().enumerate() {
        let n = index + 1;
        let body = raw.trim_end();
        let content = body.trim_start();
        if content.is_empty() || content.starts_with('#') || content == "---" {
            continue;
        }
        let leading = &body[..body.len() - content.len()];
        if leading.contains('\t') {
            return Err(format!(
                "line {n}: tab in indentation (YAML indents with spaces only)"
            ));
        }
        let indent = leading.len();

        if let Some((parent_indent, parent_key, parent_line)) = pending.take() {
            if indent > parent_indent {
                levels.push(Level {
                    indent,
                    prefix: format!("{parent_key}."),
                });
            } else {
                return Err(no_value(parent_line, &parent_key));
            }
        }
        if levels.is_empty() {
            // The first line sets the base indentation, so an indented pasted snippet still reads.
            levels.push(Level {
                indent,
                prefix: String::new(),
            });
        }
        while levels.len() > 1 && levels.last().is_some_and(|l| l.indent > indent) {
            levels.pop();
        }
        let level = levels
            .last()
            .filter(|l| l.indent == indent)
            .ok_or_else(|| format!("line {n}: indentation does not match any enclosing level"))?;

        if content.starts_with("- ") || content == "-" {
            return Err(format!(
                "line {n}: YAML lists are not supported here; write `key: value` lines"
            ));
        }
        let (key, value) = split_key_value(content)
            .ok_or_else(|| format!("line {n}: expected `key: value`, found '{content}'"))?;
        let key = unquote_key(key).ok_or_else(|| format!("line {n}: empty key"))?;
        let full_key = format!("{}{key}", level.prefix);
        let value = scalar(value).map_err(|e| format!("line {n}: {e}"))?;
        match value {
            None => pending = Some((indent, full_key, n)),
            Some(value) => {
                if out.iter().any(|(k, _)| *k == full_key) {
                    return Err(format!("line {n}: key '{full_key}' appears twice"));
                }
                out.push((full_key, value));
            }
        }
    }
    if let Some((_, key, line)) = pending {
        return Err(no_value(line, &key));
    }
    Ok(out)
}

fn no_value(line: usize, key: &str) -> String {
    format!("line {line}: key '{key}' has no value and no indented keys below it")
}

/// Splits at the first `:` that is followed by a space or ends the line (so `http://x` in a value
/// is left alone).
fn split_key_value(content: &str) -> Option<(&str, &str)> {
    let bytes = content.as_bytes();
    let at = (0..bytes.len())
        .find(|&i| bytes[i] == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' '))?;
    Some((content[..at].trim(), content[at + 1..].trim()))
}

fn unquote_key(key: &str) -> Option<String> {
    let k = strip_quotes(key).unwrap_or(key);
    (!k.is_empty()).then(|| k.to_string())
}

fn strip_quotes(s: &str) -> Option<&str> {
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return Some(&s[1..s.len() - 1]);
        }
    }
    None
}

/// The scalar after `key:`: `None` when empty (a nested map follows), quotes removed, a trailing
/// ` # comment` dropped.
fn scalar(value: &str) -> Result<Option<String>, String> {
    if value.is_empty() || value.starts_with('#') {
        return Ok(None);
    }
    if let Some(q) = value.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let rest = &value[1..];
        let end = rest
            .find(q)
            .ok_or_else(|| format!("unterminated quoted value {value}"))?;
        let after = rest[end + 1..].trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(format!("unexpected text after the quoted value: '{after}'"));
        }
        return Ok(Some(rest[..end].to_string()));
    }
    if value.starts_with('[') || value.starts_with('{') {
        return Err(format!(
            "flow collections like '{value}' are not supported; use a plain value"
        ));
    }
    if value.starts_with('|') || value.starts_with('>') {
        return Err("multi-line values are not supported".to_string());
    }
    let value = match value.find(" #") {
        Some(at) => value[..at].trim_end(),
        None => value,
    };
    Ok(Some(value.to_string()))
}
