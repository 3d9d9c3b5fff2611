//! Copy-paste calls of an operation in curl, Python (requests) and Node (fetch): its path
//! with the path parameters as variables, the credentials its security scheme takes, its
//! required headers and the recorded example body. Survey API calls carry `enc`, computed as
//! the survey guide shows.

use serde_json::Value;

/// How a call authenticates, as (header, value in the snippet).
fn credentials(op: &Value) -> Vec<(&'static str, &'static str)> {
    let schemes: Vec<&str> = op["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_object())
        .flat_map(|s| s.keys().map(String::as_str))
        .collect();
    match schemes.first().copied() {
        Some("dashboardBearer") => vec![("Authorization", "Bearer $TOKEN")],
        Some("sdkSession") => vec![("Authorization", "Bearer $SESSION_TOKEN")],
        Some("staticKey") => vec![("X-Service-Static-Key", "$STATIC_KEY")],
        Some("appKey") | Some("surveyAppKey") => vec![("X-Service-Api-Key", "$APP_KEY")],
        Some("surveyApiKey") => vec![("X-Api-Key", "$API_KEY")],
        _ => vec![],
    }
}

/// Required header parameters (signing headers of postbacks, for instance).
fn headers(op: &Value) -> Vec<(String, String)> {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "header" && p["required"] == true)
        .filter_map(|p| p["name"].as_str())
        .map(|n| {
            let var = n.to_ascii_uppercase().replace('-', "_");
            (n.to_owned(), format!("${var}"))
        })
        .collect()
}

/// `{placementId}` → `${placementId}` (a shell or template variable).
fn templated(path: &str) -> String {
    path.replace('{', "${")
}

/// A JSON value as a Python literal (`None`, `True`, `False`), indented like `json.dumps`.
fn py_literal(v: &Value, depth: usize) -> String {
    let pad = "    ".repeat(depth + 1);
    let end = "    ".repeat(depth);
    match v {
        Value::Null => "None".to_owned(),
        Value::Bool(b) => if *b { "True" } else { "False" }.to_owned(),
        Value::Array(items) if !items.is_empty() => {
            let inner: Vec<String> = items
                .iter()
                .map(|x| format!("{pad}{}", py_literal(x, depth + 1)))
                .collect();
            format!("[\n{},\n{end}]", inner.join(",\n"))
        }
        Value::Object(map) if !map.is_empty() => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, x)| {
                    format!(
                        "{pad}{}: {}",
                        Value::String(k.clone()),
                        py_literal(x, depth + 1)
                    )
                })
                .collect();
            format!("{{\n{},\n{end}}}", inner.join(",\n"))
        }
        other => other.to_string(),
    }
}

/// The three snippets: (label, code).
pub fn render(
    method: &str,
    path: &str,
    op: &Value,
    body: Option<&Value>,
) -> Vec<(&'static str, String)> {
    let signed = op["security"].to_string().contains("surveyApiKey");
    let query = if signed { "?enc=$ENC" } else { "" };
    let mut all: Vec<(String, String)> = credentials(op)
        .into_iter()
        .map(|(h, v)| (h.to_owned(), v.to_owned()))
        .collect();
    all.extend(headers(op));
    let url = format!("$BASE{}{query}", templated(path));
    let body_text = body.map(|b| serde_json::to_string_pretty(b).unwrap_or_default());

    let mut curl = format!("curl -sS -X {} \"{url}\"", method.to_ascii_uppercase());
    for (h, v) in &all {
        curl += &format!(" \\\n  -H \"{h}: {v}\"");
    }
    if let Some(b) = &body_text {
        curl += &format!(
            " \\\n  -H 'Content-Type: application/json' \\\n  -d '{}'",
            b.replace('\'', "'\\''")
        );
    }

    let py_var = |v: &str| -> String {
        match v.strip_prefix("Bearer $") {
            Some(name) => format!("f\"Bearer {{{name}}}\""),
            None => v.trim_start_matches('$').to_owned(),
        }
    };
    let py_headers: Vec<String> = all
        .iter()
        .map(|(h, v)| format!("\"{h}\": {}", py_var(v)))
        .collect();
    let py_url = format!(
        "f\"{{BASE}}{}{}\"",
        path,
        if signed { "?enc={ENC}" } else { "" }
    );
    let mut python = format!(
        "import requests\n\nr = requests.{}(\n    {py_url},\n    headers={{{}}},\n",
        method,
        py_headers.join(", ")
    );
    if let Some(b) = body {
        python += &format!("    json={},\n", py_literal(b, 1));
    }
    python += "    timeout=10,\n)\nr.raise_for_status()\nprint(r.status_code, r.text)";

    let js_var = |v: &str| -> String {
        match v.strip_prefix("Bearer $") {
            Some(name) => format!("`Bearer ${{{name}}}`"),
            None => v.trim_start_matches('$').to_owned(),
        }
    };
    let mut js_headers: Vec<String> = all
        .iter()
        .map(|(h, v)| format!("\"{h}\": {}", js_var(v)))
        .collect();
    if body_text.is_some() {
        js_headers.push("\"Content-Type\": \"application/json\"".to_owned());
    }
    let mut node = format!(
        "const r = await fetch(`${{BASE}}{}{}`, {{\n  method: \"{}\",\n  headers: {{ {} }},\n",
        templated(path),
        if signed { "?enc=${ENC}" } else { "" },
        method.to_ascii_uppercase(),
        js_headers.join(", ")
    );
    if let Some(b) = &body_text {
        node += &format!("  body: JSON.stringify({}),\n", b.replace('\n', "\n  "));
    }
    node += "});\nconsole.log(r.status, await r.text());";
    vec![("curl", curl), ("Python", python), ("Node.js", node)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_signed_survey_call_names_its_key_and_enc() {
        let op = json!({"security": [{"surveyApiKey": []}]});
        let body = json!({"name": "Wave 1", "active": true});
        let s = render(
            "post",
            "/api/v1/campaigns/{campaignId}/campaignsquota",
            &op,
            Some(&body),
        );
        let (_, curl) = &s[0];
        assert!(
            curl.contains("\"$BASE/api/v1/campaigns/${campaignId}/campaignsquota?enc=$ENC\""),
            "{curl}"
        );
        assert!(curl.contains("-H \"X-Api-Key: $API_KEY\""), "{curl}");
        let (_, python) = &s[1];
        assert!(
            python.contains("requests.post(") && python.contains("\"active\": True"),
            "{python}"
        );
        let (_, node) = &s[2];
        assert!(
            node.contains("`${BASE}/api/v1/campaigns/${campaignId}/campaignsquota?enc=${ENC}`"),
            "{node}"
        );
    }
}
