//! A validator of the JSON Schema subset that `actions::structured::action_json_schema` and
//! `plan_json_schema` emit (draft 2020-12 keywords `type` — object, array, string, integer,
//! boolean —, `enum`, `properties`, `required`, `additionalProperties: false`, `items`,
//! `minItems`, `maxItems`, `minimum`, `maximum`, `multipleOf`; annotations such as
//! `description`, `title`, `$schema` ignored). Any other keyword is an error, so the
//! schemas cannot drift out of the subset unnoticed. Shared by the engine tests and the
//! conformance suite (`tests/tests/conformance.rs` includes this file by path).
#![allow(dead_code)]

use serde_json::Value;

const KNOWN: [&str; 15] = [
    "$schema",
    "title",
    "description",
    "type",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "multipleOf",
    "$comment",
];

/// Whether `v` satisfies `schema` (an error names the path and what fails).
pub fn validate(schema: &Value, v: &Value, path: &str) -> Result<(), String> {
    let s = schema
        .as_object()
        .ok_or_else(|| format!("{path}: schema is not an object"))?;
    if let Some(k) = s.keys().find(|k| !KNOWN.contains(&k.as_str())) {
        return Err(format!("{path}: keyword {k} outside the subset"));
    }
    if let Some(t) = s.get("type").and_then(Value::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_i64() || v.is_u64(),
            "boolean" => v.is_boolean(),
            other => return Err(format!("{path}: type {other} outside the subset")),
        };
        if !ok {
            return Err(format!("{path}: {v} is not of type {t}"));
        }
    }
    if let Some(Value::Array(e)) = s.get("enum") {
        if !e.contains(v) {
            return Err(format!("{path}: {v} not in the enum"));
        }
    }
    if let Some(n) = v.as_i64() {
        if let Some(m) = s.get("minimum").and_then(Value::as_i64) {
            if n < m {
                return Err(format!("{path}: {n} < minimum {m}"));
            }
        }
        if let Some(m) = s.get("maximum").and_then(Value::as_i64) {
            if n > m {
                return Err(format!("{path}: {n} > maximum {m}"));
            }
        }
        if let Some(m) = s.get("multipleOf").and_then(Value::as_i64) {
            if n % m != 0 {
                return Err(format!("{path}: {n} not a multiple of {m}"));
            }
        }
    }
    if let Value::Array(xs) = v {
        if let Some(m) = s.get("minItems").and_then(Value::as_u64) {
            if (xs.len() as u64) < m {
                return Err(format!("{path}: fewer than {m} items"));
            }
        }
        if let Some(m) = s.get("maxItems").and_then(Value::as_u64) {
            if (xs.len() as u64) > m {
                return Err(format!("{path}: more than {m} items"));
            }
        }
        if let Some(item) = s.get("items") {
            for (i, x) in xs.iter().enumerate() {
                validate(item, x, &format!("{path}[{i}]"))?;
            }
        }
    }
    if let Value::Object(o) = v {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(req)) = s.get("required") {
            for r in req.iter().filter_map(Value::as_str) {
                if !o.contains_key(r) {
                    return Err(format!("{path}: required {r} missing"));
                }
            }
        }
        for (k, x) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(ps, x, &format!("{path}.{k}"))?,
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    return Err(format!("{path}: additional property {k}"))
                }
                None => {}
            }
        }
    }
    Ok(())
}
