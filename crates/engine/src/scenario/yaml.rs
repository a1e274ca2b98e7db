//! A reader for the part of YAML that Flink's `config.yaml` uses: `a.b.c: value` lines and nested
//! maps by indentation, with comments and quoted scalars; lists (`[a, b]` or `- a` lines) and
//! block scalars (`|`, `>`) are read as one value each. Hand-written because the engine takes no
//! YAML dependency; anything outside the subset (anchors, multi-line flow collections, tabs) is
//! refused with a message naming the line rather than misread.

/// One `key: value` of a snippet, its key flattened (`execution.checkpointing.interval`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlEntry {
    /// 1-based line of the key.
    pub line: usize,
    pub key: String,
    pub value: String,
}

/// One open nested map: the indentation of its keys and the dotted prefix they get.
struct Level {
    indent: usize,
    prefix: String,
}

/// A `key:` line with no value yet: a nested map, a list or a block scalar follows.
struct Pending {
    indent: usize,
    key: String,
    line: usize,
}

/// One non-blank, non-comment line.
struct Line<'a> {
    n: usize,
    indent: usize,
    content: &'a str,
}

/// Flattens a snippet into `(dotted.key, value)` pairs in file order.
///
/// ```
/// use barrierlab_engine::scenario::parse_flink_yaml;
/// let pairs = parse_flink_yaml("execution:\n  checkpointing:\n    interval: 5s\n").unwrap();
/// assert_eq!(pairs, vec![("execution.checkpointing.interval".to_string(), "5s".to_string())]);
/// ```
pub fn parse_flink_yaml(text: &str) -> Result<Vec<(String, String)>, String> {
    Ok(parse_flink_yaml_lines(text)?
        .into_iter()
        .map(|e| (e.key, e.value))
        .collect())
}

/// [`parse_flink_yaml`] with the line of each key.
pub fn parse_flink_yaml_lines(text: &str) -> Result<Vec<YamlEntry>, String> {
    let raw: Vec<&str> = text.lines().collect();
    let mut out: Vec<YamlEntry> = Vec::new();
    let mut levels: Vec<Level> = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut i = 0;
    while i < raw.len() {
        let Some(line) = content_line(raw[i], i + 1)? else {
            i += 1;
            continue;
        };
        let n = line.n;
        let indent = line.indent;
        let content = line.content;

        if let Some(parent) = pending.take() {
            if content.starts_with("- ") || content == "-" {
                // A block list under `key:`, at the key's indentation or deeper.
                if indent < parent.indent {
                    return Err(no_value(parent.line, &parent.key));
                }
                let (items, next) = block_list(&raw, i, indent)?;
                push(
                    &mut out,
                    parent.line,
                    parent.key,
                    format!("[{}]", items.join(", ")),
                )?;
                i = next;
                continue;
            }
            if indent > parent.indent {
                levels.push(Level {
                    indent,
                    prefix: format!("{}.", parent.key),
                });
            } else {
                return Err(no_value(parent.line, &parent.key));
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
                "line {n}: a list item needs a key above it (`key:` then `- item` lines)"
            ));
        }
        let (key, value) = split_key_value(content)
            .ok_or_else(|| format!("line {n}: expected `key: value`, found '{content}'"))?;
        let key = unquote_key(key).ok_or_else(|| format!("line {n}: empty key"))?;
        let full_key = format!("{}{key}", level.prefix);
        i += 1;
        match scalar(value).map_err(|e| format!("line {n}: {e}"))? {
            Scalar::Empty => {
                pending = Some(Pending {
                    indent,
                    key: full_key,
                    line: n,
                })
            }
            Scalar::Value(value) => push(&mut out, n, full_key, value)?,
            Scalar::Block { folded } => {
                let (value, next) = block_scalar(&raw, i, indent, folded)?;
                push(&mut out, n, full_key, value)?;
                i = next;
            }
        }
    }
    if let Some(p) = pending {
        return Err(no_value(p.line, &p.key));
    }
    Ok(out)
}

fn push(out: &mut Vec<YamlEntry>, line: usize, key: String, value: String) -> Result<(), String> {
    if let Some(first) = out.iter().find(|e| e.key == key) {
        return Err(format!(
            "line {line}: key '{key}' appears twice (first on line {})",
            first.line
        ));
    }
    out.push(YamlEntry { line, key, value });
    Ok(())
}

/// The line without its indentation and trailing blanks; `None` for blank lines, comments and
/// the document marker.
fn content_line(raw: &str, n: usize) -> Result<Option<Line<'_>>, String> {
    let body = raw.trim_end();
    let content = body.trim_start();
    if content.is_empty() || content.starts_with('#') || content == "---" {
        return Ok(None);
    }
    let leading = &body[..body.len() - content.len()];
    if leading.contains('\t') {
        return Err(format!(
            "line {n}: tab in indentation (YAML indents with spaces only)"
        ));
    }
    Ok(Some(Line {
        n,
        indent: leading.len(),
        content,
    }))
}

/// The `- item` lines from `start` at exactly `indent`, as plain values; returns them and the
/// index of the first line after the list.
fn block_list(raw: &[&str], start: usize, indent: usize) -> Result<(Vec<String>, usize), String> {
    let mut items = Vec::new();
    let mut i = start;
    while i < raw.len() {
        let Some(line) = content_line(raw[i], i + 1)? else {
            i += 1;
            continue;
        };
        if line.indent < indent || !(line.content.starts_with("- ") || line.content == "-") {
            break;
        }
        if line.indent > indent {
            return Err(format!(
                "line {}: nested lists are not supported; write one `- item` per line",
                line.n
            ));
        }
        let item = line.content[1..].trim();
        match scalar(item).map_err(|e| format!("line {}: {e}", line.n))? {
            Scalar::Value(v) => items.push(v),
            Scalar::Empty => items.push(String::new()),
            Scalar::Block { .. } => {
                return Err(format!(
                    "line {}: multi-line list items are not supported",
                    line.n
                ))
            }
        }
        i += 1;
    }
    Ok((items, i))
}

/// The lines of a `|` or `>` block scalar from `start`: every line indented deeper than the key
/// (blank lines included). `|` keeps the line breaks, `>` folds them into spaces.
fn block_scalar(
    raw: &[&str],
    start: usize,
    key_indent: usize,
    folded: bool,
) -> Result<(String, usize), String> {
    let mut lines: Vec<&str> = Vec::new();
    let mut i = start;
    let mut block_indent = None;
    while i < raw.len() {
        let line = raw[i].trim_end();
        let content = line.trim_start();
        if content.is_empty() {
            lines.push("");
            i += 1;
            continue;
        }
        let indent = line.len() - content.len();
        if indent <= key_indent {
            break;
        }
        if line[..indent].contains('\t') {
            return Err(format!("line {}: tab in indentation", i + 1));
        }
        let block = *block_indent.get_or_insert(indent);
        lines.push(line.get(block.min(indent)..).unwrap_or(content));
        i += 1;
    }
    while lines.last() == Some(&"") {
        lines.pop();
    }
    Ok((lines.join(if folded { " " } else { "\n" }), i))
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

/// What follows `key:` on its line.
enum Scalar {
    /// Nothing: a nested map or a list follows.
    Empty,
    Value(String),
    /// `|` or `>` (with an optional chomping indicator): the value is on the following lines.
    Block {
        folded: bool,
    },
}

/// The scalar after `key:`: quotes removed, a trailing ` # comment` dropped; a one-line flow
/// collection (`[a, b]`, `{a: b}`) kept as written.
fn scalar(value: &str) -> Result<Scalar, String> {
    if value.is_empty() || value.starts_with('#') {
        return Ok(Scalar::Empty);
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
        return Ok(Scalar::Value(rest[..end].to_string()));
    }
    if value.starts_with('[') || value.starts_with('{') {
        let end = flow_end(value).ok_or_else(|| {
            format!("the list or map '{value}' does not close on its line (multi-line flow collections are not supported)")
        })?;
        let after = value[end..].trim();
        if !after.is_empty() && !after.starts_with('#') {
            return Err(format!(
                "unexpected text after '{}': '{after}'",
                &value[..end]
            ));
        }
        return Ok(Scalar::Value(value[..end].to_string()));
    }
    if let Some(indicator) = value.strip_prefix('|').or_else(|| value.strip_prefix('>')) {
        let indicator = indicator.split(" #").next().unwrap_or("").trim();
        if !matches!(indicator, "" | "-" | "+") {
            return Err(format!("unsupported block scalar header '{value}'"));
        }
        return Ok(Scalar::Block {
            folded: value.starts_with('>'),
        });
    }
    if value.starts_with('&') || value.starts_with('*') || value.starts_with('!') {
        return Err(format!(
            "YAML anchors, aliases and tags are not supported: '{value}'"
        ));
    }
    let value = match value.find(" #") {
        Some(at) => value[..at].trim_end(),
        None => value,
    };
    Ok(Scalar::Value(value.to_string()))
}

/// The byte index just after the bracket closing the flow collection `value` opens, skipping
/// quoted parts; `None` when it does not close.
fn flow_end(value: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in value.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}
