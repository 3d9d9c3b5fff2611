//! Schemas as people read them: a type label for any schema (`string`, `integer (int64)`,
//! `Placement`, `array of Goal`, `"A" | "B"`), a property table for an object, and the named
//! schemas an operation uses, each with its own table (linked from the labels).

use std::collections::BTreeSet;

use serde_json::Value;

use super::layout::{esc, prose};

/// The component a `$ref` names (`#/components/schemas/Placement` → `Placement`).
fn ref_name(s: &Value) -> Option<&str> {
    s["$ref"].as_str()?.strip_prefix("#/components/schemas/")
}

/// The schema a `$ref` points to (the schema itself otherwise).
fn resolve<'a>(spec: &'a Value, s: &'a Value) -> &'a Value {
    match ref_name(s) {
        Some(name) => &spec["components"]["schemas"][name],
        None => s,
    }
}

/// A schema's type, readable, with links to named schemas.
pub fn label(spec: &Value, s: &Value) -> String {
    if let Some(name) = ref_name(s) {
        return format!(r##"<a href="#schema-{n}">{n}</a>"##, n = esc(name));
    }
    if let Some(values) = s["enum"].as_array() {
        let v: Vec<String> = values.iter().map(|v| esc(&v.to_string())).collect();
        return v.join(" | ");
    }
    for (key, sep) in [("oneOf", " | "), ("anyOf", " | "), ("allOf", " &amp; ")] {
        if let Some(parts) = s[key].as_array() {
            let v: Vec<String> = parts.iter().map(|p| label(spec, p)).collect();
            return v.join(sep);
        }
    }
    let kinds: Vec<&str> = match &s["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    let nullable = kinds.contains(&"null");
    let mut text = match kinds.iter().find(|k| **k != "null").copied() {
        Some("array") => format!("array of {}", label(spec, &s["items"])),
        Some("object") if s["additionalProperties"].is_object() => {
            format!("map of {}", label(spec, &s["additionalProperties"]))
        }
        Some(k) => k.to_owned(),
        None => "any".to_owned(),
    };
    if let Some(f) = s["format"].as_str() {
        text += &format!(" ({})", esc(f));
    }
    if nullable {
        text += " or null";
    }
    text
}

/// The properties of an object schema (its `allOf` parts merged).
fn properties<'a>(spec: &'a Value, s: &'a Value, out: &mut Vec<(&'a str, &'a Value, bool)>) {
    let s = resolve(spec, s);
    let required: Vec<&str> = s["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if let Some(props) = s["properties"].as_object() {
        for (name, p) in props {
            out.push((name.as_str(), p, required.contains(&name.as_str())));
        }
    }
    for part in s["allOf"].as_array().into_iter().flatten() {
        properties(spec, part, out);
    }
}

/// A property table, or the schema's type when it has no properties.
pub fn table(spec: &Value, s: &Value) -> String {
    let mut props = Vec::new();
    properties(spec, s, &mut props);
    if props.is_empty() {
        return format!("<p>{}</p>", label(spec, resolve(spec, s)));
    }
    let rows: String = props
        .iter()
        .map(|(name, p, required)| {
            let about = p["description"]
                .as_str()
                .or_else(|| resolve(spec, p)["description"].as_str())
                .unwrap_or_default();
            format!(
                r#"<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td></tr>"#,
                esc(name),
                if *required {
                    r#" <span class="req">required</span>"#
                } else {
                    ""
                },
                label(spec, p),
                prose(about)
            )
        })
        .collect();
    format!(
        "<table><thead><tr><th>Field</th><th>Type</th><th>About</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

/// The named schemas `roots` use, directly or through other named schemas (at most 40).
fn named(spec: &Value, roots: &[&Value]) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&Value> = roots.to_vec();
    while let Some(s) = todo.pop() {
        if seen.len() >= 40 {
            break;
        }
        if let Some(name) = ref_name(s) {
            if !seen.insert(name.to_owned()) {
                continue;
            }
        }
        let s = resolve(spec, s);
        for key in ["items", "additionalProperties"] {
            if s[key].is_object() {
                todo.push(&s[key]);
            }
        }
        for key in ["allOf", "oneOf", "anyOf"] {
            todo.extend(s[key].as_array().into_iter().flatten());
        }
        if let Some(props) = s["properties"].as_object() {
            todo.extend(props.values());
        }
    }
    seen
}

/// The named schemas of an operation, each with its table.
pub fn section(spec: &Value, roots: &[&Value]) -> String {
    named(spec, roots)
        .iter()
        .map(|name| {
            let s = &spec["components"]["schemas"][name.as_str()];
            let about = s["description"].as_str().unwrap_or_default();
            format!(
                r#"<details id="schema-{n}" open><summary><strong>{n}</strong> <span class="muted">{a}</span></summary>{t}</details>"#,
                n = esc(name),
                a = esc(about),
                t = table(spec, s)
            )
        })
        .collect()
}
